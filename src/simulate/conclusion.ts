import { failure } from '../results/failure.js';
import type { Failure, FailureKind, ScenarioResult, SimulationResult } from '../results/index.js';
import type { ConcludeInput } from './conclude-types.js';

/**
 * What every simulation verdict starts from (Pipecat's goal gate and NeMo's signals alike): the `simulation` block
 * as the call was played, the failures so far, and how a verdict is finished. A run that never completed says
 * nothing about the bot: `erroredEarly` finishes it as an error before any judge is asked.
 */
export interface Conclusion {
  block: SimulationResult;
  failures: Failure[];
  fail(kind: FailureKind, reason: string): void;
  finish(status: ScenarioResult['status'], error?: string): ScenarioResult;
  /** The error result when the run did not complete (an error, a connect or handshake failure), else null. */
  erroredEarly(): ScenarioResult | null;
}

export function startConclusion(input: ConcludeInput): Conclusion {
  const { simulation: sim, played, result, log } = input;
  const block: SimulationResult = {
    ended_by: played.endedBy,
    end_detail: played.endDetail,
    persona_turns: played.personaTurns,
    duration_s: played.durationS,
    transcript: played.transcript,
    ...(played.endCall ? { end_call: played.endCall } : {}),
    success: { criterion: sim.success, verdict: 'none', reason: '' },
    metrics: [],
    passed: false,
    simulator: played.simulator,
  };
  const failures: Failure[] = [...result.failures];
  const finish = (status: ScenarioResult['status'], error?: string): ScenarioResult => {
    log(`simulation: ${status.toUpperCase()} (ended by ${block.ended_by}; ${failures.length} failure(s))`);
    return { ...result, status, failures, ...(error !== undefined ? { error } : {}), simulation: block };
  };
  return {
    block,
    failures,
    fail: (kind, reason) => {
      failures.push(failure(kind, reason));
    },
    finish,
    erroredEarly: () => {
      const incomplete =
        result.status === 'error' ||
        played.endedBy === 'error' ||
        result.failures.some((f) => f.turn_index === null && f.kind !== 'protocol_error');
      if (!incomplete) return null;
      block.ended_by = 'error';
      block.success.reason = result.error ?? failures[0]?.reason ?? played.endDetail;
      log(`simulation: ended in error: ${block.success.reason}`);
      return finish('error', result.error ?? block.success.reason);
    },
  };
}
