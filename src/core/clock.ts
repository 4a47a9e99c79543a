/**
 * One monotonic clock for every timestamp in a run.
 *
 * Wall-clock time can jump (NTP, suspend); a harness that measures latency in
 * milliseconds cannot. Every component takes a `Clock` so a run's events, audio
 * frames and bot messages share one time axis, and tests can drive time by hand.
 */
export interface Clock {
  /** Milliseconds on a monotonic axis (fractional). Only differences are meaningful. */
  now(): number;
}

export const monotonicClock: Clock = {
  now: () => performance.now(),
};

/** A clock that only moves when told to; for deterministic unit tests. */
export class ManualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}
