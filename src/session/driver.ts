import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import type { EventView } from '../events/index.js';
import type { BotAudioBurst, DerivedTurnMetrics, TurnKind } from '../metrics/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { ExpectationResult, Failure, ScenarioResult, TurnResult } from '../results/types.js';
import type { Runnable } from '../scenario/index.js';
import type { SessionConfig } from './config.js';
import type { BotRequests } from './requests.js';

/**
 * THE DRIVER SEAM. A session is a runtime (`runtime.ts`: connect, handshake,
 * media, the event stream, the timeline, the trace, the result's turn records,
 * teardown) and a driver on top that decides what the user does and what
 * counts as success (`src/drivers/`: the script, the simulated caller).
 *
 * The runtime hands a driver a few facets: the session's time, the bot's
 * stream of events, the per-turn timeline, the trace, and turns. A turn is a
 * scope (`openTurn`): its one `send` drops output still queued from earlier
 * turns, sends the input (typed, spoken, keys), marks the turn's anchor and
 * tells the conversation's listeners (a judge) what the user said; the driver
 * records its expectations on it and ends it with its verdict. So a driver
 * cannot send out of order or forget a step.
 *
 * A driver reports the bot's faults as failures of its turns; a throw from
 * `run` is a harness error of the turn under way, and the runtime tears down
 * either way.
 */
export interface SessionDriver {
  /** The turns known before the call (a script's): the result lists them, `not_run` until played. */
  plannedTurns(): TurnInput[];
  /**
   * Before connecting, after the scenario was found runnable on the wire: builds what the driver needs (its judge),
   * writing to the session's trace. A throw makes the run an error.
   */
  prepare?(session: DriverSetup): Promise<void>;
  /**
   * Plays the conversation once the bot is ready and the media started. `signal` aborts when the run is interrupted.
   */
  run(runtime: DriverRuntime, signal: AbortSignal): Promise<void>;
  /**
   * After teardown, with the result as the runtime built it (every turn's
   * metrics harvested, every event in): a driver that scores the whole
   * conversation (a simulation's judge) returns it completed, its failures and
   * status included. Called whatever happened, connect failures too; a throw
   * makes the run an error.
   */
  conclude?(result: ScenarioResult, ctx: ConcludeContext): Promise<ScenarioResult>;
  /** After `conclude`: what the run's artifacts keep beside the result (redacted there), e.g. a judge's raw answers. */
  evidence?(): Record<string, unknown> | undefined;
}

/** What a driver's `prepare` sees: the scenario, the session's settings, the trace. */
export interface DriverSetup {
  readonly scenario: Runnable;
  readonly config: SessionConfig;
  log(line: string): void;
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

/** One user turn's input: typed or spoken `user` text, an `audio` recording, or keys; an image before it. */
export interface TurnSend {
  user?: string;
  audio?: string;
  dtmf?: string;
  /** Keys as tones in the caller's audio (`dtmf_mode: inband`) instead of RTVI `dtmf` messages. */
  inbandDtmf?: boolean;
  /** An image the bot may ask for during the turn (`eval-image`), sent before the input. */
  image?: string;
}

/** What went to the bot, and when. */
export interface SentInput {
  /**
   * Clock time (absolute, like `clock.now()`) the bot was given the input: the
   * send of text or keys, the due time of speech's first frame, the turn's
   * start when it sends nothing. Every deadline of the turn counts from here.
   */
  anchorMs: number;
  kind: TurnKind;
}

/** What the user said, for a listener that keeps the conversation (a judge). */
export type SaidInput = { kind: 'text'; text: string } | { kind: 'dtmf'; keys: string };

/** Told of the conversation as it happens; every method optional. */
export interface ConversationListener {
  /** The user's input of a turn went out (a recording without text says nothing here). */
  userSaid?(said: SaidInput): void;
  /** An event arrived from the bot, before any driver consumes it. */
  event?(event: EarshotEvent): void;
}

/** The session's time: every wait of a driver sleeps on these timers and ends early when the run is interrupted. */
export interface SessionTime {
  readonly clock: Clock;
  readonly timers: TimerDriver;
  /** Session start on `clock`: events' `at_ms` count from here. */
  readonly t0Ms: number;
  /** Sleeps until `atMs` (clock time); a deadline already past does not wait. */
  sleepUntil(atMs: number): Promise<void>;
}

/** The bot's output: its events (read, awaited, taken), whether it is speaking, and stale output dropped. */
export interface BotStream extends EventView {
  /**
   * Whether the bot is speaking now, by its own reports: from its TTS starting a reply or `bot_started_speaking`,
   * until `bot_stopped_speaking` or the end of the stream.
   */
  readonly speaking: boolean;
  /** Waits until the bot is not speaking, at most `maxWaitMs`; false when it still was. */
  waitQuiet(maxWaitMs: number): Promise<boolean>;
  /** Forgets bot output still queued and captured: it belongs to an earlier turn. `TurnScope.send` does it too. */
  dropPending(): void;
}

/** The per-turn timeline the runtime keeps (ms since session start), read by a driver's verdicts and probes. */
export interface TurnTimelines {
  /** How the turn's input went out (once sent). */
  kindOf(index: number): TurnKind | undefined;
  /** The turn's metrics as they stand now; null once it has settled or before it was sent. */
  snapshot(index: number): DerivedTurnMetrics | null;
  /** The turn's bot audio bursts so far. */
  bursts(index: number): readonly BotAudioBurst[];
}

/** One turn, opened by `DriverRuntime.openTurn`, ended once. */
export interface TurnScope {
  readonly index: number;
  /**
   * Sends the turn's input: the image, then (dropping output still queued from earlier turns, unless `dropStale`
   * is false) the words or keys; marks the turn's anchor and tells the listeners what was said. A turn that sends
   * nothing only observes: its anchor is now. Once per turn.
   */
  send(input: TurnSend, options?: { dropStale?: boolean }): Promise<SentInput>;
  /** A backchannel murmur over the bot's reply (spoken sessions); resolves with its first frame's due time. */
  murmur(text: string): Promise<number>;
  /** Adds an expectation's result to the turn and reports it (one `not_run` is only listed). */
  record(result: ExpectationResult, failure?: Failure): void;
  /**
   * Closes the turn (failed with failures, else inconclusive when an expectation was, else passed), adds its
   * failures to the run's and `metrics` (what the driver measured) to its record. Once per turn.
   */
  end(failures: Failure[], metrics?: TurnResult['metrics']): void;
}

/** What a driver may do with the session. Waits end early (rejecting) when the run is interrupted. */
export interface DriverRuntime {
  readonly scenario: Runnable;
  readonly config: SessionConfig;
  readonly time: SessionTime;
  readonly stream: BotStream;
  readonly timeline: TurnTimelines;
  /**
   * Requests to the bot that wait for its answer by request id (NeMo's control plane: `apply_initialization`,
   * `get_scenario_summary`, ...): `{ok: true, d}` or `{ok: false, reason, error}` (refused, no answer in time, closed,
   * the run ended, a malformed answer).
   */
  readonly control: BotRequests;
  log(line: string): void;
  /** Tells `listener` of the conversation from now on. */
  listen(listener: ConversationListener): void;
  /**
   * Opens a turn: a planned one by its index, or a new one (a driver deciding its turns as it goes). Tags the
   * trace, reports the turn, marks the media's turn boundary, harvests the metrics of turns that settled.
   */
  openTurn(turn: number | TurnInput): TurnScope;
}
