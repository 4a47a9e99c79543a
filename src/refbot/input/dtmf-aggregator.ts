/**
 * Aggregates DTMF keys into one `DTMF: 123#` entry, as Pipecat's
 * DTMFAggregator does for a bot: the entry is flushed at once on the
 * terminator key (`#`), or when no key has arrived for the idle timeout
 * (2 s, Pipecat's default). Time comes from an injected clock and scheduler so
 * tests drive it by hand.
 */
import { monotonicClock, type Clock } from '../../core/clock.js';
import { EarshotError } from '../../core/errors.js';

/** Pipecat's DTMFAggregator default idle timeout (`timeout=2.0` seconds). */
export const DEFAULT_DTMF_IDLE_TIMEOUT_MS = 2000;
export const DTMF_KEYS = '0123456789*#';

export class DtmfKeyError extends EarshotError {
  readonly key: string;
  constructor(key: string) {
    super(`not a DTMF key: ${JSON.stringify(key)} (expected one of ${DTMF_KEYS.split('').join(' ')})`);
    this.name = 'DtmfKeyError';
    this.key = key;
  }
}

/** Runs `fn` after `delayMs`; returns a function that cancels it. */
export interface Scheduler {
  setTimer(fn: () => void, delayMs: number): () => void;
}

export const realScheduler: Scheduler = {
  setTimer(fn, delayMs) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return () => clearTimeout(handle);
  },
};

/**
 * A scheduler driven by a ManualClock-like clock: `advance(ms)` moves the
 * clock and fires every timer that came due, in due order.
 */
export class ManualScheduler implements Scheduler {
  private timers: Array<{ dueMs: number; seq: number; fn: () => void }> = [];
  private seq = 0;

  constructor(private readonly clock: { now(): number; set(ms: number): void }) {}

  setTimer(fn: () => void, delayMs: number): () => void {
    const timer = { dueMs: this.clock.now() + Math.max(0, delayMs), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  get pending(): number {
    return this.timers.length;
  }

  advance(ms: number): void {
    const target = this.clock.now() + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.dueMs <= target).sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.clock.set(due.dueMs);
      due.fn();
    }
    this.clock.set(target);
  }
}

export interface DtmfEntry {
  /** What a bot's transcription carries: `DTMF: 123#`. */
  text: string;
  /** The keys pressed, terminator included when it ended the entry. */
  digits: string;
  /** Arrival time of the first and the last key, on the aggregator's clock. */
  firstKeyAtMs: number;
  lastKeyAtMs: number;
  /** `terminator`: the # key; `idle`: the idle timeout; `flush`: flush() was called. */
  reason: 'terminator' | 'idle' | 'flush';
}

export interface DtmfAggregatorOptions {
  onEntry: (entry: DtmfEntry) => void;
  /** The first key of an entry: Pipecat interrupts the bot at this point. */
  onFirstKey?: (key: string, atMs: number) => void;
  idleTimeoutMs?: number;
  terminator?: string;
  prefix?: string;
  clock?: Clock;
  scheduler?: Scheduler;
}

export class DtmfAggregator {
  private digits = '';
  private firstKeyAtMs = 0;
  private lastKeyAtMs = 0;
  private cancelTimer: (() => void) | null = null;
  private disposed = false;
  private readonly idleTimeoutMs: number;
  private readonly terminator: string;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;

  constructor(private readonly options: DtmfAggregatorOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_DTMF_IDLE_TIMEOUT_MS;
    this.terminator = options.terminator ?? '#';
    this.prefix = options.prefix ?? 'DTMF: ';
    this.clock = options.clock ?? monotonicClock;
    this.scheduler = options.scheduler ?? realScheduler;
    if (!(this.idleTimeoutMs > 0))
      throw new EarshotError(`DTMF idle timeout must be positive, got ${this.idleTimeoutMs} ms`);
    if (this.terminator.length !== 1 || !DTMF_KEYS.includes(this.terminator)) throw new DtmfKeyError(this.terminator);
  }

  /** The keys of the entry in progress. */
  get pending(): string {
    return this.digits;
  }

  /**
   * One key, with the time it arrived (defaults to now). The idle timeout
   * runs from the arrival time, so a key handled late still flushes on time.
   */
  press(key: string, atMs: number = this.clock.now()): void {
    if (this.disposed) return;
    if (key.length !== 1 || !DTMF_KEYS.includes(key)) throw new DtmfKeyError(key);
    const first = this.digits === '';
    if (first) this.firstKeyAtMs = atMs;
    this.digits += key;
    this.lastKeyAtMs = atMs;
    if (first) this.options.onFirstKey?.(key, atMs);
    this.cancelTimer?.();
    this.cancelTimer = null;
    if (key === this.terminator) {
      this.emit('terminator');
      return;
    }
    const delayMs = atMs + this.idleTimeoutMs - this.clock.now();
    this.cancelTimer = this.scheduler.setTimer(() => {
      this.cancelTimer = null;
      this.emit('idle');
    }, delayMs);
  }

  /** Sends the entry in progress now (Pipecat flushes on end of session), if any. */
  flush(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.emit('flush');
  }

  /** Drops the entry in progress and stops the timer; later keys are ignored. */
  dispose(): void {
    this.disposed = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.digits = '';
  }

  private emit(reason: DtmfEntry['reason']): void {
    if (this.disposed || this.digits === '') return;
    const entry: DtmfEntry = {
      text: `${this.prefix}${this.digits}`,
      digits: this.digits,
      firstKeyAtMs: this.firstKeyAtMs,
      lastKeyAtMs: this.lastKeyAtMs,
      reason,
    };
    this.digits = '';
    this.options.onEntry(entry);
  }
}
