import { seededRandom } from '../core/random.js';
import { StatsInputError } from './errors.js';

/**
 * A bootstrap confidence interval for the difference of a statistic between
 * two independent samples, statistic(b) − statistic(a): each of `resamples`
 * rounds draws n_a values from a and n_b from b with replacement, and the
 * interval is the percentile interval of the differences (Efron & Tibshirani
 * 1993, §13.3) — no assumption about the shape of the distribution, which
 * suits latencies.
 *
 * Guarantees: low ≤ high; the same samples, statistic, seed and resample count
 * give the same interval on every machine (draws come from the seeded mulberry32
 * of `core/random.ts`, never `Math.random`), so a report can be reproduced and a
 * CI verdict does not flicker. With few values the interval is only as good as
 * the samples: it can be narrower than the truth for n below about 10.
 */

export interface BootstrapOptions {
  /** Rounds; default 2000 (the percentile tails then rest on 50 rounds each). */
  resamples?: number;
  /** Seed of the resampling; default 1. */
  seed?: number;
  /** Two-sided confidence level in (0, 1); default 0.95. */
  confidence?: number;
}

export interface BootstrapInterval {
  /** statistic(b) − statistic(a) on the samples themselves. */
  estimate: number;
  low: number;
  high: number;
  resamples: number;
  confidence: number;
}

export const DEFAULT_RESAMPLES = 2000;

export function bootstrapDifference(
  a: readonly number[],
  b: readonly number[],
  statistic: (values: readonly number[]) => number = median,
  options: BootstrapOptions = {},
): BootstrapInterval {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  if (a.length === 0 || b.length === 0)
    throw new StatsInputError('bootstrapDifference', 'both samples need at least one value');
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new StatsInputError('bootstrapDifference', `resamples must be a whole number ≥ 1, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1))
    throw new StatsInputError('bootstrapDifference', `confidence must be within (0, 1), got ${confidence}`);
  const random = seededRandom(options.seed ?? 1);
  const scratchA = new Array<number>(a.length);
  const scratchB = new Array<number>(b.length);
  const differences = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < a.length; i++) scratchA[i] = a[Math.floor(random() * a.length)];
    for (let i = 0; i < b.length; i++) scratchB[i] = b[Math.floor(random() * b.length)];
    differences[r] = statistic(scratchB) - statistic(scratchA);
  }
  differences.sort();
  const tail = (1 - confidence) / 2;
  return {
    estimate: statistic(b) - statistic(a),
    low: quantileOfSorted(differences, tail),
    high: quantileOfSorted(differences, 1 - tail),
    resamples,
    confidence,
  };
}

/** The median: the middle value, or the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new StatsInputError('median', 'no values');
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Linear interpolation between order statistics (Hyndman & Fan type 7). */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
