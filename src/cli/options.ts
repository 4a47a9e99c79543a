import { InvalidArgumentError } from 'commander';

/** Commander parser for a positive number of seconds, returned as milliseconds. */
export function secondsToMs(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive number of seconds, got "${value}"`);
  return Math.round(n * 1000);
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected an integer >= 0, got "${value}"`);
  return n;
}

export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`expected a number >= 0, got "${value}"`);
  return n;
}
