import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import type { DerivedTurnMetrics } from '../metrics/index.js';
import { checkTakeover } from './takeover.js';

const derived = (m: { end: number | null; onset: number | null; talkOver?: number }): DerivedTurnMetrics =>
  ({
    turn_index: 1,
    metrics: { user_speech_end_at_ms: m.end, bot_audio_onset_at_ms: m.onset, talk_over_ms: m.talkOver ?? (m.end === null ? null : 0) },
    unmeasured: {},
    notes: [],
  }) as unknown as DerivedTurnMetrics;

const run = (d: DerivedTurnMetrics, expected: boolean | undefined, gone = false) => {
  const clock = new ManualClock();
  return checkTakeover(1, expected, { clock, timers: new ManualTimerDriver(clock), snapshot: () => d, gone: () => gone, signal: new AbortController().signal, waitMs: 0 });
};

describe('checkTakeover', () => {
  it('a bot that waits for the caller: no takeover, a positive response gap, takeover: false passes', async () => {
    const v = await run(derived({ end: 3000, onset: 3450 }), false);
    expect(v.metrics).toEqual({ takeover: false, response_gap_ms: 450 });
    expect(v.failures).toEqual([]);
  });

  it('a bot that speaks into the pause: takeover, a negative gap, takeover: false fails', async () => {
    const v = await run(derived({ end: 3000, onset: 2100, talkOver: 400 }), false);
    expect(v.metrics).toEqual({ takeover: true, response_gap_ms: -900 });
    expect(v.failures).toMatchObject([{ kind: 'takeover', turn_index: 1, reason: expect.stringMatching(/took the turn in the caller's pause \(its audio began 900ms before/) }]);
  });

  it('takeover: true fails on a bot that waited; no assertion only measures', async () => {
    expect((await run(derived({ end: 3000, onset: 3450 }), true)).failures).toMatchObject([{ kind: 'takeover' }]);
    expect((await run(derived({ end: 3000, onset: 2100, talkOver: 400 }), undefined)).failures).toEqual([]);
  });

  it('a call that ended before the caller was measured cannot be judged: the assertion fails, saying why', async () => {
    const v = await run(derived({ end: null, onset: null }), false, true);
    expect(v.metrics).toEqual({ takeover: null, response_gap_ms: null });
    expect(v.failures[0].reason).toMatch(/not measured/);
  });
});
