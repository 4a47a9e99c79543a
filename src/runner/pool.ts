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
 * for the caller to throw once it has cleaned up.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
  capOf?: (item: T) => PoolCap | undefined,
): Promise<{ failure: unknown } | null> {
  const pending = [...items];
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
        await work(item);
      } finally {
        if (cap) active.set(cap.key, (active.get(cap.key) ?? 1) - 1);
        const wake = waiting;
        waiting = [];
        wake.forEach((w) => w());
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  return failed ? { failure: failed.reason } : null;
}
