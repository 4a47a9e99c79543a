import { describe, expect, it } from 'vitest';
import { InboundQueue } from './inbound-queue.js';

interface Item {
  kind: 'msg';
  n: number;
  at: number;
  bytes: number;
}
const item = (n: number, bytes = 10): Item => ({ kind: 'msg', n, at: n * 100, bytes });
const ns = (xs: Array<{ kind: string; n?: number; dropped?: number }>): Array<number | string> =>
  xs.map((x) => (x.kind === 'overflow' ? `overflow:${x.dropped}` : (x.n as number)));

describe('InboundQueue', () => {
  it('delivers in arrival order', async () => {
    const q = new InboundQueue<Item>(10, 1000);
    q.push(item(1));
    q.push(item(2));
    expect(await q.next()).toEqual(item(1));
    expect(ns(q.drain())).toEqual([2]);
  });

  it('hands an item straight to a waiting reader', async () => {
    const q = new InboundQueue<Item>(1, 1000);
    const waiting = q.next();
    expect(q.push(item(1))).toBe(true);
    expect(await waiting).toEqual(item(1));
    expect(q.stats()).toMatchObject({ queued: 0, delivered: 1 });
  });

  it('when full, drops new arrivals and puts one overflow marker where they would have been', async () => {
    const q = new InboundQueue<Item>(3, 1000);
    for (let n = 1; n <= 7; n++) q.push(item(n));
    expect(q.stats()).toMatchObject({ queued: 3, dropped: 4, droppedBytes: 40 });
    expect(ns([(await q.next())!, (await q.next())!])).toEqual([1, 2]);
    q.push(item(8)); // room again: the marker goes before 8
    q.push(item(9));
    const rest = q.drain();
    expect(ns(rest)).toEqual([3, 'overflow:4', 8, 9]);
    expect(rest[1]).toMatchObject({ kind: 'overflow', dropped: 4, droppedBytes: 40, firstAt: 400, lastAt: 700 });
  });

  it('bounds by bytes as well as by count', () => {
    const q = new InboundQueue<Item>(100, 25);
    expect([q.push(item(1, 10)), q.push(item(2, 10)), q.push(item(3, 10)), q.push(item(4, 5))]).toEqual([
      true,
      true,
      false,
      true,
    ]);
    expect(ns(q.drain())).toEqual([1, 2, 'overflow:1', 4]);
  });

  it('a marker for drops at the very end is still delivered', () => {
    const q = new InboundQueue<Item>(1, 1000);
    q.push(item(1));
    q.push(item(2));
    q.end();
    expect(ns(q.drain())).toEqual([1, 'overflow:1']);
  });

  it('after end, readers get what is queued, then null; pushes are refused', async () => {
    const q = new InboundQueue<Item>(10, 1000);
    q.push(item(1));
    q.end();
    expect(q.push(item(2))).toBe(false);
    expect(await q.next()).toEqual(item(1));
    expect(await q.next()).toBeNull();
  });

  it('end wakes a waiting reader with null', async () => {
    const q = new InboundQueue<Item>(10, 1000);
    const waiting = q.next();
    q.end();
    expect(await waiting).toBeNull();
  });

  it('an aborted read rejects and does not swallow the next item', async () => {
    const q = new InboundQueue<Item>(10, 1000);
    const ac = new AbortController();
    const waiting = q.next(ac.signal);
    ac.abort(new Error('stop waiting'));
    await expect(waiting).rejects.toThrow('stop waiting');
    q.push(item(1));
    expect(await q.next()).toEqual(item(1));
  });

  it('an item handed to a reader in the same tick as its abort is delivered, not lost', async () => {
    const q = new InboundQueue<Item>(10, 1000);
    const ac = new AbortController();
    const waiting = q.next(ac.signal);
    q.push(item(1));
    ac.abort(new Error('too late'));
    expect(await waiting).toEqual(item(1));
  });
});
