import { monotonicClock, type Clock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { SystemTimerDriver, type TimerDriver } from '../core/timers.js';
import { DEFAULT_CODEC, type CodecName } from '../protocol/index.js';
import type { ScenarioResult } from '../results/types.js';
import {
  DEFAULT_JUDGE_THRESHOLD,
  DEFAULT_MIN_AGENT_TURNS,
  parseLlmOverride,
  type LlmConfig,
  type LlmOverrideFlag,
} from '../scenario/index.js';
import type { MediaFactory } from './media.js';
import { DEFAULT_BOT_INPUT_RATE } from './media/speech-specs.js';
import type { SessionOptions, SessionSettingsOptions } from './options.js';
import type { SessionProgress } from './progress.js';
import type { BotEnables, HandshakeMode } from './wire-check.js';
import { DOCUMENTS_ACK_TIMEOUT_MS, type DocumentsVia } from './documents.js';

/** The wire a session speaks unless told otherwise (the codec table's default). */
export { DEFAULT_CODEC };

/** How long a connect is retried before `connect_failed`. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** bot-ready must arrive within this (Pipecat's hard gate). */
export const BOT_READY_TIMEOUT_MS = 10_000;
/** An event-anchored `send_after` waits at most this long for its event (Pipecat's `SEND_AFTER_MAX_WAIT_S`). */
export const SEND_AFTER_MAX_WAIT_MS = 30_000;
/**
 * How long a turn waits for the bot to finish speaking before it sends (Pipecat's `BOT_QUIET_MAX_WAIT_S`, 30 s): a
 * reply is still spoken after its first sentence satisfied the previous turn, and a turn sent over it would have that
 * tail transcribed as its own reply.
 */
export const BOT_QUIET_MAX_WAIT_MS = 30_000;
/** Longest wait, after a turn's expectations, for the metrics its `latency:` (or `wer:`) block bounds. */
export const DEFAULT_LATENCY_WAIT_MS = 5000;

/**
 * ONE CONFIG, RESOLVED ONCE. What every session of a run shares, with every
 * default filled in and the `--judge` / `--simulator` overrides parsed into
 * their typed form. A runner resolves it once at its start
 * (`resolveSessionSettings`); each session adds its own bot and bookkeeping
 * (`sessionConfig`); the runtime and the drivers only read it. The defaults
 * live here and nowhere else.
 */
export interface SessionSettings {
  readonly codec: CodecName;
  readonly handshake: HandshakeMode;
  /** What the bot enables itself where the wire cannot ask. */
  readonly botEnables: BotEnables | undefined;
  readonly botInputRate: number;
  /** Pauses in the bot's speech bridged while its speaking window is open; undefined: the timeline's default. */
  readonly bargeInGapMs: number | undefined;
  readonly connectTimeoutMs: number;
  readonly handshakeTimeoutMs: number;
  readonly maxPayloadBytes: number | undefined;
  readonly sendAfterMaxWaitMs: number;
  readonly botQuietMaxWaitMs: number;
  readonly latencyWaitMs: number;
  readonly triggerDisconnect: boolean;
  /** How a GAIA scenario's documents reach the bot (`--documents-via`); undefined: `message` wherever RTVI is. */
  readonly documentsVia: DocumentsVia | undefined;
  /** How long the bot gets to acknowledge documents sent by message. */
  readonly documentsAckTimeoutMs: number;
  readonly allowCode: boolean;
  readonly judge: JudgeSettings;
  /** `--simulator`: the caller's LLM in place of every simulation's `simulator:` block. */
  readonly simulatorOverride: LlmConfig | null;
  /** NeMo: fewer bot turns than this fail the composite verdict (`--min-agent-turns`; 0: off). */
  readonly minAgentTurns: number;
  /** `--duration`: seconds capping every simulation's `max_duration_s`; undefined: each scenario's own. */
  readonly durationCapS: number | undefined;
  /** `--strict-match`: NeMo's ACTION_MATCH requires an exact bijection everywhere. */
  readonly strictMatch: boolean;
  /** `--judge-threshold`: the 0..1 judge score NeMo's JUDGE_PASSED needs. */
  readonly judgeThreshold: number;
  /** Builds the audio side of audio-modality scenarios; null: such a scenario is an error. */
  readonly media: MediaFactory | null;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly timers: TimerDriver;
}

export interface JudgeSettings {
  /** `--judge`: the judge in place of every file's `judge.eval` (and its factory and explainer). */
  readonly override: LlmConfig | null;
  /** Where verdicts are cached; undefined: the judge's default folder. Ignored when `cache` is false. */
  readonly cacheDir: string | undefined;
  readonly cache: boolean;
}

/** One session's config: the shared settings, the bot it talks to, and where its artifacts and progress go. */
export interface SessionConfig extends SessionSettings {
  readonly url: string;
  readonly stopBot: boolean;
  readonly recordingPath: string | undefined;
  /** Shared by the session and its conclusion; the runtime adds the scenario's keys. */
  readonly redactor: Redactor;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: SessionProgress) => void) | undefined;
  readonly traceEcho: ((line: string) => void) | undefined;
  readonly run: ScenarioResult['run'] | undefined;
}

/** The bot one session talks to, and what its run source says of it. */
export interface SessionBot {
  url: string;
  /** Ask the bot to shut down when the scenario ends (`--stop-bot`; a suite's spawned bots always). */
  stopBot?: boolean;
  /** A suite manifest entry's own handshake, over the run's. */
  handshake?: HandshakeMode;
  /** Extra bookkeeping copied into the result (`run:`). */
  run?: ScenarioResult['run'];
}

/** Where one session's recording, secrets, progress and trace go. */
export interface SessionIo {
  recordingPath?: string;
  redactor?: Redactor;
  signal?: AbortSignal;
  onProgress?: (progress: SessionProgress) => void;
  traceEcho?: (line: string) => void;
}

const RESOLVED = new WeakSet<object>();

/** Resolves what every session of a run shares: defaults filled in, overrides parsed (a bad one is a UsageError). */
export function resolveSessionSettings(options: SessionSettingsOptions | SessionSettings): SessionSettings {
  if (RESOLVED.has(options)) return options as SessionSettings;
  return resolve(options as SessionSettingsOptions);
}

function resolve(options: SessionSettingsOptions): SessionSettings {
  const clock = options.clock ?? monotonicClock;
  const settings: SessionSettings = {
    codec: options.codec ?? DEFAULT_CODEC,
    handshake: options.handshake ?? 'rtvi',
    botEnables: options.botEnables,
    botInputRate: options.botInputRate ?? DEFAULT_BOT_INPUT_RATE,
    bargeInGapMs: options.bargeInGapMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? BOT_READY_TIMEOUT_MS,
    maxPayloadBytes: options.maxPayloadBytes,
    sendAfterMaxWaitMs: options.sendAfterMaxWaitMs ?? SEND_AFTER_MAX_WAIT_MS,
    botQuietMaxWaitMs: options.botQuietMaxWaitMs ?? BOT_QUIET_MAX_WAIT_MS,
    latencyWaitMs: options.latencyWaitMs ?? DEFAULT_LATENCY_WAIT_MS,
    triggerDisconnect: options.triggerDisconnect === true,
    documentsVia: options.documentsVia,
    documentsAckTimeoutMs: options.documentsAckTimeoutMs ?? DOCUMENTS_ACK_TIMEOUT_MS,
    allowCode: options.allowCode === true,
    judge: Object.freeze({
      override: llmOverride('--judge', options.judgeOverride),
      cacheDir: options.judgeCacheDir,
      cache: options.noJudgeCache !== true,
    }),
    simulatorOverride: llmOverride('--simulator', options.simulatorOverride),
    minAgentTurns: options.minAgentTurns ?? DEFAULT_MIN_AGENT_TURNS,
    durationCapS: options.durationCapS,
    strictMatch: options.strictMatch === true,
    judgeThreshold: options.judgeThreshold ?? DEFAULT_JUDGE_THRESHOLD,
    media: options.media ?? null,
    env: options.env ?? process.env,
    clock,
    timers: options.timers ?? new SystemTimerDriver(clock),
  };
  return frozen(settings);
}

/** One session's config from the run's resolved settings: no default is decided twice. */
export function sessionConfig(settings: SessionSettings, bot: SessionBot, io: SessionIo = {}): SessionConfig {
  return frozen({
    ...settings,
    handshake: bot.handshake ?? settings.handshake,
    url: bot.url,
    stopBot: bot.stopBot === true,
    run: bot.run,
    recordingPath: io.recordingPath,
    redactor: io.redactor ?? new Redactor(settings.env),
    signal: io.signal,
    onProgress: io.onProgress,
    traceEcho: io.traceEcho,
  });
}

/** A session's options resolved (as they are when a runner resolved them already). */
export function resolveSessionConfig(options: SessionOptions | SessionConfig): SessionConfig {
  if (RESOLVED.has(options)) return options as SessionConfig;
  const { url, stopBot, run, ...rest } = options as SessionOptions;
  return sessionConfig(resolveSessionSettings(rest), { url, stopBot, run }, rest);
}

/** The settings with the run's own media (the audio engine a runner made), when none was given. */
export function withMedia(settings: SessionSettings, media: MediaFactory): SessionSettings {
  return frozen({ ...settings, media });
}

function llmOverride(flag: LlmOverrideFlag, value: string | LlmConfig | undefined): LlmConfig | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? parseLlmOverride(flag, value) : value;
}

function frozen<T extends object>(value: T): T {
  Object.freeze(value);
  RESOLVED.add(value);
  return value;
}
