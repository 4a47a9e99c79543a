import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeResults } from './merge.js';
import { ResultsWriter } from './writer.js';
import type { NemoOutcome } from './nemo.js';
import { summarize } from './summary.js';
import type { ScenarioResult } from './types.js';

const outcome = (over: Partial<NemoOutcome>): NemoOutcome => ({
  is_successful: true,
  is_task_successful: true,
  success_breakdown: { passed: [], failed: [], not_applicable: [], excluded: [] },
  signals: [],
  stop_reason: '[EXIT]',
  agent_turns: 5,
  below_min_agent_turns: false,
  min_agent_turns: 3,
  ...over,
});

let n = 0;
const run = (nemo: NemoOutcome | undefined, status: ScenarioResult['status']): ScenarioResult => ({
  name: `s${++n}`,
  file: `/x/s${n}.ts`,
  status,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1000,
  turns: [],
  failures: [],
  events: [],
  ...(nemo
    ? {
        simulation: {
          ended_by: 'bot_exit',
          end_detail: 'the bot called EndConversationTool',
          persona_turns: 3,
          duration_s: 10,
          transcript: [],
          success: { criterion: 'c', verdict: 'yes', reason: '' },
          metrics: [],
          passed: status === 'passed',
          simulator: 'sim',
          nemo,
        },
      }
    : {}),
});

describe('RunSummary.nemo', () => {
  it('rates the composite with short runs counted failed and N/A left out; per-signal rates skip short runs', () => {
    const summary = summarize([
      run(
        outcome({
          signals: [
            { signal: 'is_action_match', value: true, reason: '' },
            { signal: 'clean_exit', value: true, reason: '' },
          ],
        }),
        'passed',
      ),
      run(
        outcome({
          is_successful: false,
          is_task_successful: true,
          signals: [
            { signal: 'is_action_match', value: true, reason: '' },
            { signal: 'clean_exit', value: false, reason: '' },
          ],
        }),
        'failed',
      ),
      run(
        outcome({
          is_successful: 'N/A',
          is_task_successful: 'N/A',
          signals: [{ signal: 'judge_passed', value: null, reason: '' }],
        }),
        'inconclusive',
      ),
      run(
        outcome({
          is_successful: false,
          is_task_successful: false,
          below_min_agent_turns: true,
          agent_turns: 1,
          signals: [{ signal: 'clean_exit', value: true, reason: '' }],
        }),
        'failed',
      ),
      run(undefined, 'passed'),
    ]);
    expect(summary.nemo).toEqual({
      composite: { successful: 1, failed: 2, not_applicable: 1, short: 1, rate: 0.333 },
      task_success_rate: 0.667,
      signals: {
        is_action_match: { passed: 2, failed: 0, not_applicable: 0, rate: 1 },
        judge_passed: { passed: 0, failed: 0, not_applicable: 1, rate: null },
        clean_exit: { passed: 1, failed: 1, not_applicable: 0, rate: 0.5 },
      },
    });
    // The inconclusive N/A run is out of the overall pass rate too.
    expect(summary.pass_rate).toBe(0.5);
  });

  it('is absent when the run had no NeMo scenario', () => {
    expect(summarize([run(undefined, 'passed')]).nemo).toBeUndefined();
  });

  it('survives a merge of shards: the merged results give the same rates', () => {
    const shards = [
      [run(outcome({ signals: [{ signal: 'clean_exit', value: true, reason: '' }] }), 'passed')],
      [run(outcome({ is_successful: false, signals: [{ signal: 'clean_exit', value: false, reason: '' }] }), 'failed')],
    ];
    const dirs = shards.map((results) => {
      const dir = mkdtempSync(join(tmpdir(), 'earshot-nemo-merge-'));
      const w = new ResultsWriter(dir, { sync: false });
      for (const r of results) w.append(r);
      w.close();
      return dir;
    });
    const merged = summarize(mergeResults(dirs).results).nemo;
    expect(merged).toEqual(summarize(shards.flat()).nemo);
    expect(merged?.composite).toMatchObject({ successful: 1, failed: 1, rate: 0.5 });
  });
});
