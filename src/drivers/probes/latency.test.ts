import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ManualTimerDriver } from '../../core/timers.js';
import type { LatencyAssertions } from '../../scenario/index.js';
import { SessionTiming } from '../../session/index.js';
import { awaitLatencyVerdict, type LatencyVerdict } from './latency.js';

const never = (): boolean => false;
const signal = new AbortController().signal;

/**
 * Session-relative times on manual time: "now" is where the test has got to,
 * and `timers.run` lets a wait of seconds pass at once.
 */
function timing(latencyWaitMs = 1000): {
  t: SessionTiming;
  errors: string[];
  now: () => number;
  clock: ManualClock;
  timers: ManualTimerDriver;
  verdict: (index: number, assertions: LatencyAssertions | undefined, gone?: () => boolean) => Promise<LatencyVerdict>;
} {
  const clock = new ManualClock(7_000);
  const timers = new ManualTimerDriver(clock);
  const t0 = clock.now();
  const errors: string[] = [];
  const t = new SessionTiming({ clock, t0Ms: t0, onError: (m) => errors.push(m) });
  const verdict = (index: number, assertions: LatencyAssertions | undefined, gone: () => boolean = never) =>
    awaitLatencyVerdict(t, index, assertions, { clock, timers, waitMs: latencyWaitMs, gone, signal });
  return { t, errors, now: () => clock.now() - t0, clock, timers, verdict };
}

describe('latency verdicts on the live timeline', () => {
  it('passes a bound that holds and fails one that does not with latency_exceeded', async () => {
    const { t, timers, verdict } = timing();
    t.beginTurn(3, 0, 'audio');
    t.markUserSpeech(100, 1000);
    t.event('bot_audio_started', 2200);
    expect((await timers.run(verdict(3, { voice_to_voice_ms: { max: 1500 } }))).failures).toEqual([]);
    const { failures } = await timers.run(verdict(3, { voice_to_voice_ms: { max: 1000 } }));
    expect(failures).toEqual([
      {
        kind: 'latency_exceeded',
        turn_index: 3,
        expectation_index: null,
        event: null,
        reason: expect.stringMatching(/^voice_to_voice_ms 1200(\.0+)? ?ms exceeds max 1000/),
      },
    ]);
  });

  it('waits for an asserted metric that is not measurable yet (the onset is reported late) and judges the measured value', async () => {
    const { t, now, clock, timers, verdict } = timing(2000);
    t.beginTurn(0, 0, 'audio');
    clock.advance(600);
    const speechEnd = now();
    t.markUserSpeech(0, speechEnd);
    timers.at(clock.now() + 150, () => t.event('bot_audio_started', speechEnd + 300));
    const { failures, waitedMs } = await timers.run(verdict(0, { voice_to_voice_ms: { max: 400 } }));
    expect(failures).toEqual([]);
    expect(waitedMs).toBeGreaterThanOrEqual(100);
    expect(waitedMs).toBeLessThan(1000);
  });

  it('gives up after the wait and fails the bound as not measurable, saying why', async () => {
    const { t, clock, timers, verdict } = timing(200);
    t.beginTurn(0, 0, 'audio');
    t.markUserSpeech(100, 900);
    const started = clock.now();
    const { failures } = await timers.run(
      verdict(0, { voice_to_voice_ms: { max: 5000 }, interruption_ms: { max: 500 } }),
    );
    expect(clock.now() - started).toBeGreaterThanOrEqual(190);
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^voice_to_voice_ms not measurable .*no bot audio onset/),
      expect.stringMatching(/^interruption_ms not measurable .*not a barge-in/),
    ]);
  });

  it('does not wait for what the kind of turn rules out: a typed turn has no voice-to-voice latency', async () => {
    const { t, clock, timers, verdict } = timing(5000);
    t.beginTurn(0, 0, 'text');
    const started = clock.now();
    const { failures } = await timers.run(verdict(0, { voice_to_voice_ms: { max: 5000 } }));
    expect(clock.now() - started).toBeLessThan(100);
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^voice_to_voice_ms not measurable .*text turn/),
    ]);
  });

  it('does not wait once the connection is gone, and a turn without a latency block is not checked', async () => {
    const { t, clock, timers, verdict } = timing(5000);
    t.beginTurn(0, 0, 'audio');
    const started = clock.now();
    expect((await timers.run(verdict(0, { voice_to_voice_ms: { max: 5000 } }, () => true))).failures).toHaveLength(1);
    expect(clock.now() - started).toBeLessThan(100);
    expect(await timers.run(verdict(0, undefined))).toEqual({ failures: [], waitedMs: 0 });
  });
});
