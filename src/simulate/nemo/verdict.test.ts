import { describe, expect, it } from 'vitest';
import type { NemoSignalValue } from '../../results/nemo.js';
import { SuccessSignal, type SuccessSignal as Signal } from '../../scenario/nemo/types.js';
import { nemoVerdict } from './verdict.js';

const sig = (signal: Signal, value: boolean | null, pass_rate?: number): NemoSignalValue => ({
  signal,
  value,
  reason: 'r',
  ...(pass_rate !== undefined ? { pass_rate } : {}),
});
const { ACTION_MATCH, DB_STATE_MATCH, DB_STATE_ASSERTION, JUDGE_PASSED, CLEAN_EXIT, NL_ASSERTION } = SuccessSignal;
const verdict = (whitelist: Signal[], signals: NemoSignalValue[], over: { agentTurns?: number; min?: number } = {}) =>
  nemoVerdict({
    nemo: { success_signals: whitelist },
    signals,
    agentTurns: over.agentTurns ?? 5,
    minAgentTurns: over.min ?? 3,
  });

describe('nemoVerdict', () => {
  it('is a strict AND over the whitelisted signals', () => {
    const all = [sig(ACTION_MATCH, true), sig(DB_STATE_MATCH, true), sig(CLEAN_EXIT, true)];
    expect(verdict([ACTION_MATCH, DB_STATE_MATCH, CLEAN_EXIT], all).is_successful).toBe(true);
    const one = [sig(ACTION_MATCH, true), sig(DB_STATE_MATCH, false), sig(CLEAN_EXIT, true)];
    const v = verdict([ACTION_MATCH, DB_STATE_MATCH, CLEAN_EXIT], one);
    expect(v.is_successful).toBe(false);
    expect(v.success_breakdown).toEqual({
      passed: [ACTION_MATCH, CLEAN_EXIT],
      failed: [DB_STATE_MATCH],
      not_applicable: [],
      excluded: [],
    });
  });

  it("skips null signals, and is 'N/A' when no whitelisted signal has a value", () => {
    const v = verdict([JUDGE_PASSED, CLEAN_EXIT], [sig(JUDGE_PASSED, null), sig(CLEAN_EXIT, true)]);
    expect(v.is_successful).toBe(true);
    expect(v.success_breakdown.not_applicable).toEqual([JUDGE_PASSED]);
    const na = verdict([JUDGE_PASSED], [sig(JUDGE_PASSED, null), sig(CLEAN_EXIT, false)]);
    expect(na.is_successful).toBe('N/A');
    expect(na.is_task_successful).toBe('N/A');
  });

  it('fails on a pass-rate signal below 1.0 (binarized)', () => {
    const v = verdict([DB_STATE_ASSERTION], [sig(DB_STATE_ASSERTION, false, 0.99)]);
    expect(v.is_successful).toBe(false);
  });

  it('keeps signals outside the whitelist under excluded, never deciding', () => {
    const v = verdict([DB_STATE_MATCH], [sig(DB_STATE_MATCH, true), sig(ACTION_MATCH, false), sig(CLEAN_EXIT, false)]);
    expect(v.is_successful).toBe(true);
    expect(v.success_breakdown.excluded).toEqual([ACTION_MATCH, CLEAN_EXIT]);
  });

  it('gives is_task_successful without clean_exit', () => {
    const v = verdict([ACTION_MATCH, CLEAN_EXIT], [sig(ACTION_MATCH, true), sig(CLEAN_EXIT, false)]);
    expect(v.is_successful).toBe(false);
    expect(v.is_task_successful).toBe(true);
    expect(verdict([CLEAN_EXIT], [sig(CLEAN_EXIT, true)]).is_task_successful).toBe('N/A');
  });

  it("lets the scenario's computeIsSuccessful override decide", () => {
    const seen: unknown[] = [];
    const v = nemoVerdict({
      nemo: {
        success_signals: [DB_STATE_MATCH, NL_ASSERTION],
        compute: (signals) => {
          seen.push(signals);
          return signals.db_state_match === true || signals.nl_assertion === true;
        },
      },
      signals: [sig(DB_STATE_MATCH, false), sig(NL_ASSERTION, true), sig(CLEAN_EXIT, true)],
      agentTurns: 4,
      minAgentTurns: 3,
    });
    expect(v.is_successful).toBe(true);
    expect(seen[0]).toEqual({ db_state_match: false, nl_assertion: true, clean_exit: true });
    // is_task_successful asks it again without clean_exit.
    expect(seen[1]).toEqual({ db_state_match: false, nl_assertion: true });
  });

  it('fails a run below --min-agent-turns whatever its signals say; 0 turns the filter off', () => {
    const v = verdict([CLEAN_EXIT], [sig(CLEAN_EXIT, true)], { agentTurns: 2, min: 3 });
    expect(v).toMatchObject({ is_successful: false, is_task_successful: false, below_min_agent_turns: true });
    expect(verdict([CLEAN_EXIT], [sig(CLEAN_EXIT, true)], { agentTurns: 3, min: 3 }).is_successful).toBe(true);
    expect(verdict([CLEAN_EXIT], [sig(CLEAN_EXIT, true)], { agentTurns: 0, min: 0 }).is_successful).toBe(true);
  });
});
