import { describe, expect, it } from 'vitest';
import { pipecatFailure, withPipecatFields } from './pipecat.js';
import type { ScenarioResult } from './types.js';

describe("Pipecat's field names on a result line", () => {
  it('adds scenario_name, passed and per turn turn_index and its failures in Pipecat shape, keeping earshot fields', () => {
    const result: ScenarioResult = {
      name: 'weather/sunny',
      file: 'w.yaml',
      status: 'failed',
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 10,
      turns: [
        { index: 0, status: 'passed', duration_ms: 1, input: {}, expectations: [] },
        { index: 1, status: 'failed', duration_ms: 1, input: { user: 'hi' }, expectations: [] },
      ],
      failures: [
        { kind: 'judge_no', turn_index: 1, expectation_index: 0, event: 'llm_response', reason: 'judge said no' },
        {
          kind: 'send_after_timeout',
          turn_index: 1,
          expectation_index: null,
          event: 'llm_started',
          reason: 'never fired',
        },
      ],
    };
    const out = withPipecatFields(result);
    expect(out).toMatchObject({
      name: 'weather/sunny',
      scenario_name: 'weather/sunny',
      passed: false,
      status: 'failed',
      failures: result.failures,
    });
    expect(out.turns[0]).toMatchObject({ index: 0, turn_index: 0, failures: [] });
    expect(out.turns[1].failures).toEqual([
      { turn_index: 1, expectation_index: 0, event_name: 'llm_response', reason: 'judge said no', kind: 'judge_no' },
      {
        turn_index: 1,
        expectation_index: -1,
        event_name: 'llm_started',
        reason: 'never fired',
        kind: 'send_after_timeout',
      },
    ]);
    expect(withPipecatFields({ ...result, status: 'passed', failures: [] }).passed).toBe(true);
  });

  it("earshot's harness_error is Pipecat's error; no turn or event is -1 and ''", () => {
    expect(
      pipecatFailure({ kind: 'harness_error', turn_index: null, expectation_index: null, event: null, reason: 'boom' }),
    ).toEqual({
      turn_index: -1,
      expectation_index: -1,
      event_name: '',
      reason: 'boom',
      kind: 'error',
    });
  });
});
