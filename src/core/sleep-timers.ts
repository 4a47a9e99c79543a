import { monotonicClock, type Clock } from './clock.js';
import { OptionError } from './errors.js';
import { DurationHistogram, type DurationSummary } from './histogram.js';
import type { TimerDriver } from './timers.js';

/** What the sleeping driver does next for a deadline, from the time now. */
export type WaitStep =
  /** Far off: an ordinary timer until `leadMs` before the deadline (the event loop turns meanwhile). */
  | { kind: 'timer'; ms: number }
  /** Within the lead: run the early work, then block the thread until the deadline. */
  | { kind: 'block'; ms: number }
  /** Due or overdue: fire now. */
  | { kind: 'fire' };

/**
 * Shorter than this, a timer is not worth setting: libuv counts whole
 * milliseconds, so a timer often wakes up to 1 ms early, and a second timer for
 * the remainder (which Node rounds up to 1 ms) costs a whole extra wake-up.
 * Blocking through the remainder costs nothing.
 */
export const MIN_TIMER_MS = 1;

/** The one decision of `SleepingTimerDriver`, apart so it can be tested on numbers. */
export function nextWaitStep(nowMs: number, atMs: number, leadMs: number): WaitStep {
  const left = atMs - nowMs;
  if (left <= 0) return { kind: 'fire' };
  if (left > leadMs + MIN_TIMER_MS) return { kind: 'timer', ms: left - leadMs };
  return { kind: 'block', ms: left };
}

export interface SleepingTimerOptions {
  clock?: Clock;
  /**
   * How long before a deadline the ordinary timer wakes; the block lasts up to
   * `leadMs` + `MIN_TIMER_MS`. `auto` (the default) starts at 2 ms and learns
   * from how late the timer wakes on this machine (`AdaptiveLead`).
   */
  leadMs?: number | 'auto';
}

const LEAD_START_MS = 2;
const LEAD_MIN_MS = 1;
const LEAD_MAX_MS = 5;
const LEAD_HEADROOM_MS = 0.5;
const LEAD_WINDOW = 256;

/**
 * The lead, learned: widened at once when a wake comes within the headroom of
 * the deadline (or past it), and every 256 wakes (about 5 s of ticks) set to
 * the latest wake of that window plus the headroom, within 1–5 ms. A longer
 * lead costs nothing but blocked time; a missed deadline costs every stream
 * on the tick.
 */
export class AdaptiveLead {
  private lead = LEAD_START_MS;
  private readonly window = new Float64Array(LEAD_WINDOW);
  private count = 0;

  get ms(): number {
    return this.lead;
  }

  /** `lateMs`: how far past its wake point (deadline − lead) a timer woke. */
  learn(lateMs: number): void {
    this.window[this.count++ % LEAD_WINDOW] = lateMs;
    if (lateMs + LEAD_HEADROOM_MS > this.lead) this.lead = clampLead(lateMs + LEAD_HEADROOM_MS);
    else if (this.count % LEAD_WINDOW === 0) {
      let worst = -Infinity;
      for (const x of this.window) worst = Math.max(worst, x);
      this.lead = clampLead(worst + LEAD_HEADROOM_MS);
    }
  }
}

function clampLead(ms: number): number {
  return Math.min(LEAD_MAX_MS, Math.max(LEAD_MIN_MS, ms));
}
/** Guards the block loop should the clock stand still. */
const MAX_BLOCKS = 64;

/**
 * A precise timer driver that sleeps instead of polling. It waits with
 * `setTimeout` until `leadMs` before the deadline, runs the `early` work, then
 * blocks the thread in `Atomics.wait` on a private SharedArrayBuffer cell that
 * nobody notifies, with the time left as its timeout: the kernel wakes the
 * thread at the deadline (to within tens of microseconds), and no CPU is spent
 * in between. `PreciseTimerDriver` instead polls with `setImmediate` through
 * the lead, which on the main thread is the right trade (it keeps socket reads
 * flowing) but costs about a tenth of a core for one 20 ms stream.
 *
 * Blocking stops this thread's event loop for up to `leadMs` per deadline, so
 * it is meant for a thread whose only job is to meet deadlines: the pacer
 * thread (src/pacing/). Inbound frames read there wait at most that long.
 */
export class SleepingTimerDriver implements TimerDriver {
  private readonly clock: Clock;
  private readonly fixedLead: number | null;
  private readonly adaptive = new AdaptiveLead();
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  private readonly wakeLate = new DurationHistogram();

  constructor(options: SleepingTimerOptions = {}) {
    this.clock = options.clock ?? monotonicClock;
    const lead = options.leadMs ?? 'auto';
    if (lead !== 'auto' && !(lead >= 0 && lead <= 50))
      throw new OptionError('timer', 'leadMs', lead, "'auto' or 0..50 ms");
    this.fixedLead = lead === 'auto' ? null : lead;
  }

  /** How far ahead of a deadline the driver wakes now. */
  get leadMs(): number {
    return this.fixedLead ?? this.adaptive.ms;
  }

  /** How far past its wake point (deadline − lead) each timer woke: above `leadMs`, the deadline was missed. */
  wakeStats(): DurationSummary {
    return this.wakeLate.summary();
  }

  at(atMs: number, callback: () => void, early?: () => void): () => void {
    let handle: NodeJS.Timeout | undefined;
    let cancelled = false;
    const step = (): void => {
      handle = undefined;
      if (cancelled) return;
      const lead = this.leadMs;
      const first = nextWaitStep(this.clock.now(), atMs, lead);
      if (first.kind === 'timer') {
        handle = setTimeout(step, first.ms);
        return;
      }
      const late = this.clock.now() - (atMs - lead);
      this.wakeLate.record(late);
      if (this.fixedLead === null) this.adaptive.learn(late);
      early?.();
      for (let i = 0; i < MAX_BLOCKS; i++) {
        const s = nextWaitStep(this.clock.now(), atMs, Infinity);
        if (s.kind !== 'block') break;
        Atomics.wait(this.cell, 0, 0, s.ms);
      }
      callback();
    };
    // Even a past deadline goes through a timer: the caller is still arming.
    handle = setTimeout(step, Math.max(0, atMs - this.leadMs - this.clock.now()));
    return () => {
      cancelled = true;
      if (handle) clearTimeout(handle);
    };
  }
}
