import type { DocumentsVia } from './documents.js';
import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';
import type { TimerDriver } from '../core/timers.js';
import type { CodecName } from '../protocol/index.js';
import type { ScenarioResult } from '../results/types.js';
import type { LlmConfig } from '../scenario/index.js';
import type { MediaFactory } from './media.js';
import type { SessionProgress } from './progress.js';
import type { BotEnables, HandshakeMode } from './wire-check.js';

/**
 * What every session of a run shares, as a caller writes it (a runner's
 * `session:`): each field optional, resolved once into `SessionSettings`
 * (config.ts), where the defaults live.
 */
export interface SessionSettingsOptions {
  codec?: CodecName;
  connectTimeoutMs?: number;
  /** bot-ready must arrive within this (default 10 s, Pipecat's hard gate). */
  handshakeTimeoutMs?: number;
  /** An event-anchored `send_after` waits at most this long for its event (default 30 s, as Pipecat). */
  sendAfterMaxWaitMs?: number;
  /**
   * A turn waits at most this long for the bot to finish speaking before it sends (default 30 s, Pipecat's
   * `BOT_QUIET_MAX_WAIT_S`).
   */
  botQuietMaxWaitMs?: number;
  /** `none`: the bot has no RTVI (audio frames only); the session starts on connect (default `rtvi`). */
  handshake?: HandshakeMode;
  /** What the bot enables itself where the wire cannot ask (report level, raw VAD events): see wire-check.ts. */
  botEnables?: BotEnables;
  /**
   * Sample rate the bot's pipeline takes; the caller's audio is resampled to it (default 16000: Pipecat does not
   * resample).
   */
  botInputRate?: number;
  /**
   * Pauses in the bot's speech up to this long still count as it playing while its speaking window is open (default
   * 1000).
   */
  bargeInGapMs?: number;
  /** Fire the bot's `on_client_disconnected` handler when the scenario ends (`--trigger-disconnect`). */
  triggerDisconnect?: boolean;
  /** How a GAIA scenario's documents reach the bot (`--documents-via`); default `message` wherever RTVI is. */
  documentsVia?: DocumentsVia;
  /** How long the bot gets to acknowledge documents sent by message (default 30 000). */
  documentsAckTimeoutMs?: number;
  judgeCacheDir?: string;
  noJudgeCache?: boolean;
  /**
   * `--judge`: the judge for this run in place of the file's `judge.eval`
   * service, model, factory and explainer: `openai:MODEL[@URL]` or
   * `ollama:MODEL[@URL]`, e.g. `openai:gpt-4o-mini@http://127.0.0.1:8000/v1`
   * (or that block already parsed).
   */
  judgeOverride?: string | LlmConfig;
  /**
   * `--simulator`: the LLM that plays the caller of every simulation in place
   * of its `simulator:` block, in `--judge`'s syntax (`openai:MODEL[@URL]`,
   * `ollama:MODEL[@URL]`). Scripted scenarios ignore it.
   */
  simulatorOverride?: string | LlmConfig;
  /** Builds the audio side for audio-modality scenarios (see media.ts). */
  media?: MediaFactory;
  /** Longest wait, after a turn's expectations, for the metrics its `latency:` block bounds (default 5 s). */
  latencyWaitMs?: number;
  maxPayloadBytes?: number;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** What the session's waits sleep on (default plain timers on `clock`); tests pass a `ManualTimerDriver`. */
  timers?: TimerDriver;
  /** Load the scenario's `factory:` code hooks (`--allow-code`); without it such a scenario is an error. */
  allowCode?: boolean;
  /** NeMo scenarios: fewer bot turns than this fail the composite verdict (`--min-agent-turns`, default 3; 0 off). */
  minAgentTurns?: number;
  /** `--duration`: seconds capping every simulation's `max_duration_s` (NeMo's `max_duration`). */
  durationCapS?: number;
  /** `--strict-match`: ACTION_MATCH requires an exact bijection in every NeMo scenario (`disallow_extra_items`). */
  strictMatch?: boolean;
  /** `--judge-threshold`: the 0..1 judge score JUDGE_PASSED needs (default 0.9). */
  judgeThreshold?: number;
}

/** One session: the shared settings, the bot it talks to, and where its artifacts and progress go. */
export interface SessionOptions extends SessionSettingsOptions {
  url: string;
  /**
   * Ask the bot to shut down when the scenario ends: `eval-cancel` on the eval wire, RTVI's `disconnect-bot` elsewhere.
   */
  stopBot?: boolean;
  /** Where this run's stereo recording goes, if its media records one. */
  recordingPath?: string;
  redactor?: Redactor;
  signal?: AbortSignal;
  onProgress?: (progress: SessionProgress) => void;
  /** Every trace line as it is written (`-v`). */
  traceEcho?: (line: string) => void;
  /** Extra bookkeeping copied into the result (`run:`). */
  run?: ScenarioResult['run'];
}

export interface SessionOutcome {
  result: ScenarioResult;
  /** The debug trace, for `<name>.trace.log` beside the results. */
  trace: string;
  /** Absolute path of the recording, when media wrote one. */
  recording?: string;
  /** What the driver keeps beside the result for the artifacts (a GAIA run's transcript and judge answers). */
  evidence?: Record<string, unknown>;
}
