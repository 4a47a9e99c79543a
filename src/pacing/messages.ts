import type { AudibleBounds, MicStreamStats, UtteranceTiming } from '../audio/index.js';
import type { CodecName } from '../protocol/index.js';

/**
 * What the main thread and the pacer thread say to each other over the
 * worker's port. Sockets and streams are named by numbers the main thread
 * picks. Every time is on the main thread's monotonic clock (the worker adds
 * the difference of the two `performance.timeOrigin`s).
 */
export type ToPacer =
  | { t: 'open'; sock: number; url: string; maxPayload: number; headers?: Record<string, string> }
  | { t: 'send'; sock: number; payload: string | Uint8Array }
  | { t: 'close'; sock: number; code?: number; reason?: string }
  | { t: 'terminate'; sock: number }
  | {
      t: 'stream';
      stream: number;
      sock: number;
      codec: CodecName;
      sampleRate: number;
      label: string;
      recordFrames?: number;
    }
  /** The samples are a copy, transferred: the worker owns them from here. */
  | {
      t: 'enqueue';
      stream: number;
      utt: number;
      samples: Int16Array;
      label: string | null;
      notBeforeMs?: number;
      voiced?: AudibleBounds | null;
    }
  | { t: 'cancel'; stream: number; utt: number }
  | { t: 'stop'; stream: number; reason: 'stopped' | 'aborted' };

/**
 * One frame as it left: `[stream, index, dueMs, sentMs, utt]` five numbers per
 * frame (utt 0 for silence), every frame of one tick in one message.
 */
export const FRAME_FIELDS = 5;

export type FromPacer =
  /** `tid`: the pacer thread's kernel thread id (Linux), so its own CPU can be read from /proc; null elsewhere. */
  | { t: 'ready'; originMs: number; frameMs: number; tid: number | null }
  | { t: 'open'; sock: number }
  | { t: 'error'; sock: number; message: string; code?: string }
  /** `data` is the frame's bytes (text frames too, as UTF-8), read at `at`. */
  | { t: 'message'; sock: number; data: Uint8Array; isBinary: boolean; at: number }
  | { t: 'close'; sock: number; code: number; reason: string }
  | { t: 'started'; stream: number; startMs: number }
  | { t: 'frames'; frames: Float64Array }
  | {
      t: 'utt';
      stream: number;
      utt: number;
      phase: 'started' | 'finished';
      timing: UtteranceTiming;
      end: MicStreamStats['end'];
    }
  /** The stream's final stats and exact frame records (FrameLog order: index, due, sent, speech). */
  | { t: 'ended'; stream: number; stats: MicStreamStats; records: Float64Array };
