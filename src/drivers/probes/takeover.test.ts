import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ManualTimerDriver } from '../../core/timers.js';
import type { DerivedTurnMetrics } from '../../metrics/index.js';
import { checkTakeover } from './takeover.js';

interface Case {
  end: number | null;
  /** The turn's bot audio onsets. */
  onsets: number[];
}
const derived = (m: Case): DerivedTurnMetrics =>
  ({
    turn_index: 1,
    metrics: {
      user_speech_start_at_ms: m.end === null ? null : 1000,
      user_speech_end_at_ms: m.end,
      bot_audio_onset_at_ms: m.onsets.find((t) => m.end !== null && t >= m.end) ?? null,
    },
    unmeasured: {},
    notes: [],
  }) as unknown as DerivedTurnMetrics;

const run = (c: Case, expected: boolean | undefined, gone = false) => {
  const clock = new ManualClock();
  const d = derived(c);
  return checkTakeover(1, expected, {
    clock,
    timers: new ManualTimerDriver(clock),
    snapshot: () => d,
    bursts: () => c.onsets.map((t) => ({ onset_at_ms: t, offset_at_ms: t + 500 })),
    gone: () => gone,
    signal: new AbortController().signal,
    waitMs: 0,
  });
};

describe('checkTakeover', () => {
  it('a bot that waits for the caller (its earlier reply is before the caller began): no takeover, a positive gap, takeover: false passes', async () => {
    const v = await run({ end: 3000, onsets: [200, 3450] }, false);
    expect(v.metrics).toEqual({ takeover: false, response_gap_ms: 450, overlap_ms: 0 });
    expect(v.failures).toEqual([]);
  });

  it('a bot that speaks into the pause: takeover, a negative gap, takeover: false fails', async () => {
    const v = await run({ end: 3000, onsets: [200, 2100, 3600] }, false);
    expect(v.metrics).toEqual({ takeover: true, response_gap_ms: -900, overlap_ms: 500 });
    expect(v.failures).toMatchObject([
      {
        kind: 'takeover',
        turn_index: 1,
        reason: expect.stringMatching(/took the turn in the caller's pause \(its audio began 900ms before/),
      },
    ]);
  });

  it('takeover: true fails on a bot that waited; no assertion only measures', async () => {
    expect((await run({ end: 3000, onsets: [3450] }, true)).failures).toMatchObject([{ kind: 'takeover' }]);
    expect((await run({ end: 3000, onsets: [2100] }, undefined)).failures).toEqual([]);
  });

  it('a call that ended before the caller was measured cannot be judged: the assertion fails, saying why', async () => {
    const v = await run({ end: null, onsets: [] }, false, true);
    expect(v.metrics).toEqual({ takeover: null, response_gap_ms: null, overlap_ms: null });
    expect(v.failures[0].reason).toMatch(/not measured/);
  });
});
