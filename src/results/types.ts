import type { EarshotEvent } from './events.js';
import type { EventName } from '../scenario/events.js';
import type { ScenarioConditions } from '../scenario/condition-types.js';
import type { InconclusiveCheck } from './hearing-types.js';
import type { SimulationResult } from './simulation.js';
import type { GaiaResult } from './gaia.js';
import type { ScenarioSeverity } from '../scenario/types.js';
import type { PipecatTiming } from '../metrics/index.js';
import type { TurnMetrics } from './turn-metrics.js';

/**
 * Results are values, serialized as they are into results.jsonl, so field
 * names are snake_case like the scenario files and carry their units.
 */

/**
 * Stable machine keys: a CI dashboard may group by them. Add, never rename.
 * Pipecat's (`results.py`, `matcher.py`) first, then earshot's own.
 */
export const FAILURE_KINDS = [
  'timeout',
  /** A turn with `takeover: false` whose pause the bot took (or `takeover: true` it did not). */
  'takeover',
  /**
   * A turn with `yielded: false` whose bot stopped talking for the caller's backchannel (or `yielded: true` it talked
   * over).
   */
  'backchannel_yield',
  'judge_no',
  'judge_continue',
  'no_judge',
  'no_content',
  'text_mismatch',
  /** `text_excludes` found in the event's text (Pipecat's `text_present`). */
  'text_present',
  /** An `llm_marker` of another kind than `marker:` asks. */
  'marker_mismatch',
  /** The raw response breaks `marker_first`, `markers` or `text_after`. */
  'marker_format',
  'missing_function_call',
  /** A call arrived without the name a check needs: the bot reports calls at a level that hides names. */
  'function_call_unnamed',
  'function_args_mismatch',
  'unexpected_event',
  'send_after_timeout',
  'connect_failed',
  'handshake_timeout',
  /** The judge answered nothing usable (Pipecat: a simulation's goal left unanswered). */
  'judge_no_verdict',
  /**
   * Something the harness needs, not the bot, failed or cannot run (Pipecat's `error`): a Python `factory:`, an event
   * earshot cannot observe.
   */
  'error',
  'bot_disconnected',
  'protocol_error',
  'latency_exceeded',
  /** No number in the reply within `number:`'s tolerance of its value. */
  'number_mismatch',
  /** A turn's `user_wer` / `bot_wer` outside its `wer:` bounds, or not measurable. */
  'wer_exceeded',
  /** earshot itself threw (a bug or an interrupted step). */
  'harness_error',
  // Simulations (results/simulation.ts): scenario-level, turn_index null; `judge_no_verdict` above is theirs too.
  'cut_short',
  'goal_not_met',
  'out_of_range',
  'function_calls_mismatch',
  'scorecard_below_threshold',
  'signal_failed',
  // GAIA scenarios (results/gaia.ts): on a turn.
  'correctness_zero',
  // NeMo scenarios (results/nemo.ts).
  'too_few_agent_turns',
  'bot_state_error',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface Failure {
  kind: FailureKind;
  /** Index into the scenario's turns; null for scenario-level failures (connect, handshake). */
  turn_index: number | null;
  /** Index into the turn's expect list; null when the failure is not about one expectation. */
  expectation_index: number | null;
  /** The expected event name, when the failure is about an expectation. */
  event: EventName | null;
  reason: string;
}

/**
 * `inconclusive`: nothing failed, but a verdict rested on bot speech earshot
 * could not hear reliably (results/hearing.ts). Precedence: error > failed >
 * inconclusive > passed.
 */
export type ScenarioStatus = 'passed' | 'failed' | 'inconclusive' | 'skipped' | 'error';
export type TurnStatus = 'passed' | 'failed' | 'inconclusive' | 'not_run';
export type ExpectationStatus = 'passed' | 'failed' | 'inconclusive' | 'not_run';

export interface ExpectationResult {
  index: number;
  event: EventName;
  status: ExpectationStatus;
  /** ms from the turn's send to the event that satisfied it. */
  matched_after_ms?: number;
  /** Text the check ran on (aggregated segments for text events). */
  text?: string;
  /** Judge's stated reason, when `eval:` decided it. */
  judge_reason?: string;
  /** Why the verdict is `inconclusive`: what each reading of the bot's speech gave, and the segments in doubt. */
  inconclusive?: InconclusiveCheck;
}

/**
 * A failure as Pipecat's `EvalAssertionFailure` writes it: -1 for "no expectation", `error` for earshot's harness
 * errors.
 */
export interface PipecatFailure {
  turn_index: number;
  expectation_index: number;
  event_name: string;
  reason: string;
  kind: string;
}

/**
 * When the bot's reply to a turn happened, under Pipecat's names and
 * definitions (`EvalTurnTiming`): ms from the turn's input anchor. See
 * `src/metrics/pipecat-timing.ts` for where earshot measures more precisely.
 */
export type PipecatTurnTiming = PipecatTiming;

export interface TurnResult {
  index: number;
  status: TurnStatus;
  duration_ms: number;
  /** What the harness sent: the user text, the DTMF keys, or neither (observation-only). */
  input: { user?: string; dtmf?: string; audio?: string };
  expectations: ExpectationResult[];
  /**
   * When the turn started (its send, or its anchor for observation-only turns), ms since session
   * start on the session's clock. Places the turn on the report's timeline.
   */
  started_at_ms?: number;
  /** Per-turn latency metrics; filled by the metrics module when timing exists. */
  metrics?: TurnMetrics;
  /** Notes a reader should see (e.g. "bot audio capture capped at 300 s"). */
  notes?: string[];
  /** Pipecat's name for `index`. */
  turn_index?: number;
  /** The turn's failures as Pipecat writes them (`EvalScriptTurnResult.failures`). */
  failures?: PipecatFailure[];
  /** Pipecat's per-turn timing (`EvalScriptTurnResult.timing`); absent when the turn never sent. */
  timing?: PipecatTurnTiming;
}

export interface ScenarioResult {
  /** Scenario `name:` */
  name: string;
  /** Path of the scenario file as given. */
  file: string;
  status: ScenarioStatus;
  /** Wall-clock start, ISO 8601 (for humans); all durations come from the monotonic clock. */
  started_at: string;
  duration_ms: number;
  turns: TurnResult[];
  failures: Failure[];
  /** Set on `error`: what stopped the harness itself. */
  error?: string;
  /** Files written beside results.jsonl for this run, relative to the output dir. */
  artifacts?: {
    trace?: string;
    recording?: string;
    bot_log?: string;
    /** A GAIA scenario's `traces/<id>.json` (its scores, the transcript, the judge's raw answers). */
    gaia_trace?: string;
    /** A NeMo scenario's `<stem>.metrics.json` (NeMo's field names). */
    metrics?: string;
  };
  /**
   * Where the recording's first sample sits on the session clock (ms since session start);
   * 0 when absent. Lines the waveform and the audio playhead up with the events.
   */
  recording_started_at_ms?: number;
  /**
   * earshot extension: the channel conditions the caller's audio went through
   * (the scenario-wide ones, after --condition) and the seed of every random
   * choice: rerun with --seed to replay the same bytes.
   */
  conditions?: {
    seed: number;
    applied: ScenarioConditions;
    /**
     * SHA-256 of each degraded utterance's samples, by turn index (a backchannel's as `<turn>.backchannel`): the same
     * seed gives the same hashes.
     */
    audio_sha256?: Record<string, string>;
  };
  /** earshot extension: who spoke the caller and who heard the bot (audio runs). */
  speech?: SpeechProviders;
  /** Every event the session observed, in arrival order (for timelines). */
  events?: EarshotEvent[];
  /** Suite bookkeeping: which bot, which repeat. */
  run?: ScenarioRun;
  /** A simulation's conversation, end and scores (absent for scripted scenarios). */
  simulation?: SimulationResult;
  /** A GAIA scenario's per-turn scores on the seven dimensions (absent for every other scenario). */
  gaia?: GaiaResult;
  /** The scenario's `category:` (GAIA's free-text label), when it has one. */
  category?: string;
  /** The scenario's `severity:`, when it has one. */
  severity?: ScenarioSeverity;
  /** Pipecat's names (`EvalScriptResult`): the scenario's name and whether everything passed. */
  scenario_name?: string;
  passed?: boolean;
}

/** The speech providers a run used, as `provider:voice` and `provider:model`. */
export interface SpeechProviders {
  spoken_by?: string;
  transcribed_by?: string;
  /**
   * Providers whose weights are generated fixtures (`npm run models:fixtures`), not the model their name says,
   * keyed as above, with what the fixture does.
   */
  fixtures?: Record<string, string>;
}

/**
 * Which run of a scenario a result is. A result line is identified by
 * (file, name, bot, repeat_index) — see `resultKey` — so shards and merges agree.
 */
export interface ScenarioRun {
  /** The suite entry's label: its `name:`, else its `bot:` path as written. */
  bot?: string;
  /** The entry's `bot:` path as written, when its `name:` label differs from it. */
  bot_path?: string;
  /** 0-based index of the repeat (`--repeat N` runs 0..N-1); absent means 0. */
  repeat_index?: number;
  /** 1-based retry of the same (file, bot, repeat_index); the highest attempt wins in a merge. */
  attempt?: number;
  /** `I/N` when the run was one shard of a larger set. */
  shard?: string;
  url?: string;
  /** Fraction of repeats that must pass for the scenario to count as passed (simulations). */
  pass_threshold?: number;
}
