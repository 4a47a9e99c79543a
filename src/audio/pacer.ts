import { monotonicClock, type Clock } from '../core/clock.js';
import { AudioOptionError } from './errors.js';
import { DurationHistogram, type DurationSummary } from '../core/histogram.js';
import { MicStream, type StreamHost } from './mic-stream.js';
import type { MicStreamOptions } from './mic-types.js';
import { PreciseTimerDriver, type TimerDriver } from '../core/timers.js';

export interface PacerOptions {
  clock?: Clock;
  /** Defaults to a `PreciseTimerDriver` on `clock`; tests pass a `ManualTimerDriver`. */
  timers?: TimerDriver;
  /** Frame length in ms (default 20). Every stream on this pacer uses it. */
  frameMs?: number;
}

export interface PacerStats {
  frameMs: number;
  activeStreams: number;
  streamsCreated: number;
  ticks: number;
  /** How late each tick started versus the deadline it woke for. */
  tickLateness: DurationSummary;
  /** How long each tick took (all streams' frames, sinks included): the last stream's extra lateness. */
  tickWork: DurationSummary;
  /** sentMs − dueMs over every frame of every stream, ended streams included. */
  frameLateness: DurationSummary;
}

/**
 * The one scheduler every concurrent virtual microphone shares. Ticks sit on a
 * fixed grid (origin + k × frameMs) and every stream starts on a grid point, so
 * one wake-up serves all streams due at that instant: a hundred streams cost
 * one timer, not a hundred. Create one per process (or per suite run) and pass
 * it to whatever opens streams; nothing here is global.
 */
export class Pacer {
  readonly clock: Clock;
  readonly frameMs: number;
  /** Grid origin: every frame is due at originMs + k × frameMs for some k. */
  readonly originMs: number;

  private readonly timers: TimerDriver;
  private readonly streams = new Set<MicStream<unknown>>();
  private readonly silence = new Map<number, Int16Array>();
  private readonly frameLateness = new DurationHistogram();
  private readonly tickLateness = new DurationHistogram();
  private readonly tickWork = new DurationHistogram();
  private cancelPending: (() => void) | null = null;
  private pendingAtMs = Infinity;
  private ticks = 0;
  private created = 0;
  private closed = false;
  private readonly host: StreamHost;

  constructor(options: PacerOptions = {}) {
    this.clock = options.clock ?? monotonicClock;
    this.frameMs = options.frameMs ?? 20;
    if (!(this.frameMs >= 5 && this.frameMs <= 200)) throw new AudioOptionError('frameMs', this.frameMs, 'a frame length from 5 to 200 ms');
    this.timers = options.timers ?? new PreciseTimerDriver({ clock: this.clock });
    this.originMs = this.clock.now();
    this.host = {
      clock: this.clock,
      frameMs: this.frameMs,
      silenceFrame: (n) => {
        let frame = this.silence.get(n);
        if (!frame) this.silence.set(n, (frame = new Int16Array(n)));
        return frame;
      },
      recordLateness: (ms) => this.frameLateness.record(ms),
      detach: (s) => {
        this.streams.delete(s);
        if (this.streams.size === 0) this.disarm();
      },
    };
  }

  /** Opens a virtual microphone whose first frame is due on the next grid tick (at or after `startAtMs`). */
  createStream<P = undefined>(options: MicStreamOptions<P>): MicStream<P> {
    if (this.closed) throw new AudioOptionError('pacer', 'closed', 'an open pacer (createStream after close)');
    const want = Math.max(this.clock.now(), options.startAtMs ?? -Infinity);
    const k = Math.ceil((want - this.originMs) / this.frameMs - 1e-9);
    const stream = new MicStream<P>(this.host, options, this.originMs + k * this.frameMs);
    this.created++;
    this.streams.add(stream as MicStream<unknown>);
    this.arm();
    return stream;
  }

  get activeStreams(): number {
    return this.streams.size;
  }

  stats(): PacerStats {
    return {
      frameMs: this.frameMs,
      activeStreams: this.streams.size,
      streamsCreated: this.created,
      ticks: this.ticks,
      tickLateness: this.tickLateness.summary(),
      tickWork: this.tickWork.summary(),
      frameLateness: this.frameLateness.summary(),
    };
  }

  /** Ends every stream (reason `pacer_closed`) and the timer; the pacer takes no new streams. */
  close(): void {
    this.closed = true;
    for (const s of [...this.streams]) s.close();
    this.disarm();
  }

  private arm(): void {
    let next = Infinity;
    for (const s of this.streams) if (s.nextDueMs < next) next = s.nextDueMs;
    if (next === Infinity) return this.disarm();
    if (this.cancelPending && this.pendingAtMs <= next) return;
    this.disarm();
    this.pendingAtMs = next;
    this.cancelPending = this.timers.at(
      next,
      () => this.tick(next),
      () => {
        for (const s of this.streams) s.prepare(next);
      },
    );
  }

  private disarm(): void {
    this.cancelPending?.();
    this.cancelPending = null;
    this.pendingAtMs = Infinity;
  }

  private tick(dueMs: number): void {
    this.cancelPending = null;
    this.pendingAtMs = Infinity;
    this.ticks++;
    const startMs = this.clock.now();
    this.tickLateness.record(startMs - dueMs);
    for (const s of this.streams) s.service(this.clock.now());
    this.tickWork.record(this.clock.now() - startMs);
    this.arm();
  }
}
