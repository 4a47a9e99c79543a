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
 * Ticks one phase may serve before the next phase opens. A tick writes its
 * streams' frames one after another, so the last stream of a tick is late by
 * the others' writes (a WebSocket write to a loopback peer costs ~0.1–0.25 ms
 * on the 2-core reference machine): four keeps that under 1 ms.
 */
export const STREAMS_PER_PHASE = 4;
/**
 * The spacing of phases within a frame. Not finer: between two ticks the pacer
 * thread sleeps on a timer and then blocks through its lead (1–5 ms,
 * src/core/sleep-timers.ts); ticks closer than that would keep it blocked and
 * its event loop (socket reads) would turn only once per tick.
 */
export const PHASE_SPACING_MS = 5;

/**
 * The one scheduler every concurrent virtual microphone shares. Ticks sit on a
 * fixed grid of phases (origin + j × frameMs / phases; 4 phases of 5 ms for
 * 20 ms frames) and every stream keeps one phase, its frames due every frameMs
 * from it. One wake-up serves all streams due at that instant: up to
 * STREAMS_PER_PHASE streams share phase 0 (the frame grid itself), so a few
 * streams cost one timer; more open the other phases in turn (spread out:
 * 0, 10, 5, 15 ms), so no tick writes more than its share of frames and the
 * last stream of a busy tick is not late by everyone else's writes. Create one
 * per process (or per suite run) and pass it to whatever opens streams; nothing
 * here is global.
 */
export class Pacer {
  readonly clock: Clock;
  readonly frameMs: number;
  /** Grid origin: every frame is due at originMs + j × phaseMs for some j (phase 0: j a multiple of phases). */
  readonly originMs: number;
  /** Phases per frame, and their spacing. */
  readonly phases: number;
  readonly phaseMs: number;
  private readonly phaseOrder: readonly number[];

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
    if (!(this.frameMs >= 5 && this.frameMs <= 200))
      throw new AudioOptionError('frameMs', this.frameMs, 'a frame length from 5 to 200 ms');
    this.timers = options.timers ?? new PreciseTimerDriver({ clock: this.clock });
    this.originMs = this.clock.now();
    this.phases = Math.max(1, Math.floor(this.frameMs / PHASE_SPACING_MS));
    this.phaseMs = this.frameMs / this.phases;
    this.phaseOrder = spreadOrder(this.phases);
    this.host = {
      clock: this.clock,
      frameMs: this.frameMs,
      silenceFrame: (n) => {
        let frame = this.silence.get(n);
        if (!frame) {
          frame = new Int16Array(n);
          this.silence.set(n, frame);
        }
        return frame;
      },
      recordLateness: (ms) => this.frameLateness.record(ms),
      detach: (s) => {
        this.streams.delete(s);
        if (this.streams.size === 0) this.disarm();
      },
    };
  }

  /**
   * Opens a virtual microphone whose first frame is due on the next tick of its
   * phase (at or after `startAtMs`): the first phase in spread order with room,
   * else the least-loaded one.
   */
  createStream<P = undefined>(options: MicStreamOptions<P>): MicStream<P> {
    if (this.closed) throw new AudioOptionError('pacer', 'closed', 'an open pacer (createStream after close)');
    const want = Math.max(this.clock.now(), options.startAtMs ?? -Infinity);
    const phase = this.choosePhase();
    const first = Math.ceil((want - this.originMs) / this.phaseMs - 1e-9);
    const j = first + ((((phase - first) % this.phases) + this.phases) % this.phases);
    const stream = new MicStream<P>(this.host, options, this.originMs + j * this.phaseMs);
    this.created++;
    this.streams.add(stream as MicStream<unknown>);
    this.arm();
    return stream;
  }

  private choosePhase(): number {
    const load = new Array<number>(this.phases).fill(0);
    for (const s of this.streams) load[this.phaseOf(s.startMs)]++;
    const roomy = this.phaseOrder.find((p) => load[p] < STREAMS_PER_PHASE);
    if (roomy !== undefined) return roomy;
    return this.phaseOrder.reduce((best, p) => (load[p] < load[best] ? p : best));
  }

  private phaseOf(startMs: number): number {
    return ((Math.round((startMs - this.originMs) / this.phaseMs) % this.phases) + this.phases) % this.phases;
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

/**
 * Phases in the order they open: each next one as far as possible from those
 * already open (0, 2, 1, 3 for four), so two busy phases are half a frame apart.
 */
export function spreadOrder(phases: number): number[] {
  const order = [0];
  while (order.length < phases) {
    let best = -1;
    let bestGap = -1;
    for (let p = 0; p < phases; p++) {
      if (order.includes(p)) continue;
      const gap = Math.min(...order.map((q) => Math.min(Math.abs(p - q), phases - Math.abs(p - q))));
      if (gap > bestGap) [best, bestGap] = [p, gap];
    }
    order.push(best);
  }
  return order;
}
