import { describe, expect, it } from 'vitest';
import { AdaptiveLead, nextWaitStep, SleepingTimerDriver } from './sleep-timers.js';

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

  it("learns the lead: wider at once after a late wake, back to the window's worst after 256 wakes, within 1–5 ms", () => {
    const lead = new AdaptiveLead();
    expect(lead.ms).toBe(2);
    lead.learn(0.2);
    expect(lead.ms).toBe(2);
    lead.learn(3);
    expect(lead.ms).toBe(3.5);
    lead.learn(20);
    expect(lead.ms).toBe(5);
    // The window that held the 20 ms wake keeps the lead wide; the next, all early, narrows it to the floor.
    for (let i = 0; i < 253; i++) lead.learn(0.1);
    expect(lead.ms).toBe(5);
    for (let i = 0; i < 256; i++) lead.learn(0.1);
    expect(lead.ms).toBe(1);
    for (let i = 0; i < 256; i++) lead.learn(i === 100 ? 1.2 : 0.1);
    expect(lead.ms).toBeCloseTo(1.7, 9);
    expect(new SleepingTimerDriver().leadMs).toBe(2);
    expect(new SleepingTimerDriver({ leadMs: 3 }).leadMs).toBe(3);
  });

  it('refuses a lead out of range', () => {
    expect(() => new SleepingTimerDriver({ leadMs: -1 })).toThrow(/leadMs/);
    expect(() => new SleepingTimerDriver({ leadMs: 51 })).toThrow(/leadMs/);
  });
});
