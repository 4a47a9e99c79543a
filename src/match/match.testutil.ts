/** What the matcher's tests share: manual time, and a match context on it with the defaults they vary from. */
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import { EventQueue } from '../events/index.js';
import { matchExpectation, type ExpectationSpec, type MatchContext, type MatchOutcome } from './matcher.js';

export interface ManualTime {
  clock: ManualClock;
  timers: ManualTimerDriver;
}

/** A fresh manual clock: budgets of seconds pass as soon as nothing but a deadline is left to wait for. */
export function manualTime(): ManualTime {
  const clock = new ManualClock(10_000);
  return { clock, timers: new ManualTimerDriver(clock) };
}

/** A queue and a context for turn 1, anchored now, no judge, a 60 s budget, the trace dropped; `more` overrides. */
export function matchContext(
  time: ManualTime,
  more: Partial<MatchContext> = {},
): { queue: EventQueue; ctx: MatchContext } {
  const queue = new EventQueue(time.clock, time.timers);
  const ctx: MatchContext = {
    queue,
    clock: time.clock,
    t0Ms: 0,
    turnIndex: 1,
    anchorMs: time.clock.now(),
    defaultWithinMs: 60_000,
    judge: null,
    pendingCalls: [],
    trace: () => undefined,
    ...more,
  };
  return { queue, ctx };
}

/** One expectation matched on manual time. */
export function runMatch(
  time: ManualTime,
  exp: ExpectationSpec,
  index: number,
  ctx: MatchContext,
): Promise<MatchOutcome> {
  return time.timers.run(matchExpectation(exp, index, ctx));
}
