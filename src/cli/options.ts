import { InvalidArgumentError, Option } from 'commander';
import { CODEC_NAMES, CODECS, DEFAULT_CODEC } from '../protocol/index.js';
import { REPORTERS } from '../report/index.js';

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

/** `--wire <codec>`: the choices and their help come from the codec table. */
export function wireOption(): Option {
  const described = CODEC_NAMES.map((name) => `${name}: ${CODECS[name].description}`).join('; ');
  return new Option('--wire <codec>', `wire codec (${described})`).choices(CODEC_NAMES).default(DEFAULT_CODEC);
}

/** `--reporter <list>`: the names come from the reporter table. */
export function reporterOption(): Option {
  const names = Object.keys(REPORTERS).join(', ');
  return new Option('--reporter <list>', `comma list: ${names} (name=PATH sets a file)`).default('list');
}
