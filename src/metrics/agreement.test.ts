import { describe, expect, it } from 'vitest';
import { agreementTable } from './agreement.js';
import { StatsInputError } from './errors.js';

type V = 'yes' | 'no' | 'continue';
const LABELS: readonly V[] = ['yes', 'no', 'continue'];
const pair = (expected: V, got: V | 'error'): { expected: V; got: V | 'error' } => ({ expected, got });

describe('agreementTable', () => {
  it('counts the confusion matrix, agreement and its interval, every cell listed', () => {
    const t = agreementTable(
      [
        pair('yes', 'yes'),
        pair('yes', 'no'),
        pair('no', 'no'),
        pair('continue', 'continue'),
        pair('continue', 'error'),
      ],
      LABELS,
      ['error'] as const,
    );
    expect(t.outcomes).toEqual(['yes', 'no', 'continue', 'error']);
    expect(t.matrix).toEqual({
      yes: { yes: 1, no: 1, continue: 0, error: 0 },
      no: { yes: 0, no: 1, continue: 0, error: 0 },
      continue: { yes: 0, no: 0, continue: 1, error: 1 },
    });
    expect(t).toMatchObject({ total: 5, agreed: 3 });
    expect(t.rate!.rate).toBe(0.6);
    expect(t.rate!.low).toBeCloseTo(0.2307, 4);
  });

  it('gives Cohen’s kappa: worked example (Cohen 1960 style, two labels)', () => {
    // 50 items: both yes 20, rater no where label yes 5, rater yes where label no 10, both no 15.
    // p_o = 35/50 = 0.7; p_e = (25/50)(30/50) + (25/50)(20/50) = 0.5; kappa = 0.2/0.5 = 0.4.
    const pairs = [
      ...Array.from({ length: 20 }, () => pair('yes', 'yes')),
      ...Array.from({ length: 5 }, () => pair('yes', 'no')),
      ...Array.from({ length: 10 }, () => pair('no', 'yes')),
      ...Array.from({ length: 15 }, () => pair('no', 'no')),
    ];
    expect(agreementTable(pairs, ['yes', 'no'] as const).kappa).toBeCloseTo(0.4, 12);
  });

  it('kappa is 1 for perfect agreement over several labels, 0 for a rater that always says one thing, null when undefined', () => {
    expect(agreementTable([pair('yes', 'yes'), pair('no', 'no'), pair('continue', 'continue')], LABELS).kappa).toBe(1);
    expect(agreementTable([pair('yes', 'yes'), pair('no', 'yes'), pair('continue', 'yes')], LABELS).kappa).toBeCloseTo(
      0,
      12,
    );
    expect(agreementTable([pair('yes', 'yes')], LABELS).kappa).toBeNull();
    expect(agreementTable([], LABELS)).toMatchObject({ total: 0, rate: null, kappa: null });
  });

  it('refuses a label or an outcome it was not told about', () => {
    expect(() => agreementTable([{ expected: 'maybe' as V, got: 'yes' }], LABELS)).toThrow(StatsInputError);
    expect(() => agreementTable([{ expected: 'yes', got: 'error' as V }], LABELS)).toThrow(
      'outcome "error" is not one of yes, no, continue',
    );
  });
});
