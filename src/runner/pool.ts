/**
 * Works through `items` in order, `concurrency` at a time, taking no new item
 * once `signal` aborts. A worker whose work throws stops; the others finish
 * their items first (allSettled), so nothing they share (the audio engine) is
 * closed under them. Resolves to the first failure, if any, for the caller to
 * throw once it has cleaned up.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ failure: unknown } | null> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!signal?.aborted && next < items.length) await work(items[next++]);
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  return failed ? { failure: failed.reason } : null;
}
