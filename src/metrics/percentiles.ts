import type { LatencyMetric } from '../scenario/types.js';
import { LATENCY_METRICS } from '../scenario/types.js';
import { round3 } from './bot-metrics.js';
import { StatsInputError } from './errors.js';

/**
 * Percentiles of latency samples.
 *
 * `nearest-rank` (the default): the p-th percentile of n sorted values is the
 * value at rank ⌈p/100 · n⌉ (1-based; p = 0 gives the minimum). It always returns
 * a value that was measured, so "p95 = 812 ms" means some run took 812 ms, and it
 * is what the results summary uses. With few samples the high percentiles are the
 * maximum: p99 of 20 runs is the slowest run.
 *
 * `linear`: Hyndman & Fan type 7 (numpy's default, Excel's PERCENTILE.INC):
 * h = (n − 1) · p/100, interpolating between the values at ⌊h⌋ and ⌊h⌋ + 1
 * (0-based). Smoother for small n, but may report a latency no run had.
 */
export type PercentileMethod = 'nearest-rank' | 'linear';

export interface LatencyStats {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

/** The p-th percentile (0 ≤ p ≤ 100) of values sorted ascending. */
export function percentile(sortedAsc: readonly number[], p: number, method: PercentileMethod = 'nearest-rank'): number {
  const n = sortedAsc.length;
  if (n === 0) throw new StatsInputError('percentile', 'no values');
  if (!(p >= 0 && p <= 100)) throw new StatsInputError('percentile', `p must be within 0..100, got ${p}`);
  if (method === 'nearest-rank') {
    // The epsilon keeps float noise (0.95 · 20 = 19.000000000000004) from bumping an exact rank up by one.
    const rank = Math.max(1, Math.ceil((p * n) / 100 - 1e-9));
    return sortedAsc[Math.min(n, rank) - 1];
  }
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return round3(sortedAsc[lo] + (h - lo) * (sortedAsc[hi] - sortedAsc[lo]));
}

/** count, min, mean, p50, p90, p95, p99, max of the finite values; null when there are none. */
export function latencyStats(
  values: Iterable<number | null | undefined>,
  method: PercentileMethod = 'nearest-rank',
): LatencyStats | null {
  const sorted: number[] = [];
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v)) sorted.push(v);
  if (sorted.length === 0) return null;
  sorted.sort((a, b) => a - b);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted[0],
    mean: round3(sum / sorted.length),
    p50: percentile(sorted, 50, method),
    p90: percentile(sorted, 90, method),
    p95: percentile(sorted, 95, method),
    p99: percentile(sorted, 99, method),
    max: sorted[sorted.length - 1],
  };
}

/** Per latency metric, the stats of every turn's value (null metrics skipped); for `earshot bench`. */
export function summarizeLatencies(
  turns: Iterable<{ readonly [M in LatencyMetric]?: number | null }>,
  method: PercentileMethod = 'nearest-rank',
): Record<LatencyMetric, LatencyStats | null> {
  const series = Object.fromEntries(LATENCY_METRICS.map((m) => [m, [] as number[]])) as Record<LatencyMetric, number[]>;
  for (const t of turns) {
    for (const m of LATENCY_METRICS) {
      const v = t[m];
      if (typeof v === 'number' && Number.isFinite(v)) series[m].push(v);
    }
  }
  return Object.fromEntries(LATENCY_METRICS.map((m) => [m, latencyStats(series[m], method)])) as Record<
    LatencyMetric,
    LatencyStats | null
  >;
}
