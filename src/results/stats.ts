import { latencyStats, type LatencyStats } from '../metrics/index.js';

/** Distribution of a set of measurements; percentiles by nearest rank (always a value that was measured). */
export type DistributionStats = LatencyStats;

export function distribution(values: readonly number[]): DistributionStats | null {
  return latencyStats(values);
}

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** A plain object with keys in code-unit order, so serialized summaries are byte-stable. */
export function sortedRecord(map: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...map.keys()].sort()) out[k] = map.get(k) ?? 0;
  return out;
}
