import type { Clock } from '../core/clock.js';
import type { EarshotEvent } from '../results/events.js';
import type { InconclusiveCheck } from '../results/hearing.js';
import type { Failure, FailureKind } from '../results/types.js';
import type { NumberCheck, TextPattern } from '../scenario/check-types.js';
import type { EventName, MarkerKind } from '../scenario/events.js';
import type { EventView } from '../events/index.js';

/** The matcher's types, apart from its code so that its helpers (match-calls.ts) need not import the matcher. */

export interface ExpectedCallSpec {
  name?: string;
  args?: Record<string, unknown>;
}

/** The part of a scenario expectation the matcher reads. */
export interface ExpectationSpec {
  event: EventName;
  within_ms?: number;
  text_contains?: string;
  text_excludes?: string;
  eval?: string;
  calls?: ExpectedCallSpec[];
  absent?: boolean;
  marker?: MarkerKind;
  marker_first?: boolean;
  markers?: number;
  text_after?: boolean;
  /** earshot's deterministic checks (match-text.ts). */
  text_matches?: TextPattern;
  number?: NumberCheck;
}

export interface JudgeVerdict {
  verdict: 'yes' | 'no' | 'continue';
  reason: string;
}

/** What the matcher needs from the judge: the session keeps the conversation. */
export interface JudgePort {
  addAssistant(text: string): void;
  evaluate(criterion: string, signal?: AbortSignal): Promise<JudgeVerdict>;
  /** Judges one function call by its name and arguments, the conversation as context: yes or no. */
  evaluateCall(
    name: string,
    args: Record<string, unknown>,
    criterion: string,
    signal?: AbortSignal,
  ): Promise<JudgeVerdict>;
}

/** What the matcher remembers across a session's expectations. */
export interface MatcherState {
  /**
   * Clock time the most recent expectation matched, so an absence check can tell a new reply from the rest of a matched
   * one.
   */
  lastMatchAtMs: number;
}

export interface MatchContext {
  /** The bot's events (the session's queue, read side). */
  queue: EventView;
  clock: Clock;
  /** Session start on `clock`: events' `at_ms` count from here. */
  t0Ms: number;
  turnIndex: number;
  /** Clock time of the turn's send: every deadline of the turn counts from here. */
  anchorMs: number;
  defaultWithinMs: number;
  judge: JudgePort | null;
  /** Why there is no judge, when building it failed (shown in `no_judge` failures). */
  noJudgeReason?: string;
  /** Calls seen this turn but not claimed by an expectation yet (reset per turn). */
  pendingCalls: EarshotEvent[];
  /** Whether the bot is speaking now (its own reports); a judge's "no" then waits for the rest of the reply. */
  botSpeaking?: () => boolean;
  state?: MatcherState;
  trace: (line: string) => void;
  signal?: AbortSignal;
}

export type MatchOutcome =
  | { ok: true; atMs?: number; text?: string; judgeReason?: string; summary: string }
  | {
      ok: false;
      failure: Failure;
      inconclusive?: undefined;
      /** A timeout or a lost connection ends the turn; a failed check lets the next expectation run. */
      endsTurn: boolean;
      text?: string;
    }
  | {
      /**
       * The verdict rested on bot speech earshot could not hear reliably (match-hearing.ts): neither passed nor failed.
       */
      ok: false;
      inconclusive: InconclusiveCheck;
      failure?: undefined;
      endsTurn: false;
      atMs?: number;
      text?: string;
    };

export type Fail = (kind: FailureKind, reason: string, endsTurn?: boolean, text?: string) => MatchOutcome;
