import type { DurationSummary } from '../core/histogram.js';
import type { GateOptions } from './level.js';

/** What one frame carries, known before it is due. */
export interface FrameContent {
  readonly stream: string;
  /** Frame slot since the stream started; slots of skipped late silence count too. */
  readonly index: number;
  /** When this frame is due: the stream's start + index × frameMs. */
  readonly dueMs: number;
  /** Exactly one frame of samples. Read-only: silence frames are shared and speech frames view the utterance. */
  readonly samples: Int16Array;
  readonly sampleRate: number;
  readonly speech: boolean;
  readonly utteranceId: number | null;
}

/** One frame handed to the wire (the pacer's `frameMs`, 20 ms by default). */
export interface PacedFrame<P = undefined> extends FrameContent {
  /** When it was handed to the sink. */
  readonly sentMs: number;
  /** What the stream's `encode` made of the frame (undefined without one). */
  readonly payload: P;
}

/**
 * Receives each frame as it is due. It runs inside the pacer's tick, so it
 * should hand the frame on (`ws.send(frame.payload)`) and return; a returned
 * promise is not awaited, but a rejection (or a throw) ends the stream with
 * `sink_error`.
 */
export type FrameSink<P = undefined> = (frame: PacedFrame<P>) => void | Promise<void>;

export interface MicStreamOptions<P = undefined> {
  sampleRate: number;
  sink: FrameSink<P>;
  /**
   * Turns a frame into what the sink sends (base64 JSON, a protobuf). The pacer
   * calls it ahead of the deadline, in the time it would otherwise spend
   * waiting precisely, so that on the deadline only the send is left; a frame
   * whose content changed since (a barge-in cancel, a new utterance) is encoded
   * again. Must not depend on the send time.
   */
  encode?: (frame: FrameContent) => P;
  /** Name in frames and stats (e.g. the scenario's name). */
  label?: string;
  /** First frame no earlier than this (rounded up to the pacer's tick grid). Default: the next tick. */
  startAtMs?: number;
  /** Aborting stops the stream (`ended` resolves with reason `aborted`). */
  signal?: AbortSignal;
  /** Exact per-frame records kept before only aggregates grow (default 30,000: ten minutes of 20 ms frames). */
  recordFrames?: number;
  /** Energy gate for the voiced span of each utterance (`utteranceStartMs` / `utteranceEndMs`). */
  gate?: GateOptions;
}

export type StreamEndReason = 'stopped' | 'aborted' | 'sink_error' | 'pacer_closed';

export interface MicStreamStats {
  stream: string;
  sampleRate: number;
  frameMs: number;
  /** Due time of frame 0. */
  startMs: number;
  /** Frame slots that have come due: sent + skipped. */
  frameSlots: number;
  framesSent: number;
  speechFrames: number;
  silenceFrames: number;
  /** Silence frames not sent because they were already late when a newer one was due. */
  skippedSilenceFrames: number;
  /** Frames sent with the payload encoded ahead of the deadline (only with `encode`). */
  preparedFrames: number;
  /** Due time of the last slot that came due, null before the first. */
  lastDueMs: number | null;
  /** sentMs − dueMs over every sent frame. */
  lateness: DurationSummary;
  recordsKept: number;
  recordsTruncated: boolean;
  end: { reason: StreamEndReason; error?: string } | null;
}
