import { StatsInputError } from './errors.js';
import { wilsonInterval, type ProportionInterval } from './wilson.js';

/**
 * How often a rater (an LLM judge) agrees with reference labels: the confusion
 * matrix (rows: the label, columns: what the rater said), the agreement rate
 * with its Wilson 95 % interval, and Cohen's kappa — agreement beyond what the
 * two marginal distributions would give by chance (1: perfect, 0: chance).
 *
 * Columns may hold outcomes that are no label (a rater that failed to answer):
 * they count against agreement and in kappa's observed term, never as a match.
 * Pure; the matrix lists every label and outcome given, zero counts included,
 * in the order given.
 */

export interface AgreementTable<L extends string, O extends string> {
  /** Row keys (the reference labels), in order. */
  labels: readonly L[];
  /** Column keys: the labels, then any other outcomes, in order. */
  outcomes: readonly (L | O)[];
  /** matrix[label][outcome]: pairs with that label that got that outcome. */
  matrix: Record<L, Record<L | O, number>>;
  total: number;
  agreed: number;
  /** agreed / total with its Wilson 95 % interval; null without pairs. */
  rate: ProportionInterval | null;
  /** Cohen's kappa; null without pairs or when chance agreement is already 1 (a single label used throughout). */
  kappa: number | null;
}

export function agreementTable<L extends string, O extends string = never>(
  pairs: ReadonlyArray<{ expected: L; got: L | O }>,
  labels: readonly L[],
  others: readonly O[] = [],
): AgreementTable<L, O> {
  const outcomes: (L | O)[] = [...labels, ...others.filter((o) => !(labels as readonly string[]).includes(o))];
  const matrix = Object.fromEntries(labels.map((l) => [l, Object.fromEntries(outcomes.map((o) => [o, 0]))])) as Record<
    L,
    Record<L | O, number>
  >;
  let agreed = 0;
  for (const { expected, got } of pairs) {
    const row = Object.hasOwn(matrix, expected) ? matrix[expected] : undefined;
    if (!row)
      throw new StatsInputError(
        'agreementTable',
        `label ${JSON.stringify(expected)} is not one of ${labels.join(', ')}`,
      );
    if (!Object.hasOwn(row, got))
      throw new StatsInputError(
        'agreementTable',
        `outcome ${JSON.stringify(got)} is not one of ${outcomes.join(', ')}`,
      );
    row[got] += 1;
    if ((got as string) === expected) agreed += 1;
  }
  const total = pairs.length;
  let chance = 0;
  for (const label of labels) {
    const rowTotal = outcomes.reduce((sum, o) => sum + matrix[label][o], 0);
    const columnTotal = labels.reduce((sum, l) => sum + matrix[l][label], 0);
    chance += total > 0 ? (rowTotal / total) * (columnTotal / total) : 0;
  }
  const observed = total > 0 ? agreed / total : 0;
  return {
    labels,
    outcomes,
    matrix,
    total,
    agreed,
    rate: total > 0 ? wilsonInterval(agreed, total) : null,
    kappa: total > 0 && chance < 1 ? (observed - chance) / (1 - chance) : null,
  };
}
