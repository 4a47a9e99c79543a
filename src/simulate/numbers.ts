/**
 * The scorecard's numeric tolerance. Finding the numbers in a text (digits,
 * scales, spelled out) is the metrics module's `numbersIn`, shared with the
 * `number:` check of scripted scenarios.
 */
export { numbersIn } from '../metrics/index.js';

/** GAIA's numeric precision: the highest correctness a deviation from the expected number allows. */
export function toleranceCap(deviation: number): number {
  if (deviation <= 0.01) return 10;
  if (deviation <= 0.05) return 8;
  if (deviation <= 0.15) return 4;
  if (deviation <= 0.5) return 1;
  return 0;
}

/** Relative deviation of `actual` from `expected` (an expected 0 allows only 0). */
export function deviation(actual: number, expected: number): number {
  if (expected === 0) return actual === 0 ? 0 : Infinity;
  return Math.abs(actual - expected) / Math.abs(expected);
}

/** The said number closest to `wanted`, and how far off it is. */
export function nearest(said: readonly number[], wanted: number): { closest: number; dev: number } {
  const closest = said.reduce((best, x) => (deviation(x, wanted) < deviation(best, wanted) ? x : best));
  return { closest, dev: deviation(closest, wanted) };
}

/** A deviation as the reasons write it ("1.5 %"; "no match" when nothing compares, as against an expected 0). */
export function percent(dev: number): string {
  return Number.isFinite(dev) ? `${(dev * 100).toFixed(1)} %` : 'no match';
}
