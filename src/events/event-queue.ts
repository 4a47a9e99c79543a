import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import type { EarshotEvent } from '../results/events.js';
import type { EventName } from '../scenario/events.js';

export class DeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super('deadline passed');
    this.name = 'DeadlineError';
  }
}

/** Why the stream ended: the bot hung up, or it broke the protocol and the session gave up on it. */
export type QueueEndKind = 'bot_disconnected' | 'protocol_error';

/** The stream ended while the matcher waited: no (trustworthy) event can arrive any more. */
export class QueueClosedError extends Error {
  constructor(
    readonly why: string,
    readonly kind: QueueEndKind = 'bot_disconnected',
  ) {
    super(why);
    this.name = 'QueueClosedError';
  }
}

/**
 * What a driver and its matcher read from the queue: take events, wait for one, look at what was seen. Pushing and
 * closing stay with the session that owns the queue.
 */
export interface EventView {
  /** Every event observed so far, in arrival order (what the bot said, did and called). */
  readonly seen: readonly EarshotEvent[];
  /** Why the stream ended, once it has (no event can arrive any more); null while it is open. */
  readonly closedReason: string | null;
  /**
   * Takes events until one satisfies `accept` (passed-over events go to `onSkip`, else are dropped); rejects with
   * DeadlineError at `deadlineMs` (clock time) or QueueClosedError once the stream has ended.
   */
  next(
    accept: (e: EarshotEvent) => boolean,
    deadlineMs: number,
    signal?: AbortSignal,
    onSkip?: (e: EarshotEvent) => void,
  ): Promise<EarshotEvent>;
  /** The latest arrival (session ms) of `name`, waiting until `deadlineMs` for a first one; rejects as `next`. */
  whenSeen(name: EventName, deadlineMs: number, signal?: AbortSignal): Promise<number>;
  /** The latest arrival (session ms) of `name`, if one came. */
  latest(name: EventName): number | undefined;
}

/**
 * The events a session observed, in arrival order, consumed by one matcher.
 *
 * Events the matcher passes over while looking for the one it expects are
 * dropped, as in Pipecat's harness: a scenario does not have to enumerate every
 * event the bot emits. What was seen stays in `seen` (for results and
 * timelines) and in `latest` (for `send_after` anchors) regardless.
 */
export class EventQueue implements EventView {
  private items: EarshotEvent[] = [];
  private head = 0;
  private wake: (() => void) | null = null;
  private closedWhy: string | null = null;
  private closedKind: QueueEndKind = 'bot_disconnected';
  private seenWaiters: Array<{ name: EventName; resolve: () => void }> = [];
  private readonly latestAt = new Map<EventName, number>();
  /** Every event observed, capped so a flooding bot cannot exhaust memory. */
  readonly seen: EarshotEvent[] = [];
  seenDropped = 0;

  /** Deadlines are on `clock`; waits sleep on `timers` (a plain driver: a wait ends on a push or at its deadline). */
  constructor(
    private readonly clock: Clock,
    private readonly timers: TimerDriver,
    private readonly maxSeen = 20_000,
    private readonly maxQueued = 50_000,
  ) {}

  push(event: EarshotEvent): void {
    this.latestAt.set(event.name, event.at_ms);
    if (this.seenWaiters.length) {
      const ready = this.seenWaiters.filter((w) => w.name === event.name);
      this.seenWaiters = this.seenWaiters.filter((w) => w.name !== event.name);
      for (const w of ready) w.resolve();
    }
    if (this.seen.length < this.maxSeen) this.seen.push(event);
    else this.seenDropped++;
    if (this.items.length - this.head >= this.maxQueued) {
      // A flood the matcher cannot keep up with: the oldest queued events are the
      // least likely to matter (the turn is matching newer output).
      this.head++;
    }
    this.items.push(event);
    this.wake?.();
  }

  /** Marks the stream as ended (bot disconnected); waiting matchers fail at once. */
  close(why: string, kind: QueueEndKind = 'bot_disconnected'): void {
    if (this.closedWhy === null) {
      this.closedWhy = why;
      this.closedKind = kind;
    }
    this.wake?.();
    const waiters = this.seenWaiters;
    this.seenWaiters = [];
    for (const w of waiters) w.resolve();
  }

  /**
   * Resolves with the latest arrival time of `name` once one has been seen (at
   * once if one already was), or rejects with DeadlineError / QueueClosedError.
   */
  async whenSeen(name: EventName, deadlineMs: number, signal?: AbortSignal): Promise<number> {
    for (;;) {
      const at = this.latestAt.get(name);
      if (at !== undefined) return at;
      if (this.closedWhy !== null) throw new QueueClosedError(this.closedWhy, this.closedKind);
      if (deadlineMs - this.clock.now() <= 0) throw new DeadlineError(deadlineMs);
      await new Promise<void>((resolve, reject) => {
        const entry = { name, resolve: () => finish(resolve) };
        const cancel = this.timers.at(deadlineMs, () => finish(resolve));
        const onAbort = (): void => finish(() => reject(signal?.reason));
        const finish = (then: () => void): void => {
          cancel();
          signal?.removeEventListener('abort', onAbort);
          this.seenWaiters = this.seenWaiters.filter((w) => w !== entry);
          then();
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.seenWaiters.push(entry);
      });
    }
  }

  get closedReason(): string | null {
    return this.closedWhy;
  }

  /** Arrival time of the most recent event of this name, in session ms. */
  latest(name: EventName): number | undefined {
    return this.latestAt.get(name);
  }

  get pending(): number {
    return this.items.length - this.head;
  }

  /** Drops queued events except those `keep` accepts; returns how many were dropped. */
  dropPending(keep: (e: EarshotEvent) => boolean): number {
    const kept = this.items.slice(this.head).filter(keep);
    const dropped = this.items.length - this.head - kept.length;
    this.items = kept;
    this.head = 0;
    return dropped;
  }

  /**
   * Pops events until one satisfies `accept`; passed-over events go to `onSkip`
   * (dropped by default). Rejects with DeadlineError at `deadlineMs` (session
   * clock) and with QueueClosedError once the stream has ended and is drained.
   */
  async next(
    accept: (e: EarshotEvent) => boolean,
    deadlineMs: number,
    signal?: AbortSignal,
    onSkip?: (e: EarshotEvent) => void,
  ): Promise<EarshotEvent> {
    for (;;) {
      while (this.head < this.items.length) {
        const event = this.items[this.head++];
        if (this.head > 1024 && this.head * 2 > this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        if (accept(event)) return event;
        onSkip?.(event);
      }
      if (this.closedWhy !== null) throw new QueueClosedError(this.closedWhy, this.closedKind);
      if (deadlineMs - this.clock.now() <= 0) throw new DeadlineError(deadlineMs);
      await this.waitForPush(deadlineMs, signal);
    }
  }

  /** Sleeps until a push (or close) wakes it, or until the deadline. */
  private waitForPush(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const done = (): void => {
        cancel();
        signal?.removeEventListener('abort', onAbort);
        this.wake = null;
        resolve();
      };
      const onAbort = (): void => {
        cancel();
        this.wake = null;
        reject(signal?.reason);
      };
      const cancel = this.timers.at(deadlineMs, done);
      this.wake = done;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
