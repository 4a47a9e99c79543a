import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/random.js';
import { StatsInputError } from './errors.js';
import { EXACT_MAX_PAIRS, mannWhitneyU, minimumPValue } from './mann-whitney.js';
import { normalCdf, normalSurvival } from './normal.js';

/** Every split of the pooled values into |a| and |b|: the exact permutation p-value, by brute force. */
function bruteForceP(a: number[], b: number[]): number {
  const pooled = [...a, ...b];
  const u = (x: number[], y: number[]): number =>
    x.reduce((s, v) => s + y.reduce((t, w) => t + (v > w ? 1 : v === w ? 0.5 : 0), 0), 0);
  const observed = u(a, b);
  const k = Math.min(observed, a.length * b.length - observed);
  let hits = 0;
  let total = 0;
  const pick = (start: number, chosen: number[]): void => {
    if (chosen.length === a.length) {
      const x = chosen.map((i) => pooled[i]);
      const y = pooled.filter((_, i) => !chosen.includes(i));
      total++;
      if (u(x, y) <= k) hits++;
      return;
    }
    for (let i = start; i < pooled.length; i++) pick(i + 1, [...chosen, i]);
  };
  pick(0, []);
  return Math.min(1, (2 * hits) / total);
}

describe('the standard normal tail', () => {
  it('matches tabulated values to 1e-7', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1)).toBeCloseTo(0.8413447461, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 7);
    expect(normalSurvival(2.575829303549)).toBeCloseTo(0.005, 7);
    expect(normalCdf(-3)).toBeCloseTo(0.001349898, 7);
  });
});

describe('mannWhitneyU', () => {
  // SciPy's documented example (scipy.stats.mannwhitneyu): U1 = 17, exact p = 0.1111, asymptotic p = 0.11134688653314041.
  const males = [19, 22, 16, 29, 24];
  const females = [20, 11, 17, 12];

  it('gives SciPy’s exact p-value for its documented example (no ties, small samples)', () => {
    const r = mannWhitneyU(males, females);
    expect(r).toMatchObject({ u: 17, n_a: 5, n_b: 4, method: 'exact', ties: false });
    expect(r.p_value).toBeCloseTo(1 / 9, 12);
  });

  it('gives SciPy’s asymptotic p-value for the same example with the normal approximation', () => {
    const r = mannWhitneyU(males, females, 'normal');
    expect(r.method).toBe('normal');
    expect(r.z).toBeCloseTo(1.5921683328, 8);
    expect(r.p_value).toBeCloseTo(0.11134688653314041, 6);
  });

  it('corrects the variance for ties (worked by hand)', () => {
    // a = 1 2 2 3 5, b = 2 3 4 4 6 7: U_a = 0 + 0.5 + 0.5 + 1.5 + 4 = 6.5; tie groups 2 (×3), 3 (×2), 4 (×2): Σ(t³ − t) = 36;
    // σ² = 30/12 · (12 − 36/110) = 29.1818…; z = (|6.5 − 15| − 0.5)/σ = 1.48093; p = 2·(1 − Φ(z)) = 0.138626.
    const r = mannWhitneyU([1, 2, 2, 3, 5], [2, 3, 4, 4, 6, 7]);
    expect(r).toMatchObject({ u: 6.5, method: 'normal', ties: true });
    expect(r.z).toBeCloseTo(1.4809275531, 8);
    expect(r.p_value).toBeCloseTo(0.1386258799, 6);
    expect(() => mannWhitneyU([1, 2, 2], [2, 3], 'exact')).toThrow(StatsInputError);
  });

  it('gives the textbook extremes: 4 vs 4 fully separated is 2/70, either way round', () => {
    const low = [10, 12, 14, 16];
    const high = [20, 21, 22, 23];
    expect(mannWhitneyU(low, high).p_value).toBeCloseTo(2 / 70, 12);
    expect(mannWhitneyU(high, low)).toMatchObject({ u: 16 });
    expect(mannWhitneyU(high, low).p_value).toBeCloseTo(2 / 70, 12);
    expect(minimumPValue(4, 4)).toBeCloseTo(2 / 70, 12);
    expect(minimumPValue(3, 3)).toBeCloseTo(0.1, 12);
    expect(minimumPValue(5, 5)).toBeCloseTo(2 / 252, 12);
    expect(minimumPValue(1, 1)).toBe(1);
  });

  it('agrees with brute-force enumeration of every split on random samples', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 25; trial++) {
      const m = 1 + Math.floor(random() * 6);
      const n = 1 + Math.floor(random() * 6);
      const a = Array.from({ length: m }, () => Math.round(random() * 1e6) / 1e3);
      const b = Array.from({ length: n }, () => Math.round(random() * 1e6) / 1e3 + random() * 300);
      expect(mannWhitneyU(a, b).p_value).toBeCloseTo(bruteForceP(a, b), 10);
    }
  });

  it('switches to the normal approximation above the exact limit, and both agree there', () => {
    const random = seededRandom(3);
    const a = Array.from({ length: 50 }, () => random() * 100);
    const b = Array.from({ length: 50 }, () => random() * 100 + 8);
    expect(50 * 50).toBe(EXACT_MAX_PAIRS);
    const exact = mannWhitneyU(a, b);
    expect(exact.method).toBe('exact');
    const normal = mannWhitneyU(a, b, 'normal');
    expect(Math.abs(exact.p_value - normal.p_value)).toBeLessThan(0.002);
    expect(mannWhitneyU([...a, 1], b).method).toBe('normal');
  });

  it('gives p = 1 when every value is the same, and refuses empty or non-finite samples', () => {
    expect(mannWhitneyU([5, 5, 5], [5, 5])).toMatchObject({ p_value: 1, method: 'normal', ties: true });
    expect(() => mannWhitneyU([], [1])).toThrow('sample a is empty');
    expect(() => mannWhitneyU([1, Number.NaN], [1])).toThrow('sample a holds NaN');
  });
});
