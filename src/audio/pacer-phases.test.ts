import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import { Pacer, spreadOrder, STREAMS_PER_PHASE } from './pacer.js';
import type { PacedFrame } from './mic-types.js';

const RATE = 16000;

/** A pacer on manual time whose every stream logs (stream label, due time) per frame sent. */
function setup() {
  const clock = new ManualClock(0);
  const timers = new ManualTimerDriver(clock);
  const pacer = new Pacer({ clock, timers });
  const sent: { label: string; dueMs: number }[] = [];
  const open = (label: string) =>
    pacer.createStream({ sampleRate: RATE, label, sink: (f: PacedFrame) => void sent.push({ label, dueMs: f.dueMs }) });
  return { clock, timers, pacer, sent, open };
}

describe('pacer: phases within a frame', () => {
  it('opens phases farthest from the open ones first', () => {
    expect(spreadOrder(1)).toEqual([0]);
    expect(spreadOrder(2)).toEqual([0, 1]);
    expect(spreadOrder(4)).toEqual([0, 2, 1, 3]);
    expect(new Set(spreadOrder(7)).size).toBe(7);
  });

  it('keeps a few streams on the frame grid, one timer for all of them', () => {
    const { pacer, timers, open } = setup();
    const starts = Array.from({ length: STREAMS_PER_PHASE }, (_, i) => open(`s${i}`).startMs);
    expect(starts).toEqual(Array(STREAMS_PER_PHASE).fill(0));
    expect(pacer.phases).toBe(4);
    expect(timers.size).toBe(1);
  });

  it('spreads many streams over the phases, so no tick writes more than its share of frames', () => {
    const { timers, sent, open, clock } = setup();
    const streams = Array.from({ length: 4 * STREAMS_PER_PHASE + 2 }, (_, i) => open(`s${i}`));
    // Phase 0, then 10 ms (half a frame away), then 5 and 15 ms; the two beyond a full house go to the least loaded, in the same order.
    const byStart = new Map<number, number>();
    for (const s of streams) byStart.set(s.startMs, (byStart.get(s.startMs) ?? 0) + 1);
    expect([...byStart]).toEqual([
      [0, STREAMS_PER_PHASE + 1],
      [10, STREAMS_PER_PHASE + 1],
      [5, STREAMS_PER_PHASE],
      [15, STREAMS_PER_PHASE],
    ]);
    timers.advanceTo(200);
    expect(clock.now()).toBe(200);
    const perTick = new Map<number, number>();
    for (const f of sent) perTick.set(f.dueMs, (perTick.get(f.dueMs) ?? 0) + 1);
    expect(Math.max(...perTick.values())).toBe(STREAMS_PER_PHASE + 1);
    // Every stream still sends one frame per 20 ms from its own start: nothing lost to the phases.
    for (const s of streams) {
      const due = sent.filter((f) => f.label === s.label).map((f) => f.dueMs);
      expect(due[0]).toBe(s.startMs);
      expect(due.every((d, i) => d === s.startMs + 20 * i)).toBe(true);
    }
  });

  it('gives a freed place on the frame grid to the next stream', () => {
    const { open, clock, timers } = setup();
    const first = Array.from({ length: STREAMS_PER_PHASE }, (_, i) => open(`a${i}`));
    expect(open('b').startMs).toBe(10);
    first[0].close();
    clock.set(33);
    timers.advanceTo(33);
    expect(open('c').startMs).toBe(40);
  });
});
