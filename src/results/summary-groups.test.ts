import { describe, expect, it } from 'vitest';
import { summarize } from './summary.js';
import { makeResult } from './fixtures.testutil.js';
import { gaiaResult, ragResult } from './gaia-fixtures.testutil.js';
import type { ScenarioResult } from './types.js';

/** A run mixing GAIA scenarios, a tagged scripted scenario and a simulation with a scorecard. */
function run(): ScenarioResult[] {
  const crossTurn = gaiaResult({
    id: 'cross_turn_file_recall',
    category: 'rag_quality',
    severity: 'high',
    turns: [{ scores: [10, null, 10, 10, null, 10, 10] }, { scores: [8, null, 9, 8, null, 10, 10] }],
  });
  const emptyFile = gaiaResult({
    id: 'empty_file',
    file: 'eval/scenarios/adversarial/empty_file.yaml',
    category: 'adversarial',
    severity: 'critical',
    turns: [{ scores: [10, 8, 10, 9, 7, 10, 10] }],
  });
  const smoke = { ...makeResult({ file: 'smoke.yaml', status: 'failed' }), category: 'smoke' };
  const sim = makeResult({ file: 'sim.yaml' });
  sim.simulation = {
    ended_by: 'end_call',
    end_detail: 'the caller hung up',
    persona_turns: 2,
    duration_s: 3,
    transcript: [],
    success: { criterion: 'booked', verdict: 'yes', reason: 'booked' },
    metrics: [],
    scorecard: {
      dimensions: [
        { dimension: 'correctness', weight: 0.25, score: 6, judge_score: 6, reason: 'close' },
        { dimension: 'tool_selection', weight: 0.2, score: null, judge_score: null, reason: 'no answer' },
      ],
      total: 6,
      pass_threshold: 7,
      passed: false,
    },
    passed: true,
    simulator: 'openai/m',
  };
  return [ragResult(), crossTurn, emptyFile, smoke, sim];
}

describe('summary groups', () => {
  it('gives pass rates and mean GAIA totals per category, most severe first per severity', () => {
    const s = summarize(run());
    expect(s.categories).toEqual({
      adversarial: { runs: 1, passed: 1, pass_rate: 1, mean_total: 9.15 },
      // (7.179 + 9.286) / 2: the failed run's total counts as much as the passed one's.
      rag_quality: { runs: 2, passed: 1, pass_rate: 0.5, mean_total: 8.232 },
      smoke: { runs: 1, passed: 0, pass_rate: 0, mean_total: null },
    });
    expect(s.severities).toEqual({
      critical: { runs: 2, passed: 1, pass_rate: 0.5 },
      high: { runs: 1, passed: 1, pass_rate: 1 },
    });
    expect(Object.keys(s.severities ?? {})).toEqual(['critical', 'high']);
  });

  it('averages each dimension over applicable GAIA turn scores and scorecards, leaving n/a and unscored out', () => {
    const s = summarize(run());
    expect(s.dimensions).toEqual({
      // 10, 0 (auto-zero), 10, 8, 10, and the scorecard's 6.
      correctness: { mean: 7.333, n: 6 },
      // Only the turn whose calls were visible; the scorecard's null is not a 0.
      tool_selection: { mean: 8, n: 1 },
      context_retention: { mean: 9.2, n: 5 },
      completeness: { mean: 8.4, n: 5 },
      efficiency: { mean: 7, n: 1 },
      personality: { mean: 9.8, n: 5 },
      error_recovery: { mean: 9.8, n: 5 },
    });
  });

  it('tags each scenario outcome with its category and severity', () => {
    const s = summarize(run());
    const by = Object.fromEntries(s.scenarios.map((o) => [o.name, o]));
    expect(by.simple_factual_rag).toMatchObject({ category: 'rag_quality', severity: 'critical', outcome: 'failed' });
    expect(by.smoke).toMatchObject({ category: 'smoke' });
    expect(by.smoke.severity).toBeUndefined();
  });

  it('counts a category over its latest attempts only, and leaves skipped runs out of the rate', () => {
    const retried = ragResult();
    retried.run = { attempt: 2 };
    retried.status = 'passed';
    const skipped = { ...ragResult({ id: 'later' }), status: 'skipped' as const };
    const s = summarize([ragResult(), retried, skipped]);
    expect(s.categories?.rag_quality).toMatchObject({ runs: 2, passed: 1, pass_rate: 1 });
  });

  it('leaves every group out of a summary whose results have none', () => {
    const s = summarize([makeResult({ file: 'a.yaml' })]);
    expect(Object.keys(s)).not.toContain('categories');
    expect(Object.keys(s)).not.toContain('dimensions');
    expect(Object.keys(s)).not.toContain('severities');
  });
});
