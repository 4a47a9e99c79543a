import type { Clock } from '../core/clock.js';
import { AudioOptionError, checkSampleRate } from './errors.js';
import { FrameLog, type FrameRecord } from './frame-log.js';
import { DEFAULT_GATE, type GateOptions } from './level.js';
import type {
  FrameContent,
  FrameSink,
  MicStreamOptions,
  MicStreamStats,
  PacedFrame,
  StreamEndReason,
} from './mic-types.js';
import { Utterance, type UtteranceOptions, type UtteranceTiming } from './utterance.js';

/** What a stream needs from its pacer. */
export interface StreamHost {
  readonly clock: Clock;
  readonly frameMs: number;
  silenceFrame(samples: number): Int16Array;
  recordLateness(ms: number): void;
  detach(stream: MicStream<unknown>): void;
}

interface Prepared<P> {
  index: number;
  version: number;
  content: FrameContent;
  utterance: Utterance | null;
  payload: P;
}

const DEFAULT_RECORD_FRAMES = 30_000;

/**
 * A virtual microphone on a shared pacer: a continuous stream of frames, one
 * per tick from its start time, carrying queued utterances in order and
 * silence between them.
 *
 * When the process falls behind, overdue speech frames go out back to back
 * until the stream is on schedule again (speech is never lost), while overdue
 * silence frames are skipped except the latest (silence never bursts). Due
 * times stay on the grid start + n × frameMs, so nothing drifts.
 */
export class MicStream<P = undefined> {
  readonly label: string;
  readonly sampleRate: number;
  readonly frameMs: number;
  readonly samplesPerFrame: number;
  readonly startMs: number;
  /** Resolves once the stream has stopped, with its final stats. Never rejects. */
  readonly ended: Promise<MicStreamStats>;

  private nextIndex = 0;
  private nextDue: number;
  private readonly queue: Utterance[] = [];
  private current: Utterance | null = null;
  private readonly log: FrameLog;
  private readonly gate: GateOptions;
  private readonly sink: FrameSink<P>;
  private readonly encode: ((frame: FrameContent) => P) | undefined;
  private prepared: Prepared<P> | null = null;
  /** Bumped whenever what the next frame carries may have changed. */
  private version = 0;
  private speechFrames = 0;
  private silenceFrames = 0;
  private preparedFrames = 0;
  private skipped = 0;
  private endState: MicStreamStats['end'] = null;
  private resolveEnded!: (stats: MicStreamStats) => void;
  private utteranceSeq = 0;
  private readonly onAbort = (): void => this.finish('aborted');
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly host: StreamHost,
    options: MicStreamOptions<P>,
    startMs: number,
  ) {
    checkSampleRate(options.sampleRate);
    const spf = (options.sampleRate * host.frameMs) / 1000;
    if (!Number.isInteger(spf)) {
      throw new AudioOptionError(
        'sampleRate',
        options.sampleRate,
        `a rate with a whole number of samples per ${host.frameMs} ms frame`,
      );
    }
    const cap = options.recordFrames ?? DEFAULT_RECORD_FRAMES;
    if (!Number.isInteger(cap) || cap < 0) throw new AudioOptionError('recordFrames', cap, 'a non-negative integer');
    if (typeof options.sink !== 'function') throw new AudioOptionError('sink', typeof options.sink, 'a function');
    this.label = options.label ?? 'mic';
    this.sampleRate = options.sampleRate;
    this.frameMs = host.frameMs;
    this.samplesPerFrame = spf;
    this.startMs = startMs;
    this.nextDue = startMs;
    this.sink = options.sink;
    this.encode = options.encode;
    this.gate = options.gate ?? DEFAULT_GATE;
    this.log = new FrameLog(cap);
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.signal = options.signal;
    if (options.signal) {
      if (options.signal.aborted) queueMicrotask(this.onAbort);
      else options.signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** Due time of the next frame slot (the pacer wakes for the earliest of its streams). */
  get nextDueMs(): number {
    return this.nextDue;
  }

  get isEnded(): boolean {
    return this.endState !== null;
  }

  /** An utterance is on the air now. */
  get speaking(): boolean {
    return this.current !== null;
  }

  /** Utterances waiting behind the current one. */
  get queuedCount(): number {
    return this.queue.length;
  }

  /**
   * Queues `samples` (at the stream's rate) to be spoken after what is already
   * queued. Its first frame is the first slot due at or after both now and
   * `notBeforeMs`: speech is never placed in a slot that was due before the
   * harness decided to speak.
   */
  enqueue(samples: Int16Array, options: UtteranceOptions = {}): Utterance {
    if (!(samples instanceof Int16Array))
      throw new AudioOptionError('samples', typeof samples, 'an Int16Array at the stream rate');
    const eligibleAtMs = Math.max(this.host.clock.now(), options.notBeforeMs ?? -Infinity);
    const u = new Utterance(
      ++this.utteranceSeq,
      samples,
      this.sampleRate,
      eligibleAtMs,
      options,
      options.gate ?? this.gate,
      (x) => this.cancelUtterance(x),
    );
    if (this.endState) u.close('cancelled');
    else if (samples.length === 0) u.close('completed');
    else {
      this.queue.push(u);
      this.version++;
    }
    return u;
  }

  /** `enqueue` and wait until it has been sent; aborting cancels the utterance and rejects with the signal's reason. */
  speak(samples: Int16Array, options: UtteranceOptions & { signal?: AbortSignal } = {}): Promise<UtteranceTiming> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const u = this.enqueue(samples, options);
    if (!signal) return u.finished;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        u.cancel();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void u.finished.then((t) => {
        signal.removeEventListener('abort', onAbort);
        if (!signal.aborted) resolve(t);
      });
    });
  }

  /** Barge-in: cuts the utterance on the air at the next frame boundary and drops everything queued. */
  cancelSpeech(): UtteranceTiming[] {
    const all = [...(this.current ? [this.current] : []), ...this.queue];
    for (const u of all) this.cancelUtterance(u);
    return all.map((u) => u.timing());
  }

  /** Stops the stream now: no more frames; queued and playing utterances end as cancelled. */
  stop(): void {
    this.finish('stopped');
  }

  stats(): MicStreamStats {
    const slots = this.nextIndex;
    return {
      stream: this.label,
      sampleRate: this.sampleRate,
      frameMs: this.frameMs,
      startMs: this.startMs,
      frameSlots: slots,
      framesSent: this.log.count,
      speechFrames: this.speechFrames,
      silenceFrames: this.silenceFrames,
      skippedSilenceFrames: this.skipped,
      preparedFrames: this.preparedFrames,
      lastDueMs: slots > 0 ? this.startMs + (slots - 1) * this.frameMs : null,
      lateness: this.log.latenessSummary(),
      recordsKept: this.log.keptCount,
      recordsTruncated: this.log.truncated,
      end: this.endState,
    };
  }

  /** Exact records of the first `recordFrames` frames sent. */
  frameRecords(): FrameRecord[] {
    return this.log.records();
  }

  /** @internal Encodes the frame due at `dueMs` ahead of time (called shortly before the tick). */
  prepare(dueMs: number): void {
    if (!this.encode || this.endState || this.nextDue !== dueMs) return;
    const { content, utterance } = this.plan(this.nextIndex, dueMs);
    this.prepared = { index: this.nextIndex, version: this.version, content, utterance, payload: this.encode(content) };
  }

  /** @internal Sends every slot due by now; called by the pacer on each tick. */
  service(nowMs: number): void {
    while (this.endState === null && this.nextDue <= nowMs) {
      const index = this.nextIndex;
      const due = this.nextDue;
      this.nextIndex++;
      this.nextDue = this.startMs + this.nextIndex * this.frameMs;
      const p = this.prepared;
      this.prepared = null;
      const ready = p !== null && p.index === index && p.version === this.version ? p : null;
      const { content, utterance } = ready ?? this.plan(index, due);
      if (!utterance && this.nextDue <= nowMs) {
        this.skipped++;
        continue;
      }
      if (utterance && utterance !== this.current) {
        this.queue.shift();
        this.current = utterance;
        utterance.state = 'playing';
        this.version++;
      }
      if (utterance) {
        utterance.offset = Math.min(utterance.offset + this.samplesPerFrame, utterance.samples.length);
        if (utterance.firstFrameDueMs === null) utterance.firstFrameDueMs = due;
        utterance.lastFrameDueMs = due;
      }
      if (ready) this.preparedFrames++;
      const sentMs = this.send(content, ready ? ready.payload : (this.encode?.(content) as P));
      if (utterance) {
        utterance.markSent(sentMs);
        if (utterance.offset >= utterance.samples.length && utterance.state === 'playing') {
          this.current = null;
          this.version++;
          utterance.close('completed');
        }
      }
    }
  }

  /** @internal The pacer is closing. */
  close(): void {
    this.finish('pacer_closed');
  }

  /**
   * The frame slot `index` carries if sent now: the playing utterance, else the queue's head once eligible, else
   * silence.
   */
  private plan(index: number, due: number): { content: FrameContent; utterance: Utterance | null } {
    const head = this.queue[0];
    const u = this.current ?? (head && head.eligibleAtMs <= due ? head : null);
    const spf = this.samplesPerFrame;
    let samples: Int16Array;
    if (u) {
      samples = u.samples.subarray(u.offset, u.offset + spf);
      if (samples.length < spf) {
        const padded = new Int16Array(spf);
        padded.set(samples);
        samples = padded;
      }
    } else samples = this.host.silenceFrame(spf);
    const content: FrameContent = {
      stream: this.label,
      index,
      dueMs: due,
      samples,
      sampleRate: this.sampleRate,
      speech: u !== null,
      utteranceId: u ? u.id : null,
    };
    return { content, utterance: u };
  }

  private send(content: FrameContent, payload: P): number {
    const sentMs = this.host.clock.now();
    this.log.add(content.index, content.dueMs, sentMs, content.speech);
    this.host.recordLateness(sentMs - content.dueMs);
    if (content.speech) this.speechFrames++;
    else this.silenceFrames++;
    // Spelled out: an object spread here costs microseconds per frame, a hundred times per tick.
    const frame: PacedFrame<P> = {
      stream: content.stream,
      index: content.index,
      dueMs: content.dueMs,
      samples: content.samples,
      sampleRate: content.sampleRate,
      speech: content.speech,
      utteranceId: content.utteranceId,
      sentMs,
      payload,
    };
    try {
      const result = this.sink(frame);
      if (result && typeof result.then === 'function')
        result.then(undefined, (err: unknown) => this.finish('sink_error', err));
    } catch (err) {
      this.finish('sink_error', err);
    }
    return sentMs;
  }

  private cancelUtterance(u: Utterance): void {
    if (u.state === 'queued') {
      const at = this.queue.indexOf(u);
      if (at >= 0) this.queue.splice(at, 1);
    } else if (u.state === 'playing' && this.current === u) this.current = null;
    if (u.state === 'queued' || u.state === 'playing') {
      this.version++;
      u.close('cancelled');
    }
  }

  private finish(reason: StreamEndReason, error?: unknown): void {
    if (this.endState) return;
    this.endState =
      error === undefined ? { reason } : { reason, error: error instanceof Error ? error.message : String(error) };
    for (const u of [...(this.current ? [this.current] : []), ...this.queue]) u.close('cancelled');
    this.current = null;
    this.queue.length = 0;
    this.prepared = null;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.host.detach(this as MicStream<unknown>);
    this.resolveEnded(this.stats());
  }
}
