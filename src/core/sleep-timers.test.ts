import { describe, expect, it } from 'vitest';
import { nextWaitStep, SleepingTimerDriver } from './sleep-timers.js';

describe('nextWaitStep', () => {
  it('sleeps on a timer until the lead, then blocks for exactly what is left, then fires', () => {
    expect(nextWaitStep(0, 20, 2)).toEqual({ kind: 'timer', ms: 18 });
    expect(nextWaitStep(18.5, 20, 2)).toEqual({ kind: 'block', ms: 1.5 });
    expect(nextWaitStep(18, 20, 2)).toEqual({ kind: 'block', ms: 2 });
    // Woken early by less than a millisecond (libuv counts whole ones): block, no second timer.
    expect(nextWaitStep(17.5, 20, 2)).toEqual({ kind: 'block', ms: 2.5 });
    expect(nextWaitStep(16.5, 20, 2)).toEqual({ kind: 'timer', ms: 1.5 });
    expect(nextWaitStep(20, 20, 2)).toEqual({ kind: 'fire' });
    expect(nextWaitStep(25, 20, 2)).toEqual({ kind: 'fire' });
  });

  it('with no lead blocks only through the last millisecond', () => {
    expect(nextWaitStep(0, 20, 0)).toEqual({ kind: 'timer', ms: 20 });
    expect(nextWaitStep(19.5, 20, 0)).toEqual({ kind: 'block', ms: 0.5 });
    expect(nextWaitStep(20, 20, 0)).toEqual({ kind: 'fire' });
  });

  it('refuses a lead out of range', () => {
    expect(() => new SleepingTimerDriver({ leadMs: -1 })).toThrow(/leadMs/);
    expect(() => new SleepingTimerDriver({ leadMs: 51 })).toThrow(/leadMs/);
  });
});
