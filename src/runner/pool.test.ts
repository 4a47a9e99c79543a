import { describe, expect, it } from 'vitest';
import { runPool } from './pool.js';

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
    const done = runPool(items, 3, t.work, undefined, (item) => (item.startsWith('a') ? { key: 'a', limit: 1 } : undefined));
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
