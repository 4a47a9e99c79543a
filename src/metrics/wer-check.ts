import { WER_METRICS, type WerAssertions, type WerMetric } from '../scenario/check-types.js';

/**
 * A turn's `wer:` block checked against its word error rates, as
 * `latency-check.ts` checks `latency:`: bounds are inclusive (`max: 0.2`
 * passes 0.2 and fails 0.2001), and a bound on a rate that could not be
 * measured fails too (the bot sent no transcription of the caller, no reply
 * matched), with kind `wer_exceeded` and a reason saying why — an assertion
 * that passed on a missing measurement would hide exactly what it was
 * written to catch.
 */

/** What was measured, and why a rate is null. */
export interface WerMeasurements {
  readonly rates: { readonly [M in WerMetric]?: number | null };
  readonly unmeasured?: { readonly [M in WerMetric]?: string };
}

/** Same shape as the results module's `Failure`, narrowed to this kind. */
export interface WerFailure {
  kind: 'wer_exceeded';
  turn_index: number;
  expectation_index: null;
  event: null;
  reason: string;
}

/** One failure per violated bound, `user_wer` first; none when the block is absent. */
export function checkWer(
  turnIndex: number,
  assertions: WerAssertions | undefined,
  measured: WerMeasurements,
): WerFailure[] {
  if (!assertions) return [];
  const failures: WerFailure[] = [];
  const fail = (reason: string): void => {
    failures.push({ kind: 'wer_exceeded', turn_index: turnIndex, expectation_index: null, event: null, reason });
  };
  for (const metric of WER_METRICS) {
    const bound = assertions[metric];
    if (!bound || (bound.min === undefined && bound.max === undefined)) continue;
    const value = measured.rates[metric];
    if (value === null || value === undefined || !Number.isFinite(value)) {
      fail(
        `${metric} not measurable (bound ${describe(bound)}): ` +
          `${measured.unmeasured?.[metric] ?? 'no measurement was recorded'}`,
      );
      continue;
    }
    if (bound.max !== undefined && value > bound.max) fail(`${metric} ${value.toFixed(3)} exceeds max ${bound.max}`);
    if (bound.min !== undefined && value < bound.min) fail(`${metric} ${value.toFixed(3)} is below min ${bound.min}`);
  }
  return failures;
}

function describe(b: { min?: number; max?: number }): string {
  return [b.min !== undefined ? `min ${b.min}` : '', b.max !== undefined ? `max ${b.max}` : '']
    .filter(Boolean)
    .join(', ');
}
