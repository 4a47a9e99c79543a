import type { EventName } from '../scenario/events.js';
import type { Failure, FailureKind, ScenarioResult } from './types.js';

/** Where a failure happened, when it was about one turn, expectation or event; null (the run's) otherwise. */
export interface FailureSite {
  turn_index?: number | null;
  expectation_index?: number | null;
  event?: EventName | null;
}

/** A failure value: the run's as a whole unless `site` places it. */
export function failure(kind: FailureKind, reason: string, site: FailureSite = {}): Failure {
  return {
    kind,
    turn_index: site.turn_index ?? null,
    expectation_index: site.expectation_index ?? null,
    event: site.event ?? null,
    reason,
  };
}

/** What an error result keeps of the run it stands for (a started one keeps its turns and failures). */
export type ErrorResultBase = Omit<ScenarioResult, 'status' | 'error' | 'failures'> & { failures?: Failure[] };

/**
 * A run earshot could not start or finish (a simulation whose caller cannot be built, a harness fault, a conclusion
 * that threw): status `error`, the reason as its `error` and as a `harness_error` after the failures it had.
 */
export function errorResult(base: ErrorResultBase, reason: string): ScenarioResult {
  const { name, file, failures = [], ...rest } = base;
  return {
    name,
    file,
    status: 'error',
    ...rest,
    failures: [...failures, failure('harness_error', reason)],
    error: reason,
  };
}
