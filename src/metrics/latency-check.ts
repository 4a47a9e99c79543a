import type { LatencyMetric } from '../scenario/types.js';
import { LATENCY_METRICS } from '../scenario/types.js';
import { formatMs } from './format.js';

/**
 * A turn's `latency:` block checked against its measured metrics.
 *
 * Bounds are inclusive: `max: 1200` passes 1200 ms and fails 1200.1 ms.
 *
 * A bound on a metric that could not be measured (null) fails too, with kind
 * `latency_exceeded` and a reason that says "not measurable" and why. The kind is
 * the same because the usual causes are unbounded latencies — the bot never
 * spoke, never started its LLM, never stopped talking when interrupted — and an
 * assertion that silently passes on a missing measurement would hide exactly the
 * failures it was written to catch. The reason tells the cases apart, and a CI
 * dashboard that groups by kind keeps every latency assertion in one place.
 */

export interface LatencyBoundInput {
  readonly min?: number;
  readonly max?: number;
}

/** The scenario's turn-level `latency:` block (structurally the loader's `LatencyAssertions`). */
export type LatencyAssertionsInput = { readonly [M in LatencyMetric]?: LatencyBoundInput };

/** The measured side: a turn's metrics, and why a null one is null. */
export interface LatencyMeasurements {
  readonly metrics: { readonly [M in LatencyMetric]?: number | null };
  readonly unmeasured?: { readonly [M in LatencyMetric]?: string };
}

/** Same shape as the results module's `Failure`, narrowed to this one kind. */
export interface LatencyFailure {
  kind: 'latency_exceeded';
  turn_index: number;
  expectation_index: null;
  event: null;
  reason: string;
}

/** One failure per violated bound, in the order of `LATENCY_METRICS`; none when the block is absent. */
export function checkLatency(
  turnIndex: number,
  assertions: LatencyAssertionsInput | undefined,
  measured: LatencyMeasurements,
): LatencyFailure[] {
  if (!assertions) return [];
  const failures: LatencyFailure[] = [];
  const fail = (reason: string): void => {
    failures.push({ kind: 'latency_exceeded', turn_index: turnIndex, expectation_index: null, event: null, reason });
  };
  for (const metric of LATENCY_METRICS) {
    const bound = assertions[metric];
    if (!bound) continue;
    const max = finite(bound.max);
    const min = finite(bound.min);
    if (max === null && min === null) continue;
    const value = measured.metrics[metric];
    if (value === null || value === undefined || !Number.isFinite(value)) {
      const why = measured.unmeasured?.[metric] ?? 'no measurement was recorded';
      fail(`${metric} not measurable (bound ${describeBound(min, max)}): ${why}`);
      continue;
    }
    if (max !== null && value > max) fail(`${metric} ${formatMs(value, 3)} exceeds max ${formatMs(max, 3)}`);
    if (min !== null && value < min) fail(`${metric} ${formatMs(value, 3)} is below min ${formatMs(min, 3)}`);
  }
  return failures;
}

function describeBound(min: number | null, max: number | null): string {
  if (min !== null && max !== null) return `min ${formatMs(min, 3)}, max ${formatMs(max, 3)}`;
  return max !== null ? `max ${formatMs(max, 3)}` : `min ${formatMs(min ?? 0, 3)}`;
}

function finite(v: number | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
