import { StatsInputError } from './errors.js';

/**
 * Confidence intervals for pass rates.
 *
 * `wilsonInterval`: the Wilson score interval (Wilson 1927; Newcombe 1998,
 * method 3) for a binomial proportion, without continuity correction. Unlike
 * the textbook p ± z·√(p(1−p)/n) it never leaves [0, 1], is not empty at 0/n or
 * n/n (10/10 passes gives [0.722, 1], not [1, 1]) and keeps close to its nominal
 * coverage for small n — the few repeats a CI run can afford.
 *
 * `newcombeDifference`: the interval for the difference of two independent
 * proportions, b − a, built from their Wilson intervals (Newcombe 1998,
 * "Interval estimation for the difference between independent proportions",
 * method 10, the hybrid score interval). When it lies wholly below 0, b's rate
 * is lower than a's at the chosen confidence.
 *
 * Guarantees: 0 ≤ low ≤ rate ≤ high ≤ 1 for a proportion; −1 ≤ low ≤ difference
 * ≤ high ≤ 1 for a difference. Inputs are counts: whole numbers, 0 ≤ successes
 * ≤ trials, trials ≥ 1; anything else is a StatsInputError.
 */

/** z for a two-sided 95 % interval: the 0.975 quantile of the standard normal. */
export const Z_95 = 1.959963984540054;

export interface ProportionInterval {
  successes: number;
  trials: number;
  /** successes / trials. */
  rate: number;
  low: number;
  high: number;
}

export interface DifferenceInterval {
  /** rate of b − rate of a. */
  difference: number;
  low: number;
  high: number;
}

export function wilsonInterval(successes: number, trials: number, z: number = Z_95): ProportionInterval {
  checkCounts('wilsonInterval', successes, trials);
  if (!(Number.isFinite(z) && z > 0))
    throw new StatsInputError('wilsonInterval', `z must be a positive number, got ${z}`);
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  // At 0/n and n/n the closed form gives the bound exactly in real arithmetic; pin it against rounding.
  const low = successes === 0 ? 0 : Math.max(0, Math.min(p, centre - half));
  const high = successes === trials ? 1 : Math.min(1, Math.max(p, centre + half));
  return { successes, trials, rate: p, low, high };
}

/** Interval for rate(b) − rate(a), each given as successes out of trials. */
export function newcombeDifference(
  a: { successes: number; trials: number },
  b: { successes: number; trials: number },
  z: number = Z_95,
): DifferenceInterval {
  const wa = wilsonInterval(a.successes, a.trials, z);
  const wb = wilsonInterval(b.successes, b.trials, z);
  const difference = wb.rate - wa.rate;
  const low = difference - Math.sqrt((wb.rate - wb.low) ** 2 + (wa.high - wa.rate) ** 2);
  const high = difference + Math.sqrt((wb.high - wb.rate) ** 2 + (wa.rate - wa.low) ** 2);
  return { difference, low: Math.max(-1, Math.min(difference, low)), high: Math.min(1, Math.max(difference, high)) };
}

function checkCounts(fn: string, successes: number, trials: number): void {
  if (!Number.isInteger(trials) || trials < 1)
    throw new StatsInputError(fn, `trials must be a whole number ≥ 1, got ${trials}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) {
    throw new StatsInputError(fn, `successes must be a whole number from 0 to ${trials}, got ${successes}`);
  }
}
