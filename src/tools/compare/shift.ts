import { bootstrapDifference, mannWhitneyU, minimumPValue, type MannWhitneyMethod } from '../../metrics/index.js';

/**
 * The test `earshot compare` runs on two samples of one quantity (a latency, a GAIA score): the shift of a statistic
 * (median, mean) with a seeded bootstrap interval, and a two-sided Mann–Whitney p-value. Each caller keeps its own
 * verdict rule (which direction is worse, how big a shift matters); this is only the shared measurement.
 */
export interface ShiftTest {
  /** statistic(new) − statistic(base). */
  shift: number;
  /** Bootstrap 95 % interval of the shift. */
  ci95: { low: number; high: number };
  p_value: number;
  test: MannWhitneyMethod;
  /**
   * Whether samples this small can reach `alpha` at all (the smallest p-value their sizes allow is below it); when
   * not, no verdict but `too_few` is honest, whatever the p-value.
   */
  decisive: boolean;
}

export interface ShiftTestSettings {
  alpha: number;
  resamples: number;
  seed: number;
}

/** The shift test of `next` against `base`; null when either side has no sample. */
export function shiftTest(
  base: readonly number[],
  next: readonly number[],
  statistic: (values: readonly number[]) => number,
  settings: ShiftTestSettings,
): ShiftTest | null {
  if (base.length === 0 || next.length === 0) return null;
  const boot = bootstrapDifference(base, next, statistic, { resamples: settings.resamples, seed: settings.seed });
  const test = mannWhitneyU(base, next);
  return {
    shift: statistic(next) - statistic(base),
    ci95: { low: boot.low, high: boot.high },
    p_value: test.p_value,
    test: test.method,
    decisive: minimumPValue(base.length, next.length) < settings.alpha,
  };
}
