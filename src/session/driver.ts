import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import type { LatencyFailure, TurnKind } from '../metrics/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { ExpectationResult, Failure, ScenarioResult, TurnResult } from '../results/types.js';
import type { EventName } from '../scenario/events.js';
import type { LatencyAssertions, Runnable, Turn } from '../scenario/index.js';
import type { ExpectationSpec, MatchContext, MatchOutcome } from './matcher.js';
import type { TakeoverVerdict } from './takeover.js';
import type { BackchannelVerdict } from './backchannel.js';

/**
 * THE DRIVER SEAM. A session is a runtime (`runtime.ts`: judge and media,
 * connect, handshake, the event stream, timing, the trace, the result's turn
 * records, teardown) and a driver on top that decides what the user does and
 * what counts as success. The script driver (`script-driver.ts`) plays a
 * scenario's `turns:`; a driver that makes up each user turn from the bot's
 * replies (a simulated caller) plugs in the same way: it adds its turns as it
 * goes, sends each with `sendUser`, waits on `nextEvent` for the reply and its
 * end, reads what the bot said from the events, and records each turn.
 *
 * A driver reports the bot's faults as failures of its turns (`endTurn`); a
 * throw from `run` is a harness error of the turn under way, and the runtime
 * tears down either way.
 */
export interface SessionDriver {
  /** The turns known before the call (a script's): the result lists them, `not_run` until played. */
  plannedTurns(): TurnInput[];
  /** Plays the conversation once the bot is ready and the media started. `signal` aborts when the run is interrupted. */
  run(runtime: DriverRuntime, signal: AbortSignal): Promise<void>;
  /**
   * After teardown, with the result as the runtime built it (every turn's
   * metrics harvested, every event in): a driver that scores the whole
   * conversation (a simulation's judge) returns it completed, its failures and
   * status included. Called whatever happened, connect failures too; a throw
   * makes the run an error.
   */
  conclude?(result: ScenarioResult, ctx: ConcludeContext): Promise<ScenarioResult>;
}

export interface ConcludeContext {
  /** Trace lines after the session's own (a judge's verdicts). */
  log(line: string): void;
  /** Aborted when the run is interrupted. */
  signal: AbortSignal;
  /** Masks the session's secrets in text (the result is redacted again as a whole). */
  redact(text: string): string;
}

export type TurnInput = TurnResult['input'];

/** One user turn's words: `user` text (typed, or spoken when the user side is audio), or an `audio` recording played. */
export interface UserUtterance {
  user?: string;
  audio?: string;
  /** Keys played as in-band tones in the caller's audio (dtmf_mode: inband). */
  dtmf?: string;
}

/** What went to the bot, and when. */
export interface SentInput {
  /**
   * Clock time (absolute, like `clock.now()`) the bot was given the input: the
   * send of text or keys, the due time of speech's first frame. Every deadline
   * of the turn counts from here.
   */
  anchorMs: number;
  kind: TurnKind;
}

/** The turn's part of a match: which turn, its anchor, its default budget, the calls it has seen but not claimed. */
export type TurnMatch = Pick<MatchContext, 'turnIndex' | 'anchorMs' | 'defaultWithinMs' | 'pendingCalls'>;

/** What a driver may do with the session. Waits end early (rejecting) when the run is interrupted. */
export interface DriverRuntime {
  readonly scenario: Runnable;
  readonly clock: Clock;
  readonly timers: TimerDriver;
  /** Session start on `clock`: events' `at_ms` count from here. */
  readonly t0Ms: number;
  /** Every event observed so far, in arrival order (what the bot said, did and called). */
  readonly events: readonly EarshotEvent[];
  /** Why the bot's stream ended, once it has (no event can arrive any more); null while it is open. */
  readonly streamEnded: string | null;
  /** Whether the bot is speaking now, by its own reports: from its TTS starting a reply or `bot_started_speaking`, until `bot_stopped_speaking`. */
  readonly botSpeaking: boolean;

  log(line: string): void;

  /** Adds a turn that was not planned (a driver deciding its turns as it goes); returns its index. */
  addTurn(input: TurnInput): number;
  /** Opens a turn: tags the trace, reports it, marks the media's turn boundary, harvests the metrics of turns that settled. */
  startTurn(index: number): void;
  /** The turn's input is out: its timing window and its `started_at_ms` count from `sent.anchorMs`. */
  markSent(index: number, sent: SentInput): void;
  /** Adds an expectation's result to the turn and reports it (one `not_run` is only listed). */
  recordExpectation(turnIndex: number, result: ExpectationResult, failure?: Failure): void;
  /**
   * Closes the turn (failed with failures, else inconclusive when an expectation was, else passed),
   * adds its failures to the run's and `metrics` (the word error rates a driver measured) to its record.
   */
  endTurn(index: number, failures: Failure[], metrics?: TurnResult['metrics']): void;
  /** The turn's `latency:` verdict, after waiting (bounded) for the metrics it bounds. */
  checkLatency(
    index: number,
    assertions: LatencyAssertions | undefined,
  ): Promise<{ failures: LatencyFailure[]; waitedMs: number }>;
  /** A pause turn's `takeover` verdict and metrics (earshot extension; see takeover.ts). */
  checkTakeover?(index: number, expected: boolean | undefined): Promise<TakeoverVerdict>;
  /** Plays a turn's backchannel over the bot's answer and says whether the bot yielded (earshot extension; see backchannel.ts). */
  backchannel?(
    index: number,
    turn: Pick<Turn, 'backchannel' | 'yielded'>,
    sentAtMs: number,
  ): Promise<BackchannelVerdict>;

  /** Forgets bot output still queued: it belongs to an earlier turn. Call before a send, not after (the reply would go too). */
  dropPendingOutput(): void;
  sendImage(path: string): Promise<void>;
  sendDtmf(keys: string): SentInput;
  /** Types the utterance, or speaks it when the user side is audio; resolves once it is on its way. */
  sendUser(utterance: UserUtterance, turnIndex: number): Promise<SentInput>;

  /** Matches one expectation against the events (Pipecat's rules, see matcher.ts). */
  match(exp: ExpectationSpec, expIndex: number, turn: TurnMatch): Promise<MatchOutcome>;
  /**
   * Takes events until one satisfies `accept` (passed-over events go to
   * `onSkip`, else are dropped); rejects with DeadlineError at `deadlineMs`
   * (clock time) or QueueClosedError once the stream has ended.
   */
  nextEvent(
    accept: (e: EarshotEvent) => boolean,
    deadlineMs: number,
    onSkip?: (e: EarshotEvent) => void,
  ): Promise<EarshotEvent>;
  /** The latest arrival (session ms) of `name`, waiting until `deadlineMs` for a first one; rejects as `nextEvent`. */
  whenSeen(name: EventName, deadlineMs: number): Promise<number>;
  /** Sleeps until `atMs` (clock time) on the session's timers. */
  sleepUntil(atMs: number): Promise<void>;
  /** Waits until the bot is not speaking, at most `maxWaitMs`; false when it still was. */
  waitBotQuiet(maxWaitMs: number): Promise<boolean>;
}
