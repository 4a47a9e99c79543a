import type { Clock } from '../core/clock.js';
import type { AudioItem, ClientConnection, SocketOpener } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { SpeechProviders } from '../results/types.js';
import type { Runnable, ScenarioConditions } from '../scenario/index.js';

/**
 * The audio side of a session, behind one seam so the text engine stays small:
 * the microphone (user turns as real-time speech), capture of the bot's audio
 * (onset detection, `response` transcripts, the recording). Text-mode sessions
 * run without one. The implementation is `src/session/media/`.
 *
 * Lifecycle: `prepare` (before connecting) → `start` (after bot-ready) →
 * per turn `beginTurn`, `dropPending`, `speak` → `finish` (always called once
 * `prepare` was, even when it threw).
 */
export interface MediaContext {
  clock: Clock;
  /** Session start on `clock`; events carry `at_ms` relative to it. */
  t0Ms: number;
  /** Feeds a measured or transcribed event (bot_audio_started, response, ...) to the matcher and the timeline. */
  emit(event: EarshotEvent): void;
  /** The first and last voiced sample of a turn's speech, as due at real-time pace (ms since session start). */
  markUserSpeech(startAtMs: number, endAtMs: number): void;
  /** A run of the bot's audio frames ended here (no frame followed): where its output stream stopped. */
  markBotStreamEnd(atMs: number): void;
  trace(line: string): void;
  /** Aborted when the run is interrupted (not when the session merely ends). */
  signal: AbortSignal;
}

export interface MediaArtifacts {
  /** Absolute path of the stereo recording, when one was written. */
  recording?: string;
  /** Where the recording's first sample sits on the session clock (ms since session start). */
  recordingStartedAtMs?: number;
  /** Per-turn notes (capture capped, transcription failed...). */
  notes?: Array<{ turn_index: number; note: string }>;
  /** Who spoke the caller and who heard the bot (earshot extension). */
  speech?: SpeechProviders;
  /** The channel conditions applied and their seed (earshot extension). */
  conditions?: { seed: number; applied: ScenarioConditions; audio_sha256?: Record<string, string> };
}

/** One user turn's words as the media speaks them: `user` text, an `audio` recording, or in-band keys. */
export interface UserUtterance {
  user?: string;
  audio?: string;
  /** Keys played as in-band tones in the caller's audio (dtmf_mode: inband). */
  dtmf?: string;
}

/** What a session asks of its media, per run. */
export interface MediaRequest {
  /** Where the stereo recording goes, when the media records (the run's output folder decides). */
  recordingPath?: string;
  /** The rate the caller's audio is sent at (resampled from the scenario's `sample_rate`); default 16000. */
  botInputRate?: number;
  /** False for a bot without RTVI: its replies are cut from its audio alone, not at its speaking reports. */
  speakingReports?: boolean;
}

/** Builds the media of one scenario run; null when the scenario needs none. */
export type MediaFactory = (scenario: Runnable, request: MediaRequest) => SessionMedia | null;

export interface SessionMedia {
  /**
   * Before connecting: loads voices and models, synthesizes the user's turns,
   * opens the recording, so nothing slow happens once the bot is talking.
   * Throws an EarshotError for configuration problems (missing model, unknown
   * voice, unreadable `audio:` file); the session then ends with status error.
   */
  prepare(ctx: MediaContext): Promise<void>;
  /**
   * How the session's WebSocket is opened, when the media needs it somewhere special (the pacer thread); default `ws`
   * here.
   */
  readonly openSocket?: SocketOpener;
  /** After bot-ready: the microphone starts streaming on this connection (user modality audio). */
  start(connection: ClientConnection): Promise<void>;
  /**
   * Speaks a user turn (its `user:` text synthesized, or its `audio:` recording).
   * Resolves once the first frame is on the air, with the session-clock time
   * (absolute, like `clock.now()`) that frame was due: the anchor the turn's
   * `within_ms` budget counts from. The voiced span is reported through
   * `markUserSpeech` once it has played.
   */
  speak(utterance: UserUtterance, turnIndex: number, signal: AbortSignal): Promise<number>;
  /**
   * A backchannel murmur over the bot (earshot extension): spoken like a turn, but not the turn's user speech. Resolves
   * with its first frame's due time.
   */
  murmur?(text: string, turnIndex: number, signal: AbortSignal): Promise<number>;
  /** Bot audio as it arrives (eval-bot-audio or protobuf audio frames); `atMs` is ms since session start. */
  onBotAudio(item: AudioItem, atMs: number): void;
  /** The bot's own speaking reports bound one spoken reply. */
  onSpeaking(edge: 'started' | 'stopped', atMs: number): void;
  /** A turn is about to send, or the bot was cut off: audio captured so far belongs to an earlier reply. */
  dropPending(reason: string): void;
  /** Marks the turn boundary so per-turn caps and notes land in the right turn. */
  beginTurn(turnIndex: number): void;
  /**
   * Stops streams, waits for pending transcriptions, writes the recording (or discards it when the run was
   * interrupted).
   */
  finish(): Promise<MediaArtifacts>;
}
