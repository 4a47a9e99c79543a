import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock, monotonicClock } from './clock.js';
import { OptionError } from './errors.js';
import { ManualTimerDriver, PreciseTimerDriver, sleepUntil, SystemTimerDriver } from './timers.js';

describe('PreciseTimerDriver (real clock)', () => {
  it('never fires before the deadline, and fires each deadline once', async () => {
    const driver = new PreciseTimerDriver();
    const early: number[] = [];
    const fired: number[] = [];
    const start = monotonicClock.now();
    await Promise.all(
      Array.from({ length: 25 }, (_, k) => {
        const due = start + 5 + k * 7.3;
        return new Promise<void>((resolve) =>
          driver.at(due, () => {
            const now = monotonicClock.now();
            if (now < due) early.push(due - now);
            fired.push(k);
            resolve();
          }),
        );
      }),
    );
    expect(early).toEqual([]);
    expect(fired.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, k) => k));
  });

  it('runs the early work before the deadline, then the callback on it', async () => {
    const driver = new PreciseTimerDriver();
    const due = monotonicClock.now() + 15;
    const order: [string, number][] = [];
    await new Promise<void>((resolve) =>
      driver.at(
        due,
        () => {
          order.push(['deadline', monotonicClock.now() - due]);
          resolve();
        },
        () => order.push(['early', monotonicClock.now() - due]),
      ),
    );
    // (Early work runs before the deadline unless the process was starved past it; the order holds regardless.)
    expect(order.map(([k]) => k)).toEqual(['early', 'deadline']);
    expect(order[0][1]).toBeLessThanOrEqual(order[1][1]);
    expect(order[1][1]).toBeGreaterThanOrEqual(0);
  });

  it('fires a past deadline on the next turn of the event loop, and not at all once cancelled', async () => {
    const driver = new PreciseTimerDriver({ leadMs: 0.5 });
    let past = false;
    await new Promise<void>((resolve) => {
      driver.at(monotonicClock.now() - 10, () => {
        past = true;
        resolve();
      });
      expect(past).toBe(false); // not from inside at(): its caller may still be arming
    });
    expect(past).toBe(true);
    let cancelled = false;
    const cancel = driver.at(monotonicClock.now() + 5, () => (cancelled = true));
    const cancelSpin = driver.at(monotonicClock.now() + 0.2, () => (cancelled = true)); // already polling
    cancel();
    cancelSpin();
    await new Promise((r) => setTimeout(r, 20));
    expect(cancelled).toBe(false);
  });

  it('learns a polling lead from how this machine wakes, within bounds', async () => {
    const driver = new PreciseTimerDriver();
    expect(driver.leadMs).toBe(1.5);
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => driver.at(monotonicClock.now() + 10, r));
    expect(driver.leadMs).toBeGreaterThanOrEqual(0.5);
    expect(driver.leadMs).toBeLessThanOrEqual(4);
    expect(() => new PreciseTimerDriver({ leadMs: -1 })).toThrow(OptionError);
  });
});

describe('ManualTimerDriver', () => {
  it('fires in deadline order, each at exactly its deadline', () => {
    const clock = new ManualClock(0);
    const t = new ManualTimerDriver(clock);
    const seen: [string, number][] = [];
    t.at(30, () => seen.push(['c', clock.now()]));
    t.at(10, () => {
      seen.push(['a', clock.now()]);
      t.at(20, () => seen.push(['b', clock.now()])); // scheduled from a callback, still in order
    });
    t.at(30, () => seen.push(['d', clock.now()]));
    expect(t.nextDueMs()).toBe(10);
    t.advanceTo(100);
    expect(seen).toEqual([
      ['a', 10],
      ['b', 20],
      ['c', 30],
      ['d', 30],
    ]);
    expect(clock.now()).toBe(100);
    expect(t.size).toBe(0);
  });

  it('stall() lets time pass without firing; overdue callbacks then run late', () => {
    const clock = new ManualClock(0);
    const t = new ManualTimerDriver(clock);
    const seen: number[] = [];
    t.at(10, () => seen.push(clock.now()));
    t.stall(25);
    expect(seen).toEqual([]);
    t.fireDue();
    expect(seen).toEqual([25]);
  });
});

describe('SystemTimerDriver (real clock)', () => {
  it('never fires before the deadline (setTimeout may wake early), a past one on a later turn, and not at all once cancelled', async () => {
    const driver = new SystemTimerDriver();
    const early: number[] = [];
    const start = monotonicClock.now();
    await Promise.all(
      Array.from({ length: 10 }, (_, k) => {
        const due = start + 1.5 + k * 2.7;
        return new Promise<void>((resolve) =>
          driver.at(due, () => {
            if (monotonicClock.now() < due) early.push(due - monotonicClock.now());
            resolve();
          }),
        );
      }),
    );
    expect(early).toEqual([]);
    let past = false;
    const fired = new Promise<void>((resolve) =>
      driver.at(monotonicClock.now() - 10, () => {
        past = true;
        resolve();
      }),
    );
    expect(past).toBe(false);
    await fired;
    let cancelled = false;
    driver.at(monotonicClock.now() + 2, () => (cancelled = true))();
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBe(false);
  });
});

describe('sleepUntil', () => {
  it('wakes at the deadline on manual time, and an abort ends the wait, its timer and its listener', async () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimerDriver(clock);
    await timers.run(sleepUntil(timers, 250));
    expect(clock.now()).toBe(250);

    const controller = new AbortController();
    const signal = controller.signal;
    // A wait that ends normally takes its listener with it (a long session sleeps many times on one signal).
    const waiting = sleepUntil(timers, 300, signal);
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await timers.run(waiting);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    const aborted = sleepUntil(timers, 10_000, signal);
    expect(timers.size).toBe(1);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(timers.size).toBe(0);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await expect(sleepUntil(timers, 0, signal)).rejects.toThrow('stop');
    expect(timers.size).toBe(0);
  });
});

describe('ManualTimerDriver.run', () => {
  it('moves the clock from deadline to deadline until the work settles, and refuses work that waits on something else', async () => {
    const clock = new ManualClock(1000);
    const timers = new ManualTimerDriver(clock);
    const steps: number[] = [];
    const work = async (): Promise<string> => {
      for (let i = 0; i < 3; i++) {
        await sleepUntil(timers, clock.now() + 100);
        steps.push(clock.now());
      }
      return 'done';
    };
    await expect(timers.run(work())).resolves.toBe('done');
    expect(steps).toEqual([1100, 1200, 1300]);
    await expect(timers.run(new Promise(() => undefined))).rejects.toThrow(/something other than this driver's timers/);
  });
});
