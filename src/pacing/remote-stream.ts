import {
  FrameLog,
  type AudibleBounds,
  type FrameRecord,
  type MicStreamStats,
  type UtteranceTiming,
} from '../audio/index.js';
import type { ToPacer } from './messages.js';
import { FrameReplay } from './replay.js';

/** A frame as the pacer thread reported it sent, with the samples it carried. */
export interface SentFrame {
  index: number;
  dueMs: number;
  sentMs: number;
  samples: Int16Array;
  sampleRate: number;
  speech: boolean;
}

export interface RemoteStreamOptions {
  sampleRate: number;
  label: string;
  /** Aborting stops the stream (reason `aborted`). */
  signal?: AbortSignal;
  recordFrames?: number;
  /** Each frame once the pacer thread reports it sent (after the fact, on this thread). */
  onFrame?: (frame: SentFrame) => void;
}

/** An utterance queued on a stream of the pacer thread. */
export interface RemoteUtterance {
  readonly started: Promise<UtteranceTiming>;
  readonly finished: Promise<UtteranceTiming>;
  cancel(): void;
}

interface Pending {
  resolveStarted: (t: UtteranceTiming) => void;
  resolveFinished: (t: UtteranceTiming) => void;
  timing: UtteranceTiming;
}

/**
 * This thread's side of a microphone stream that the pacer thread paces and
 * sends: utterances go over ahead of time (their samples copied once), and
 * what left comes back after the fact, frame by frame, into the same
 * `FrameLog` the in-thread stream keeps, so its lateness reads as it always
 * has. The pacer thread's own stats and records replace these when it ends.
 */
export class RemoteStream {
  readonly ended: Promise<MicStreamStats>;
  readonly samplesPerFrame: number;
  startMs: number | null = null;
  private readonly replay: FrameReplay;
  private readonly log: FrameLog;
  private readonly utts = new Map<number, Pending>();
  private final: { stats: MicStreamStats; records: FrameRecord[] } | null = null;
  private end: MicStreamStats['end'] = null;
  private resolveEnded!: (s: MicStreamStats) => void;
  private nextUtt = 1;
  private speech = 0;
  private silence = 0;
  private readonly onAbort = (): void => this.post({ t: 'stop', stream: this.id, reason: 'aborted' });

  constructor(
    readonly id: number,
    private readonly options: RemoteStreamOptions,
    readonly frameMs: number,
    private readonly post: (m: ToPacer) => void,
  ) {
    this.samplesPerFrame = (options.sampleRate * frameMs) / 1000;
    this.replay = new FrameReplay(this.samplesPerFrame);
    this.log = new FrameLog(options.recordFrames ?? 30_000);
    this.ended = new Promise((r) => (this.resolveEnded = r));
    if (options.signal?.aborted) queueMicrotask(this.onAbort);
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get isEnded(): boolean {
    return this.final !== null;
  }

  /** Queues `samples` after what is queued; they cross to the pacer thread now, long before they are due. */
  enqueue(
    samples: Int16Array,
    options: { label?: string; notBeforeMs?: number; voiced?: AudibleBounds | null } = {},
  ): RemoteUtterance {
    const utt = this.nextUtt++;
    let resolveStarted!: (t: UtteranceTiming) => void;
    let resolveFinished!: (t: UtteranceTiming) => void;
    const started = new Promise<UtteranceTiming>((r) => (resolveStarted = r));
    const finished = new Promise<UtteranceTiming>((r) => (resolveFinished = r));
    const timing: UtteranceTiming = {
      id: utt,
      label: options.label ?? null,
      state: 'queued',
      sampleRate: this.options.sampleRate,
      samplesTotal: samples.length,
      samplesSent: 0,
      firstFrameDueMs: null,
      lastFrameDueMs: null,
      firstSentMs: null,
      lastSentMs: null,
      utteranceStartMs: null,
      utteranceEndMs: null,
    };
    if (this.end !== null) {
      const t = { ...timing, state: 'cancelled' as const };
      resolveStarted(t);
      resolveFinished(t);
    } else {
      this.utts.set(utt, { resolveStarted, resolveFinished, timing });
      this.replay.add(utt, samples);
      const copy = samples.slice();
      this.post({
        t: 'enqueue',
        stream: this.id,
        utt,
        samples: copy,
        label: options.label ?? null,
        ...(options.notBeforeMs !== undefined ? { notBeforeMs: options.notBeforeMs } : {}),
        ...(options.voiced !== undefined ? { voiced: options.voiced } : {}),
      });
    }
    return { started, finished, cancel: () => this.utts.has(utt) && this.post({ t: 'cancel', stream: this.id, utt }) };
  }

  stop(): void {
    this.post({ t: 'stop', stream: this.id, reason: 'stopped' });
  }

  /** The pacer thread's final stats once ended; until then what has been reported back. */
  stats(): MicStreamStats {
    if (this.final) return this.final.stats;
    return {
      stream: this.options.label,
      sampleRate: this.options.sampleRate,
      frameMs: this.frameMs,
      startMs: this.startMs ?? NaN,
      frameSlots: this.log.count,
      framesSent: this.log.count,
      speechFrames: this.speech,
      silenceFrames: this.silence,
      skippedSilenceFrames: 0,
      preparedFrames: 0,
      lastDueMs: null,
      lateness: this.log.latenessSummary(),
      recordsKept: this.log.keptCount,
      recordsTruncated: this.log.truncated,
      end: this.end,
    };
  }

  /** Exact records of the frames sent (the pacer thread's own once ended). */
  frameRecords(): FrameRecord[] {
    return this.final ? this.final.records : this.log.records();
  }

  /** @internal */
  onStarted(startMs: number): void {
    this.startMs = startMs;
  }

  /** @internal One frame from a tick's report. */
  onFrame(index: number, dueMs: number, sentMs: number, utt: number): void {
    const speech = utt !== 0;
    if (speech) this.speech++;
    else this.silence++;
    this.log.add(index, dueMs, sentMs, speech);
    const samples = this.replay.next(utt);
    this.options.onFrame?.({ index, dueMs, sentMs, samples, sampleRate: this.options.sampleRate, speech });
  }

  /** @internal */
  onUtterance(utt: number, phase: 'started' | 'finished', timing: UtteranceTiming, end: MicStreamStats['end']): void {
    if (end) this.end = end;
    const p = this.utts.get(utt);
    if (!p) return;
    const t = { ...timing, id: utt };
    p.timing = t;
    p.resolveStarted(t);
    if (phase === 'finished') {
      p.resolveFinished(t);
      this.utts.delete(utt);
      this.replay.drop(utt);
    }
  }

  /** @internal The pacer thread's word on how it ended; `null` stats: the thread is gone. */
  onEnded(stats: MicStreamStats | null, records: Float64Array | null): void {
    if (this.final) return;
    const recs: FrameRecord[] = [];
    if (records)
      for (let i = 0; i + 3 < records.length; i += 4)
        recs.push({ index: records[i], dueMs: records[i + 1], sentMs: records[i + 2], speech: records[i + 3] === 1 });
    const s = stats ?? { ...this.stats(), end: { reason: 'pacer_closed' as const } };
    this.end = s.end;
    this.final = { stats: s, records: stats ? recs : this.log.records() };
    for (const [utt, p] of this.utts) {
      const t = { ...p.timing, state: 'cancelled' as const };
      p.resolveStarted(t);
      p.resolveFinished(t);
      this.replay.drop(utt);
    }
    this.utts.clear();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.resolveEnded(s);
  }
}
