import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import type { EarshotEvent } from '../results/events.js';
import { DeadlineError, EventQueue, QueueClosedError } from './event-queue.js';

/** The queue on manual time: its deadlines pass exactly when `timers.run` lets them. */
function rig(): { queue: EventQueue; clock: ManualClock; timers: ManualTimerDriver } {
  const clock = new ManualClock(3_000);
  const timers = new ManualTimerDriver(clock);
  return { queue: new EventQueue(clock, timers), clock, timers };
}
const ev = (name: 'llm_started' | 'bot_ready' | 'bot_interrupted', at_ms: number): EarshotEvent => ({ name, at_ms });

describe('event queue waits', () => {
  it('whenSeen answers at once with the latest arrival, else waits for the push, else fails at its deadline', async () => {
    const { queue, clock, timers } = rig();
    queue.push(ev('llm_started', 10));
    queue.push(ev('llm_started', 25));
    await expect(timers.run(queue.whenSeen('llm_started', clock.now()))).resolves.toBe(25);
    timers.at(clock.now() + 400, () => queue.push(ev('bot_ready', 400)));
    await expect(timers.run(queue.whenSeen('bot_ready', clock.now() + 1000))).resolves.toBe(400);
    const start = clock.now();
    await expect(timers.run(queue.whenSeen('bot_interrupted', start + 750))).rejects.toBeInstanceOf(DeadlineError);
    expect(clock.now()).toBe(start + 750);
    expect(timers.size).toBe(0);
  });

  it('next passes over what it does not accept, and a close ends the wait with its kind once the queue is drained', async () => {
    const { queue, clock, timers } = rig();
    const skipped: string[] = [];
    queue.push(ev('bot_ready', 1));
    queue.push(ev('llm_started', 2));
    const got = await timers.run(
      queue.next(
        (e) => e.name === 'llm_started',
        clock.now() + 100,
        undefined,
        (e) => skipped.push(e.name),
      ),
    );
    expect([got.name, skipped]).toEqual(['llm_started', ['bot_ready']]);
    queue.push(ev('bot_interrupted', 3));
    queue.close('garbage frame', 'protocol_error');
    await expect(timers.run(queue.next((e) => e.name === 'bot_interrupted', clock.now() + 100))).resolves.toMatchObject(
      { name: 'bot_interrupted' },
    );
    const closed = timers.run(queue.next(() => true, clock.now() + 100));
    await expect(closed).rejects.toBeInstanceOf(QueueClosedError);
    await expect(closed).rejects.toMatchObject({ kind: 'protocol_error', why: 'garbage frame' });
  });

  it('a close wakes a waiting whenSeen at once, and an abort ends either wait with its timer and listener', async () => {
    const { queue, clock, timers } = rig();
    const start = clock.now();
    timers.at(start + 20, () => queue.close('socket closed (1006)'));
    await expect(timers.run(queue.whenSeen('bot_ready', start + 10_000))).rejects.toMatchObject({
      kind: 'bot_disconnected',
    });
    expect(clock.now()).toBe(start + 20);

    const open = rig();
    const controller = new AbortController();
    const waits = [
      open.queue.whenSeen('bot_ready', open.clock.now() + 10_000, controller.signal),
      open.queue.next(() => true, open.clock.now() + 10_000, controller.signal),
    ];
    expect(open.timers.size).toBe(2);
    controller.abort(new Error('interrupted'));
    for (const w of waits) await expect(w).rejects.toThrow('interrupted');
    expect(open.timers.size).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
