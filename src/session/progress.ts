import type { ExpectationResult, Failure, TurnResult } from '../results/types.js';

/** Live progress of a session, for reporters that print turns and expectations as they resolve. */
export type SessionProgress =
  | { type: 'turn_start'; turn_index: number; input: TurnResult['input'] }
  | { type: 'expectation'; turn_index: number; expectation: ExpectationResult; failure?: Failure }
  | { type: 'turn_end'; turn: TurnResult; failures: Failure[] };
