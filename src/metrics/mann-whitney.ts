import { StatsInputError } from './errors.js';
import { normalSurvival } from './normal.js';

/**
 * The Mann–Whitney U test (Wilcoxon rank-sum) of two independent samples:
 * whether values of one tend to be larger than values of the other, without
 * assuming any distribution — latencies are skewed and heavy-tailed, so a
 * t-test's normality would be a fiction.
 *
 * `u` is a's statistic: the pairs (aᵢ, bⱼ) with aᵢ > bⱼ, plus half the tied
 * pairs (so u_a + u_b = n_a · n_b). The p-value is two-sided,
 * p = min(1, 2 · P(U ≤ min(u, n_a·n_b − u))) under the null hypothesis that
 * both samples come from one distribution.
 *
 * - `exact` (chosen when there are no ties and n_a · n_b ≤ EXACT_MAX_PAIRS):
 *   the permutation distribution of U, from the recurrence
 *   P_{m,n}(u) = m/(m+n) · P_{m−1,n}(u − n) + n/(m+n) · P_{m,n−1}(u)
 *   (the largest value comes from a or from b), summed only up to the needed u.
 *   Every step is a convex combination of probabilities, so it stays accurate
 *   where counts would overflow.
 * - `normal`: z = (|u − n_a·n_b/2| − 0.5) / σ, with the continuity correction and
 *   σ² = n_a·n_b/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1))) corrected for ties
 *   (t: the size of each group of equal values, N = n_a + n_b). All values
 *   tied gives σ = 0 and p = 1.
 *
 * Both are what SciPy's `mannwhitneyu(a, b, alternative='two-sided')` computes
 * with `method='exact'` / `method='asymptotic'` (use_continuity=True). Pure and
 * deterministic; inputs must be finite numbers, at least one in each sample.
 */

export type MannWhitneyMethod = 'exact' | 'normal';

export interface MannWhitneyResult {
  /** a's U statistic. */
  u: number;
  n_a: number;
  n_b: number;
  /** Two-sided. */
  p_value: number;
  method: MannWhitneyMethod;
  /** Whether any value occurs more than once across both samples. */
  ties: boolean;
  /** The normal approximation's z (continuity-corrected); absent for the exact method. */
  z?: number;
}

/** Above this many pairs the normal approximation is used (it is then accurate to well under 0.001). */
export const EXACT_MAX_PAIRS = 2500;

export function mannWhitneyU(
  a: readonly number[],
  b: readonly number[],
  method: MannWhitneyMethod | 'auto' = 'auto',
): MannWhitneyResult {
  check(a, 'a');
  check(b, 'b');
  const m = a.length;
  const n = b.length;
  const { rankSumA, tieTerm } = ranks(a, b);
  const u = rankSumA - (m * (m + 1)) / 2;
  const ties = tieTerm > 0;
  const chosen: MannWhitneyMethod =
    method === 'auto' ? (!ties && m * n <= EXACT_MAX_PAIRS ? 'exact' : 'normal') : method;
  if (chosen === 'exact') {
    if (ties)
      throw new StatsInputError(
        'mannWhitneyU',
        'the exact method needs samples without ties (use the normal approximation)',
      );
    const k = Math.floor(Math.min(u, m * n - u));
    return { u, n_a: m, n_b: n, p_value: Math.min(1, 2 * exactCdf(m, n, k)), method: 'exact', ties };
  }
  const N = m + n;
  const variance = ((m * n) / 12) * (N + 1 - tieTerm / (N * (N - 1)));
  if (!(variance > 0)) return { u, n_a: m, n_b: n, p_value: 1, method: 'normal', ties, z: 0 };
  const z = (Math.abs(u - (m * n) / 2) - 0.5) / Math.sqrt(variance);
  return { u, n_a: m, n_b: n, p_value: Math.min(1, 2 * normalSurvival(z)), method: 'normal', ties, z };
}

/**
 * The smallest two-sided p-value samples of these sizes can give (all of one
 * sample above all of the other): 2 / C(m + n, m), capped at 1. When it is not
 * below the significance level, no difference however large can be shown.
 */
export function minimumPValue(m: number, n: number): number {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 1 || n < 1) {
    throw new StatsInputError('minimumPValue', `sample sizes must be whole numbers ≥ 1, got ${m} and ${n}`);
  }
  // 1 / C(m+n, m) as a product of ratios, so it never overflows.
  let p = 1;
  for (let i = 1; i <= Math.min(m, n); i++) p *= i / (Math.max(m, n) + i);
  return Math.min(1, 2 * p);
}

/** P(U ≤ k) for sample sizes m and n without ties. */
function exactCdf(m: number, n: number, k: number): number {
  if (k < 0) return 0;
  // prev[j]: P_{i−1,j}(0..len−1); cur[j]: P_{i,j}. Arrays stop at u = k: nothing above is needed.
  let prev: Float64Array[] = [];
  for (let i = 0; i <= m; i++) {
    const cur: Float64Array[] = [];
    for (let j = 0; j <= n; j++) {
      const len = Math.min(i * j, k) + 1;
      const p = new Float64Array(len);
      if (i === 0 || j === 0) p[0] = 1;
      else {
        const fromA = prev[j];
        const fromB = cur[j - 1];
        const wa = i / (i + j);
        const wb = j / (i + j);
        for (let v = 0; v < len; v++) {
          const x = v - j >= 0 && v - j < fromA.length ? fromA[v - j] : 0;
          const y = v < fromB.length ? fromB[v] : 0;
          p[v] = wa * x + wb * y;
        }
      }
      cur.push(p);
    }
    prev = cur;
  }
  let total = 0;
  for (const v of prev[n]) total += v;
  return Math.min(1, total);
}

/** The sum of a's ranks (mid-ranks for ties) in the pooled sample, and Σ(t³ − t) over tie groups. */
function ranks(a: readonly number[], b: readonly number[]): { rankSumA: number; tieTerm: number } {
  const pooled = [...a.map((value) => ({ value, fromA: true })), ...b.map((value) => ({ value, fromA: false }))];
  pooled.sort((x, y) => x.value - y.value);
  let rankSumA = 0;
  let tieTerm = 0;
  for (let start = 0; start < pooled.length; ) {
    let end = start + 1;
    while (end < pooled.length && pooled[end].value === pooled[start].value) end++;
    const t = end - start;
    const midRank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) if (pooled[i].fromA) rankSumA += midRank;
    if (t > 1) tieTerm += t * t * t - t;
    start = end;
  }
  return { rankSumA, tieTerm };
}

function check(values: readonly number[], name: string): void {
  if (values.length === 0) throw new StatsInputError('mannWhitneyU', `sample ${name} is empty`);
  for (const v of values)
    if (!Number.isFinite(v))
      throw new StatsInputError('mannWhitneyU', `sample ${name} holds ${v}, not a finite number`);
}
