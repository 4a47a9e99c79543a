import { monotonicClock, type Clock, type ManualClock } from './clock.js';
import { OptionError } from './errors.js';
import { DurationHistogram, type DurationSummary } from './histogram.js';

/**
 * When timed callbacks run: the one timer seam of the harness, injected next
 * to the `Clock` wherever something waits. Real time uses `SystemTimerDriver`
 * (plain `setTimeout`: event-queue deadlines, `send_after`, polls) or, where a
 * millisecond matters (the pacer's frame deadlines), `PreciseTimerDriver`;
 * unit tests use `ManualTimerDriver`, which fires callbacks exactly when a test
 * moves a `ManualClock`, or late when the test says the event loop stalled.
 */
export interface TimerDriver {
  /**
   * Calls `callback` once the clock reaches `atMs`, as soon after as the driver
   * can. `early`, if given, runs shortly before the deadline (when the driver
   * wakes to wait precisely): work that can be done ahead, so that less is left
   * to do on the deadline. Returns a cancel function. Never calls back from
   * inside `at` itself, even for a past deadline: the caller is still arming.
   */
  at(atMs: number, callback: () => void, early?: () => void): () => void;
}

/**
 * Plain `setTimeout`, one per wait and no polling: for waits where a
 * millisecond of jitter changes nothing. `setTimeout` may wake up to a
 * millisecond early against `performance.now()`; the driver then sleeps the
 * rest, so a callback never runs before its clock reaches the deadline.
 */
export class SystemTimerDriver implements TimerDriver {
  constructor(readonly clock: Clock = monotonicClock) {}

  at(atMs: number, callback: () => void, early?: () => void): () => void {
    let handle: NodeJS.Timeout | null = null;
    const fire = (): void => {
      const left = atMs - this.clock.now();
      if (left > 0) {
        handle = setTimeout(fire, Math.ceil(left));
        return;
      }
      handle = null;
      early?.();
      callback();
    };
    // Even a past deadline goes through setTimeout: the caller is still arming.
    handle = setTimeout(fire, Math.max(0, Math.ceil(atMs - this.clock.now())));
    return () => {
      if (handle) clearTimeout(handle);
      handle = null;
    };
  }
}

/** Plain timers on the monotonic clock, for code that has no driver injected (`sleep`). */
export const systemTimers: TimerDriver = new SystemTimerDriver();

/**
 * Resolves once `timers` reaches `atMs` (on a later turn of the event loop if
 * it already has), or rejects with the signal's reason as soon as it aborts.
 * Either way the timer and the abort listener go with the wait.
 */
export function sleepUntil(timers: TimerDriver, atMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = timers.at(atMs, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface PreciseTimerOptions {
  clock?: Clock;
  /**
   * How long before a deadline the driver stops sleeping (and runs the `early`
   * work, then polls). `auto` (the default) learns it on this machine from how
   * late `setTimeout` wakes and how long the `early` work takes, so precision
   * costs only as much polling as it needs.
   */
  leadMs?: number | 'auto';
}

const LEAD_MIN_MS = 0.5;
const LEAD_MAX_MS = 4;
const LEAD_START_MS = 1.5;
const LEAD_HEADROOM_MS = 0.3;
const WINDOW = 256;
/** The last stretch is waited out synchronously: one more event-loop turn could overshoot it. */
const FINAL_WAIT_MS = 0.05;

/**
 * `setTimeout` in Node wakes anywhere from about 1 ms early to 1 ms late (libuv
 * keeps whole-millisecond loop time), and later still when the process is busy.
 * This driver sleeps with `setTimeout` until `leadMs` before the deadline, runs
 * the caller's `early` work, then polls the clock with `setImmediate` until the
 * deadline passes. Polling through `setImmediate` (not a busy loop) keeps the
 * event loop turning: socket reads and their arrival timestamps are not held up
 * while the driver waits.
 *
 * With `leadMs: 'auto'` it measures, on every wake, how far into the lead the
 * driver was once awake and done with the early work; every 256 wakes the lead
 * becomes the worst of them plus headroom, and it is widened at once whenever
 * a wake comes closer to the deadline than the headroom.
 */
export class PreciseTimerDriver implements TimerDriver {
  private readonly clock: Clock;
  private readonly adaptive: boolean;
  private lead: number;
  private readonly used = new Float64Array(WINDOW);
  private count = 0;
  private readonly wakeUsed = new DurationHistogram();

  constructor(options: PreciseTimerOptions = {}) {
    this.clock = options.clock ?? monotonicClock;
    const lead = options.leadMs ?? 'auto';
    if (lead !== 'auto' && !(lead >= 0 && lead <= 50))
      throw new OptionError('timer', 'leadMs', lead, "'auto' or 0..50 ms");
    this.adaptive = lead === 'auto';
    this.lead = lead === 'auto' ? LEAD_START_MS : lead;
  }

  /** How far ahead of a deadline the driver wakes now. */
  get leadMs(): number {
    return this.lead;
  }

  /**
   * How much of the lead each wake used up (timer lateness plus early work); above `leadMs`, the deadline was missed.
   */
  wakeStats(): DurationSummary {
    return this.wakeUsed.summary();
  }

  at(atMs: number, callback: () => void, early?: () => void): () => void {
    let cancelled = false;
    let timeout: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const poll = (): void => {
      immediate = undefined;
      if (cancelled) return;
      if (atMs - this.clock.now() > FINAL_WAIT_MS) {
        immediate = setImmediate(poll);
        return;
      }
      // At most FINAL_WAIT_MS of busy waiting (bounded, should a clock stand still).
      for (let i = 0; i < 1e6 && this.clock.now() < atMs; i++);
      callback();
    };
    const wakeAt = atMs - this.lead;
    const wake = (slept: boolean): void => {
      early?.();
      if (slept) this.learn(this.clock.now() - wakeAt);
      poll();
    };
    const sleepMs = wakeAt - this.clock.now();
    // Never call back from inside `at` itself: the caller is still arming.
    if (sleepMs <= 0) immediate = setImmediate(() => wake(false));
    else {
      timeout = setTimeout(() => {
        timeout = undefined;
        wake(true);
      }, sleepMs);
    }
    return () => {
      cancelled = true;
      if (timeout) clearTimeout(timeout);
      if (immediate) clearImmediate(immediate);
    };
  }

  /** `usedMs`: how much of the lead was gone once awake and done with the early work. */
  private learn(usedMs: number): void {
    this.wakeUsed.record(usedMs);
    if (!this.adaptive) return;
    this.used[this.count++ % WINDOW] = usedMs;
    if (usedMs + LEAD_HEADROOM_MS > this.lead) this.lead = clampLead(usedMs + LEAD_HEADROOM_MS);
    else if (this.count % WINDOW === 0) {
      // The worst wake of the last window (about 5 s of ticks): a missed
      // deadline costs every stream on the tick, a longer lead only polling.
      let worst = -Infinity;
      for (const u of this.used) worst = Math.max(worst, u);
      this.lead = clampLead(worst + LEAD_HEADROOM_MS);
    }
  }
}

function clampLead(ms: number): number {
  return Math.min(LEAD_MAX_MS, Math.max(LEAD_MIN_MS, ms));
}

interface PendingTimer {
  atMs: number;
  seq: number;
  callback: () => void;
  early: (() => void) | undefined;
  earlyDone: boolean;
}

/**
 * Deterministic timers over a `ManualClock`. `advanceTo` fires each due callback
 * with the clock set to exactly its deadline (a perfect machine), and its
 * `early` work `leadMs` before; `stall` moves the clock without firing anything
 * (a blocked event loop), so the next `advanceTo`/`fireDue` runs the overdue
 * callbacks late, as they would run.
 */
export class ManualTimerDriver implements TimerDriver {
  private pending: PendingTimer[] = [];
  private seq = 0;

  constructor(
    readonly clock: ManualClock,
    readonly leadMs = 0,
  ) {}

  at(atMs: number, callback: () => void, early?: () => void): () => void {
    const timer: PendingTimer = { atMs, seq: this.seq++, callback, early, earlyDone: early === undefined };
    this.pending.push(timer);
    return () => {
      this.pending = this.pending.filter((t) => t !== timer);
    };
  }

  /** Deadlines waiting to fire. */
  get size(): number {
    return this.pending.length;
  }

  nextDueMs(): number | null {
    let best: number | null = null;
    for (const t of this.pending) if (best === null || t.atMs < best) best = t.atMs;
    return best;
  }

  advanceTo(toMs: number): void {
    for (;;) {
      const next = this.takeNext(toMs);
      if (!next) break;
      const t = fireTime(next, this.leadMs);
      if (t > this.clock.now()) this.clock.set(t);
      if (!next.earlyDone) {
        next.earlyDone = true;
        next.early?.();
        continue;
      }
      this.pending = this.pending.filter((p) => p !== next);
      next.callback();
    }
    if (toMs > this.clock.now()) this.clock.set(toMs);
  }

  advance(ms: number): void {
    this.advanceTo(this.clock.now() + ms);
  }

  /** The event loop was blocked for `ms`: time passes, nothing fires. */
  stall(ms: number): void {
    this.clock.advance(ms);
  }

  /** Runs everything already due, at the current (possibly late) time. */
  fireDue(): void {
    this.advanceTo(this.clock.now());
  }

  /**
   * Drives `work` on manual time: whenever it has nothing left to do but wait
   * on this driver's timers, the clock jumps to the next deadline, so a test
   * of code that waits seconds runs in microseconds. The work must wait on
   * nothing but these timers and promises; one that waits on anything else
   * (a socket, a real `setTimeout`) is refused rather than left to hang.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      // Promise continuations run before an immediate: the work has done all it can at this time.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (settled) return work;
      const next = this.nextDueMs();
      if (next === null)
        throw new Error("ManualTimerDriver.run: the work waits on something other than this driver's timers");
      this.advanceTo(Math.max(next, this.clock.now()));
    }
  }

  private takeNext(limitMs: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    let bestT = Infinity;
    for (const t of this.pending) {
      const ft = fireTime(t, this.leadMs);
      if (ft <= limitMs && (!best || ft < bestT || (ft === bestT && t.seq < best.seq))) {
        best = t;
        bestT = ft;
      }
    }
    return best;
  }
}

/** When the manual driver runs a timer's next step: its early work `leadMs` ahead, then the deadline. */
function fireTime(t: PendingTimer, leadMs: number): number {
  return t.earlyDone ? t.atMs : t.atMs - leadMs;
}
