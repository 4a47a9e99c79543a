import type { EventName } from '../scenario/events.js';
import type { InconclusiveCheck } from './hearing-types.js';
import type { ExpectationResult, Failure, ScenarioResult, TurnResult, TurnStatus } from './types.js';

export * from './hearing-types.js';

/** An inconclusive expectation with where it sits (as `Failure` places a failure). */
export interface InconclusiveRecord extends InconclusiveCheck {
  turn_index: number;
  expectation_index: number;
  event: EventName;
}

/** A turn's status from its failures and its expectations' verdicts: failed > inconclusive > passed. */
export function turnStatusOf(failures: readonly Failure[], expectations: readonly ExpectationResult[]): TurnStatus {
  if (failures.length > 0) return 'failed';
  return expectations.some((e) => e.status === 'inconclusive') ? 'inconclusive' : 'passed';
}

/** Every inconclusive expectation of a result, in turn order. */
export function inconclusiveOf(result: Pick<ScenarioResult, 'turns'>): InconclusiveRecord[] {
  return result.turns.flatMap((t) =>
    t.expectations.flatMap((e) =>
      e.status === 'inconclusive' && e.inconclusive
        ? [{ turn_index: t.index, expectation_index: e.index, event: e.event, ...e.inconclusive }]
        : [],
    ),
  );
}

/** One line for reports: `inconclusive turn 2.1 response: transcribers_disagree: …`. */
export function inconclusiveLine(r: InconclusiveRecord): string {
  return (
    `inconclusive turn ${r.turn_index + 1}.${r.expectation_index + 1} ${r.event}: ` +
    `${r.kinds.join(', ')}: ${r.reason}`
  );
}

/**
 * The turn with each inconclusive segment's WAV path passed through `fn` (a merge moves them, a report links them); the
 * same turn when it has none.
 */
export function mapSnippets(turn: TurnResult, fn: (path: string) => string): TurnResult {
  if (!turn.expectations.some((e) => e.inconclusive?.segments.some((s) => s.snippet))) return turn;
  return {
    ...turn,
    expectations: turn.expectations.map((e) =>
      e.inconclusive
        ? {
            ...e,
            inconclusive: {
              ...e.inconclusive,
              segments: e.inconclusive.segments.map((s) => (s.snippet ? { ...s, snippet: fn(s.snippet) } : s)),
            },
          }
        : e,
    ),
  };
}
