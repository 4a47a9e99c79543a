import { describe, expect, it } from 'vitest';
import { gaiaResult } from '../../results/gaia-fixtures.testutil.js';
import type { ScenarioResult } from '../../results/index.js';
import { compareRuns, DEFAULT_COMPARE_SETTINGS } from './compare.js';
import { resultsDir } from './compare.testutil.js';
import { renderCompareMarkdown } from './render.js';
import { compareRows, ruleText } from './rows.js';
import { loadRunSamples } from './samples.js';
import { compareScore } from './scores.js';

const settings = { ...DEFAULT_COMPARE_SETTINGS, resamples: 200 };

/** Runs of a one-turn GAIA scenario (calls not visible) whose correctness is each value given. */
function runs(correctness: readonly number[]): ScenarioResult[] {
  return correctness.map((c, i) =>
    gaiaResult({ repeat_index: i, category: 'rag_quality', turns: [{ scores: [c, null, 9, 8, null, 10, 10] }] }),
  );
}

function compare(base: readonly number[], next: readonly number[]) {
  return compareRuns(loadRunSamples(resultsDir(runs(base))), loadRunSamples(resultsDir(runs(next))), settings);
}

describe('compare: GAIA dimension scores', () => {
  it('flags a dimension whose scores dropped, in the rows every output shows', () => {
    const report = compare([10, 9, 10, 9, 10, 9], [5, 6, 5, 6, 5, 6]);
    expect(report.ok).toBe(false);
    const rows = compareRows(report).filter((r) => r.what.startsWith('gaia.'));
    expect(rows.map((r) => [r.what, r.base, r.new, r.verdict])).toEqual([
      ['gaia.correctness', '9.50 (n 6)', '5.50 (n 6)', 'regressed'],
      ['gaia.context_retention', '9.00 (n 6)', '9.00 (n 6)', 'unchanged'],
      ['gaia.completeness', '8.00 (n 6)', '8.00 (n 6)', 'unchanged'],
      ['gaia.personality', '10.00 (n 6)', '10.00 (n 6)', 'unchanged'],
      ['gaia.error_recovery', '10.00 (n 6)', '10.00 (n 6)', 'unchanged'],
      // (c·25 + 400) / 70: the total moves by 4 × 25/70 points.
      ['gaia.total', '9.11 (n 6)', '7.68 (n 6)', 'regressed'],
    ]);
    expect(rows[0].change).toMatch(/^−4\.00 pts \[−\d\.\d\d, −\d\.\d\d\]$/);
    expect(rows[0].p).toMatch(/^0\.00\d\d \(/);
    expect(report.scenarios[0].turns[0].scores.map((s) => s.score)).not.toContain('tool_selection');
    const markdown = renderCompareMarkdown(report);
    expect(markdown).toContain('`gaia.correctness` | 9.50 (n 6) | 5.50 (n 6) | −4.00 pts');
    expect(ruleText(report)).toContain(
      'a GAIA score regression, a Mann–Whitney p < 0.05 and a mean drop beyond 1 point(s)',
    );
  });

  it('does not call a drop of one point or less a regression, however steady', () => {
    const report = compare([10, 9, 10, 9, 10, 9], [9, 8, 9, 8, 9, 8]);
    const correctness = report.scenarios[0].turns[0].scores.find((s) => s.score === 'correctness');
    expect(correctness).toMatchObject({ shift: -1, verdict: 'unchanged' });
    expect(report.ok).toBe(true);
  });

  it('says too few when one side has too few runs for any shift to be significant', () => {
    expect(compareScore('correctness', [10, 10, 10], [0, 0, 0], settings).verdict).toBe('too_few');
    expect(compareScore('correctness', [], [5], settings)).toMatchObject({ verdict: 'too_few', shift: null });
  });
});
