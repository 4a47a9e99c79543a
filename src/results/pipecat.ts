import type { Failure, PipecatFailure, ScenarioResult } from './types.js';

/**
 * Pipecat's field names beside earshot's on a result line, so a tool written
 * for Pipecat's `EvalScriptResult` reads earshot's results: `scenario_name`,
 * `passed`, and per turn `turn_index`, its `failures` in Pipecat's shape and
 * (set by the session) `timing`. Nothing of earshot's is renamed or removed.
 */

/**
 * A failure as Pipecat writes it: -1 where earshot has no index, '' for no event, `error` for earshot's harness errors.
 */
export function pipecatFailure(f: Failure): PipecatFailure {
  return {
    turn_index: f.turn_index ?? -1,
    expectation_index: f.expectation_index ?? -1,
    event_name: f.event ?? '',
    reason: f.reason,
    kind: f.kind === 'harness_error' ? 'error' : f.kind,
  };
}

/** The result with Pipecat's names added (a copy; the turns' own fields are kept). */
export function withPipecatFields(result: ScenarioResult): ScenarioResult {
  return {
    ...result,
    scenario_name: result.name,
    passed: result.status === 'passed',
    turns: result.turns.map((turn) => ({
      ...turn,
      turn_index: turn.index,
      failures: result.failures.filter((f) => f.turn_index === turn.index).map(pipecatFailure),
    })),
  };
}
