import type { Clock } from '../core/clock.js';
import { sleepUntil, type TimerDriver } from '../core/timers.js';

/**
 * Spreads the starts of items over time: at most `burst` starts in any
 * `intervalMs`. Starting a bot costs CPU (a reference bot ~250 ms of it);
 * eight started at once on two cores each take four times as long to accept
 * connections, so the longest scenario's bot is late and the suite's wall
 * time stretches. With `burst` = the cores and `intervalMs` ≈ one bot's start
 * CPU, starts queue for the cores instead of sharing them.
 */
export interface StartStagger {
  burst: number;
  intervalMs: number;
  clock: Clock;
  timers: TimerDriver;
}

/** The start times handed out so far; `next()` waits for the next free slot. */
export class StartGate {
  private readonly starts: number[] = [];
  constructor(private readonly stagger: StartStagger) {}

  /** When the next start may happen: now, or `intervalMs` after the start `burst` places before it. */
  nextSlot(): number {
    const now = this.stagger.clock.now();
    const { burst, intervalMs } = this.stagger;
    const ref = this.starts.length >= burst ? this.starts[this.starts.length - burst] + intervalMs : now;
    return Math.max(now, ref);
  }

  async next(signal?: AbortSignal): Promise<void> {
    const at = this.nextSlot();
    this.starts.push(at);
    if (at > this.stagger.clock.now()) await sleepUntil(this.stagger.timers, at, signal);
  }
}

/** A limit shared by the items with the same key (a suite entry's own `concurrency:`). */
export interface PoolCap {
  key: string;
  limit: number;
}

/**
 * Works through `items` in order, `concurrency` at a time, taking no new item
 * once `signal` aborts. An item whose `capOf` key already has `limit` items
 * running waits, and the next item that may start goes first, so a capped
 * entry holds no slot while it waits. A worker whose work throws stops; the
 * others finish their items first (allSettled), so nothing they share (the
 * audio engine) is closed under them. Resolves to the first failure, if any,
 * for the caller to throw once it has cleaned up. With `stagger`, items start
 * no faster than it allows (the first `burst` at once).
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
  capOf?: (item: T) => PoolCap | undefined,
  stagger?: StartStagger,
): Promise<{ failure: unknown } | null> {
  const pending = [...items];
  const gate = stagger && stagger.intervalMs > 0 ? new StartGate(stagger) : undefined;
  const active = new Map<string, number>();
  let waiting: (() => void)[] = [];
  const take = (): T | undefined => {
    const i = pending.findIndex((item) => {
      const cap = capOf?.(item);
      return !cap || (active.get(cap.key) ?? 0) < cap.limit;
    });
    return i < 0 ? undefined : pending.splice(i, 1)[0];
  };
  const worker = async (): Promise<void> => {
    while (!signal?.aborted && pending.length > 0) {
      const item = take();
      if (item === undefined) {
        // Every item left is capped, and each cap is full: a running item frees one.
        await new Promise<void>((wake) => waiting.push(wake));
        continue;
      }
      const cap = capOf?.(item);
      if (cap) active.set(cap.key, (active.get(cap.key) ?? 0) + 1);
      try {
        if (gate) {
          try {
            await gate.next(signal);
          } catch {
            pending.unshift(item); // aborted while waiting its turn: it never started
            continue;
          }
        }
        await work(item);
      } finally {
        if (cap) active.set(cap.key, (active.get(cap.key) ?? 1) - 1);
        const wake = waiting;
        waiting = [];
        wake.forEach((w) => {
          w();
        });
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  return failed ? { failure: failed.reason } : null;
}
