import { monotonicClock } from './clock.js';
import { sleepUntil, systemTimers } from './timers.js';

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepUntil(systemTimers, monotonicClock.now() + Math.max(0, ms), signal);
}

/**
 * Races `promise` against the signal; the promise keeps running but is no
 * longer awaited. It settles with the signal's reason as soon as it aborts,
 * whatever the work does with the signal: work that misses an abort (or a
 * custom provider that ignores it) must not hold up whoever waits on it.
 */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Nobody awaits the work any more: its own failure must not surface as an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
