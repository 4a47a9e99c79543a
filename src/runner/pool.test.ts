import { describe, expect, it } from 'vitest';
import { runPool } from './pool.js';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';

/** Items that finish when the test says so, recording what ran at once. */
function tracker() {
  const running = new Set<string>();
  const release = new Map<string, () => void>();
  const started: string[] = [];
  let most = 0;
  const work = (item: string): Promise<void> =>
    new Promise<void>((resolve) => {
      started.push(item);
      running.add(item);
      most = Math.max(most, running.size);
      release.set(item, () => {
        running.delete(item);
        resolve();
      });
    });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { running, release, started, work, settle, most: () => most };
}

describe('runPool', () => {
  it("holds an entry's capped runs to its own concurrency while uncapped runs take the free slots", async () => {
    const t = tracker();
    const items = ['a1', 'a2', 'a3', 'b1', 'b2'];
    const done = runPool(items, 3, t.work, undefined, (item) =>
      item.startsWith('a') ? { key: 'a', limit: 1 } : undefined,
    );
    await t.settle();
    // a1 holds entry a's one slot; a2 and a3 wait without holding suite slots, so b1 and b2 start.
    expect([...t.running].sort()).toEqual(['a1', 'b1', 'b2']);
    t.release.get('b1')!();
    await t.settle();
    expect([...t.running].sort()).toEqual(['a1', 'b2']);
    t.release.get('a1')!();
    await t.settle();
    expect([...t.running].sort()).toEqual(['a2', 'b2']);
    t.release.get('a2')!();
    t.release.get('b2')!();
    await t.settle();
    expect([...t.running]).toEqual(['a3']);
    t.release.get('a3')!();
    await expect(done).resolves.toBeNull();
    expect(t.started).toEqual(['a1', 'b1', 'b2', 'a2', 'a3']);
    expect(t.most()).toBe(3);
  });

  it('takes items in order, concurrency at a time, without caps', async () => {
    const t = tracker();
    const done = runPool(['x', 'y', 'z'], 2, t.work);
    await t.settle();
    expect([...t.running]).toEqual(['x', 'y']);
    t.release.get('y')!();
    await t.settle();
    expect([...t.running]).toEqual(['x', 'z']);
    t.release.get('x')!();
    t.release.get('z')!();
    await expect(done).resolves.toBeNull();
  });
});

describe('runPool with staggered starts', () => {
  it('starts at most `burst` items per interval on manual time, then as slots free', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimerDriver(clock);
    const t = tracker();
    const startedAt = new Map<string, number>();
    const work = (item: string): Promise<void> => {
      startedAt.set(item, clock.now());
      return t.work(item);
    };
    const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const done = runPool(items, 8, work, undefined, undefined, { burst: 2, intervalMs: 250, clock, timers });
    await t.settle();
    expect(t.started).toEqual(['a', 'b']);
    timers.advanceTo(249);
    await t.settle();
    expect(t.started).toEqual(['a', 'b']);
    for (const ms of [250, 500, 750]) {
      timers.advanceTo(ms);
      await t.settle();
    }
    expect(Object.fromEntries(startedAt)).toEqual({ a: 0, b: 0, c: 250, d: 250, e: 500, f: 500, g: 750 });
    // The longest-first order is kept: the stagger delays starts, it does not reorder them.
    expect(t.started).toEqual(items);
    items.forEach((i) => {
      t.release.get(i)!();
    });
    await expect(done).resolves.toBeNull();
  });

  it('does not delay a start once the earlier starts are an interval old', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimerDriver(clock);
    const t = tracker();
    const done = runPool(['a', 'b', 'c'], 1, t.work, undefined, undefined, {
      burst: 1,
      intervalMs: 250,
      clock,
      timers,
    });
    await t.settle();
    clock.advance(1000); // a ran long
    t.release.get('a')!();
    await t.settle();
    expect(t.started).toEqual(['a', 'b']);
    t.release.get('b')!(); // b ended at once: c waits for b's interval
    await t.settle();
    expect(t.started).toEqual(['a', 'b']);
    timers.advanceTo(1250);
    await t.settle();
    expect(t.started).toEqual(['a', 'b', 'c']);
    t.release.get('c')!();
    await expect(done).resolves.toBeNull();
  });

  it('starts nothing more once aborted while an item waits its turn', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimerDriver(clock);
    const t = tracker();
    const controller = new AbortController();
    const done = runPool(['a', 'b'], 2, t.work, controller.signal, undefined, {
      burst: 1,
      intervalMs: 250,
      clock,
      timers,
    });
    await t.settle();
    controller.abort();
    await t.settle();
    timers.advanceTo(1000);
    await t.settle();
    expect(t.started).toEqual(['a']);
    t.release.get('a')!();
    await expect(done).resolves.toBeNull();
  });
});
