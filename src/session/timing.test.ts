import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import { SessionTiming } from './timing.js';

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
} {
  const clock = new ManualClock(7_000);
  const timers = new ManualTimerDriver(clock);
  const t0 = clock.now();
  const errors: string[] = [];
  const t = new SessionTiming({ clock, timers, t0Ms: t0, latencyWaitMs, onError: (m) => errors.push(m) });
  return { t, errors, now: () => clock.now() - t0, clock, timers };
}

const never = (): boolean => false;
const signal = new AbortController().signal;

describe('session timing: per-turn metrics and latency verdicts', () => {
  it('derives a spoken turn’s metrics from what the session fed it', () => {
    const { t } = timing();
    t.beginTurn(0, 0, 'audio');
    t.markUserSpeech(200, 1500);
    t.event('user_started_speaking', 400);
    t.event('llm_started', 2500);
    t.event('llm_text', 2600);
    t.event('llm_text', 2700);
    t.event('bot_started_speaking', 2800);
    t.event('bot_audio_started', 3000);
    t.event('bot_audio_stopped', 5000);
    t.botMetrics({ ttfb: [{ processor: 'LLM#0', value: 0.25 }] }, 2550);
    const [final] = t.end();
    expect(final.turn_index).toBe(0);
    expect(final.metrics).toMatchObject({
      voice_to_voice_ms: 1500,
      llm_ttfb_ms: 1000,
      first_token_ms: 1100,
      speech_padding_ms: 200,
      bot_speech_ms: 2000,
      interruption_ms: null,
      bot_metrics: { 'LLM#0': { ttfb_ms: 250 } },
    });
  });

  it('hands out a turn’s final metrics once its window has closed and settled, not before', () => {
    const { t } = timing();
    t.beginTurn(0, 0, 'text');
    t.event('llm_started', 100);
    expect(t.takeFinal()).toEqual([]);
    t.beginTurn(1, 500, 'text');
    // Turn 0 settles 2 s after its window closed (the builder's default), measured on the fed times.
    t.event('llm_started', 3000);
    expect(t.takeFinal().map((d) => [d.turn_index, d.metrics.llm_ttfb_ms])).toEqual([[0, 100]]);
    expect(t.end().map((d) => [d.turn_index, d.metrics.llm_ttfb_ms])).toEqual([[1, 2500]]);
  });

  it('passes a bound that holds and fails one that does not with latency_exceeded', async () => {
    const { t, timers } = timing();
    t.beginTurn(3, 0, 'audio');
    t.markUserSpeech(100, 1000);
    t.event('bot_audio_started', 2200);
    expect((await timers.run(t.checkTurn(3, { voice_to_voice_ms: { max: 1500 } }, never, signal))).failures).toEqual(
      [],
    );
    const { failures } = await timers.run(t.checkTurn(3, { voice_to_voice_ms: { max: 1000 } }, never, signal));
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
    const { t, now, clock, timers } = timing(2000);
    t.beginTurn(0, 0, 'audio');
    clock.advance(600);
    const speechEnd = now();
    t.markUserSpeech(0, speechEnd);
    timers.at(clock.now() + 150, () => t.event('bot_audio_started', speechEnd + 300));
    const { failures, waitedMs } = await timers.run(t.checkTurn(0, { voice_to_voice_ms: { max: 400 } }, never, signal));
    expect(failures).toEqual([]);
    expect(waitedMs).toBeGreaterThanOrEqual(100);
    expect(waitedMs).toBeLessThan(1000);
  });

  it('gives up after the wait and fails the bound as not measurable, saying why', async () => {
    const { t, clock, timers } = timing(200);
    t.beginTurn(0, 0, 'audio');
    t.markUserSpeech(100, 900);
    const started = clock.now();
    const { failures } = await timers.run(
      t.checkTurn(0, { voice_to_voice_ms: { max: 5000 }, interruption_ms: { max: 500 } }, never, signal),
    );
    expect(clock.now() - started).toBeGreaterThanOrEqual(190);
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^voice_to_voice_ms not measurable .*no bot audio onset/),
      expect.stringMatching(/^interruption_ms not measurable .*not a barge-in/),
    ]);
  });

  it('does not wait for what the kind of turn rules out: a typed turn has no voice-to-voice latency', async () => {
    const { t, clock, timers } = timing(5000);
    t.beginTurn(0, 0, 'text');
    const started = clock.now();
    const { failures } = await timers.run(t.checkTurn(0, { voice_to_voice_ms: { max: 5000 } }, never, signal));
    expect(clock.now() - started).toBeLessThan(100);
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^voice_to_voice_ms not measurable .*text turn/),
    ]);
  });

  it('does not wait once the connection is gone, and a turn without a latency block is not checked', async () => {
    const { t, clock, timers } = timing(5000);
    t.beginTurn(0, 0, 'audio');
    const started = clock.now();
    expect(
      (await timers.run(t.checkTurn(0, { voice_to_voice_ms: { max: 5000 } }, () => true, signal))).failures,
    ).toHaveLength(1);
    expect(clock.now() - started).toBeLessThan(100);
    expect(await timers.run(t.checkTurn(0, undefined, never, signal))).toEqual({ failures: [], waitedMs: 0 });
  });

  it('reports an impossible feed (a harness bug) without throwing, and keeps going', () => {
    const { t, errors } = timing();
    t.beginTurn(1, 100, 'text');
    t.beginTurn(0, 200, 'text');
    t.event('llm_started', Number.NaN);
    expect(errors).toEqual([
      expect.stringContaining('timeline: beginTurn ignored'),
      expect.stringContaining('timeline: addEvent ignored'),
    ]);
    expect(t.end().map((d) => d.turn_index)).toEqual([1]);
  });
});
