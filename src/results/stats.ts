/** Distribution of a set of measurements; percentiles by nearest rank (always a value that was measured). */
export interface DistributionStats {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export function distribution(values: readonly number[]): DistributionStats | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    count: sorted.length,
    min: sorted[0],
    mean: round3(sum / sorted.length),
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1],
  };
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
