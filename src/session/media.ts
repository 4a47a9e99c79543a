import type { Clock } from '../core/clock.js';
import type { AudioItem, ClientConnection } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { Turn } from '../scenario/index.js';

/**
 * The audio side of a session, behind one seam so the text engine stays small:
 * the microphone (user turns as real-time speech), capture of the bot's audio
 * (onset detection, `response` transcripts, the recording). Text-mode sessions
 * run without one.
 */
export interface MediaContext {
  connection: ClientConnection;
  clock: Clock;
  /** Session start on `clock`; events carry `at_ms` relative to it. */
  t0Ms: number;
  /** Feeds a measured or transcribed event (bot_audio_started, response, ...) to the matcher. */
  emit(event: EarshotEvent): void;
  trace(line: string): void;
  signal: AbortSignal;
}

export interface MediaArtifacts {
  /** Absolute path of the stereo recording, when one was written. */
  recording?: string;
  /** Per-turn notes (capture capped, transcription failed...). */
  notes?: Array<{ turn_index: number; note: string }>;
}

export interface SessionMedia {
  /** After bot-ready: start the microphone stream and capture. */
  start(ctx: MediaContext): Promise<void>;
  /**
   * Speaks a user turn (its `user:` text synthesized, or its `audio:` recording).
   * Resolves once the utterance is queued, with the session-clock time its first
   * frame is due: the anchor the turn's `within_ms` budget counts from.
   */
  speak(turn: Turn, turnIndex: number, signal: AbortSignal): Promise<number>;
  /** Bot audio as it arrives (eval-bot-audio or protobuf audio frames). */
  onBotAudio(item: AudioItem, atMs: number): void;
  /** The bot's own speaking reports bound one spoken reply. */
  onSpeaking(edge: 'started' | 'stopped', atMs: number): void;
  /** A turn is about to send: audio captured so far belongs to an earlier turn. */
  dropPending(reason: string): void;
  /** Marks the turn boundary so per-turn measurements and notes land in the right turn. */
  beginTurn(turnIndex: number): void;
  /** Per-turn latency metrics computed from the timeline, once the turn is over. */
  turnMetrics?(turnIndex: number): Record<string, number | boolean | null | Record<string, unknown>> | undefined;
  /** Stops streams, waits for pending transcriptions, writes the recording. */
  finish(): Promise<MediaArtifacts>;
}
