import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { summarize } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { gaiaResult, ragResult } from '../results/gaia-fixtures.testutil.js';
import { ListReporter } from './list.js';
import { startOf } from './format.js';
import { VirtualTerminal } from './terminal.testutil.js';

function setup(): { term: VirtualTerminal; list: ListReporter } {
  const term = new VirtualTerminal(false, 100);
  const list = new ListReporter({
    stdout: term,
    stderr: new VirtualTerminal(false),
    env: {},
    clock: new ManualClock(0),
    redactor: new Redactor({}),
  });
  return { term, list };
}

const LEGEND =
  '    C correctness · T tool selection · R context retention · Cm completeness · E efficiency · P personality · ' +
  'ER error recovery; scores 0–10, n/a: not applicable (the wire did not show function calls)';

describe('list reporter: GAIA scenarios', () => {
  it('tags the scenario line and prints the turn × dimension grid, totals, verdicts and auto-zero', () => {
    const { term, list } = setup();
    const r = ragResult();
    list.onScenarioStart(startOf(r));
    list.onScenarioEnd(r);
    expect(term.screen()).toEqual([
      '▶ simple_factual_rag [rag_quality · critical]',
      '✗ simple_factual_rag [rag_quality · critical] (6.0 s)',
      LEGEND,
      '    turn     C    T    R   Cm    E    P   ER  total',
      '    1       10  n/a    9    8  n/a   10   10  9.29 ≥ 7  passed',
      '    2        0  n/a    8    7  n/a    9    9  5.07 < 7  failed',
      '           auto-zero wrong_number (earshot): said 40%, expected 23% (74% off)',
      '    total 7.18 / 10, mean of 2 turns (pass at 7, every turn must pass): failed',
    ]);
  });

  it('shows a score where calls were visible and says why a turn failed its success criteria', () => {
    const { term, list } = setup();
    const r = gaiaResult({
      id: 'budget_threshold_check',
      severity: 'high',
      turns: [
        {
          scores: [9, 8, 10, 9, 7.5, 10, 10],
          success: { verdict: 'no', reason: 'it never named the CFO' },
        },
      ],
    });
    list.onScenarioEnd(r);
    expect(term.screen().slice(0, 1)).toEqual(['✗ budget_threshold_check [high] (6.0 s)']);
    expect(term.screen().slice(3)).toEqual([
      '    1        9    8   10    9  7.5   10   10  8.95 ≥ 7  failed',
      '           success criteria not met: it never named the CFO',
      '    total 8.95 / 10, mean of 1 turn (pass at 7, every turn must pass): failed',
    ]);
  });

  it('ends the run with averages per category and dimension and the pass rate per severity', () => {
    const { term, list } = setup();
    const passing = gaiaResult({
      id: 'empty_file',
      category: 'adversarial',
      severity: 'critical',
      turns: [{ scores: [10, 8, 10, 9, 7, 10, 10] }],
    });
    list.onEnd(summarize([ragResult(), passing, makeResult({ file: 'plain.yaml' })], { wall_ms: 1000 }));
    const screen = term.screen();
    expect(screen.slice(screen.indexOf('By category:'))).toEqual([
      'By category:',
      '  adversarial      1/1 passed  100%  mean total 9.15',
      '  rag_quality      0/1 passed    0%  mean total 7.18',
      'By dimension (mean score 0–10, n scores):',
      '  C 6.67 (n 3) · T 8.00 (n 1) · R 9.00 (n 3) · Cm 8.00 (n 3) · E 7.00 (n 1) · ' + 'P 9.67 (n 3) · ER 9.67 (n 3)',
      'Pass rate by severity:',
      '  critical 1/2 (50%)',
      '2 passed · 1 failed (3 runs in 1.0 s)',
    ]);
  });

  it('prints no grid, tag or groups for a scripted scenario without them', () => {
    const { term, list } = setup();
    const r = makeResult({ file: 'a.yaml' });
    list.onScenarioEnd(r);
    list.onEnd(summarize([r], { wall_ms: 1000 }));
    expect(term.screen()).toEqual(['✓ a (4.0 s)', '', '1 passed (1 run in 1.0 s)']);
  });
});
