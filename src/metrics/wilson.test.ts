import { describe, expect, it } from 'vitest';
import { StatsInputError } from './errors.js';
import { newcombeDifference, wilsonInterval } from './wilson.js';

/**
 * Reference values: Newcombe (1998), "Two-sided confidence intervals for the
 * single proportion" (method 3) and "Interval estimation for the difference
 * between independent proportions" (method 10), both Statistics in Medicine 17,
 * Tables II; the differences there are p1 − p2, here rate(b) − rate(a).
 */
describe('wilsonInterval', () => {
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i gives Newcombe’s published interval', (s, n, low, high) => {
    const w = wilsonInterval(s, n);
    expect(w.low).toBeCloseTo(low, 4);
    expect(w.high).toBeCloseTo(high, 4);
    expect(w.rate).toBe(s / n);
  });

  it('is never empty at 0/n or n/n and never leaves [0, 1]', () => {
    expect(wilsonInterval(10, 10)).toMatchObject({ rate: 1, high: 1 });
    expect(wilsonInterval(10, 10).low).toBeCloseTo(0.7225, 4);
    expect(wilsonInterval(0, 10)).toMatchObject({ rate: 0, low: 0 });
    expect(wilsonInterval(0, 10).high).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval(1, 1).low).toBeCloseTo(0.2065, 4);
    for (let n = 1; n <= 40; n++) {
      for (let s = 0; s <= n; s++) {
        const w = wilsonInterval(s, n);
        expect(0 <= w.low && w.low <= w.rate && w.rate <= w.high && w.high <= 1).toBe(true);
      }
    }
  });

  it('narrows as the trials grow at the same rate', () => {
    const widths = [10, 100, 1000].map((n) => {
      const w = wilsonInterval(n / 2, n);
      return w.high - w.low;
    });
    expect(widths[0]).toBeGreaterThan(widths[1]);
    expect(widths[1]).toBeGreaterThan(widths[2]);
    expect(widths[2]).toBeCloseTo(2 * 1.96 * Math.sqrt(0.25 / 1000), 3);
  });

  it('refuses counts that mean nothing', () => {
    expect(() => wilsonInterval(1, 0)).toThrow(StatsInputError);
    expect(() => wilsonInterval(3, 2)).toThrow('successes must be a whole number from 0 to 2, got 3');
    expect(() => wilsonInterval(0.5, 2)).toThrow(StatsInputError);
    expect(() => wilsonInterval(1, 2, 0)).toThrow('z must be a positive number');
  });
});

describe('newcombeDifference', () => {
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i gives Newcombe’s published interval', (s1, n1, s2, n2, low, high) => {
    const d = newcombeDifference({ successes: s2, trials: n2 }, { successes: s1, trials: n1 });
    expect(d.difference).toBeCloseTo(s1 / n1 - s2 / n2, 12);
    expect(d.low).toBeCloseTo(low, 4);
    expect(d.high).toBeCloseTo(high, 4);
  });

  it('is antisymmetric: swapping the samples mirrors the interval', () => {
    const ab = newcombeDifference({ successes: 7, trials: 12 }, { successes: 2, trials: 9 });
    const ba = newcombeDifference({ successes: 2, trials: 9 }, { successes: 7, trials: 12 });
    expect(ba.difference).toBeCloseTo(-ab.difference, 12);
    expect(ba.low).toBeCloseTo(-ab.high, 12);
    expect(ba.high).toBeCloseTo(-ab.low, 12);
  });

  it('excludes 0 for 10/10 → 5/10 but not for 1/1 → 0/1', () => {
    expect(newcombeDifference({ successes: 10, trials: 10 }, { successes: 5, trials: 10 }).high).toBeLessThan(0);
    const single = newcombeDifference({ successes: 1, trials: 1 }, { successes: 0, trials: 1 });
    expect(single.low).toBeLessThan(0);
    expect(single.high).toBeGreaterThan(0);
  });
});
