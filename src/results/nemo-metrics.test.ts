import { describe, expect, it } from 'vitest';
import { nemoMetrics } from './nemo-metrics.js';
import type { ScenarioResult } from './types.js';

const base: ScenarioResult = {
  name: 'restaurant__pizza_pepperoni',
  file: '/x/restaurant.ts',
  status: 'failed',
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1000,
  turns: [],
  failures: [],
  events: [],
};

describe("nemoMetrics (metrics.json under NeMo's field names)", () => {
  it('writes each signal under its metric key, the pass rates, and the summary fields', () => {
    const m = nemoMetrics({
      ...base,
      simulation: {
        ended_by: 'bot_exit',
        end_detail: 'the bot called EndConversationTool',
        persona_turns: 4,
        duration_s: 20,
        transcript: [],
        success: { criterion: 'c', verdict: 'no', reason: '' },
        metrics: [],
        passed: false,
        simulator: 'sim',
        nemo: {
          is_successful: false,
          is_task_successful: false,
          success_breakdown: {
            passed: ['clean_exit'],
            failed: ['db_state_assertion'],
            not_applicable: [],
            excluded: [],
          },
          signals: [
            { signal: 'db_state_assertion', value: false, reason: '1/2 assertion(s) hold', pass_rate: 0.5 },
            { signal: 'clean_exit', value: true, reason: 'the bot called EndConversationTool' },
          ],
          stop_reason: '[EXIT]',
          agent_turns: 5,
          below_min_agent_turns: false,
          min_agent_turns: 3,
          db_hash: 'abc',
          actions: [{ name: 'PlaceOrderTool' }],
        },
      },
    });
    expect(m).toMatchObject({
      scenario_name: 'restaurant__pizza_pepperoni',
      is_successful: false,
      is_task_successful: false,
      db_state_assertion: false,
      db_state_assertion_pass_rate: 0.5,
      clean_exit: true,
      stop_reason: '[EXIT]',
      agent_turns: 5,
      db_hash: 'abc',
      actions: [{ name: 'PlaceOrderTool' }],
      reasons: { clean_exit: 'the bot called EndConversationTool' },
      status: 'failed',
    });
  });

  it('is null for a run without a NeMo block', () => {
    expect(nemoMetrics(base)).toBeNull();
  });
});
