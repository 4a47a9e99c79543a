import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ManualTimerDriver } from '../core/timers.js';
import { SessionTiming } from './timing.js';

/**
 * Session-relative times on manual time: "now" is where the test has got to,
 * and `timers.run` lets a wait of seconds pass at once.
 */
function timing(): {
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
  const t = new SessionTiming({ clock, t0Ms: t0, onError: (m) => errors.push(m) });
  return { t, errors, now: () => clock.now() - t0, clock, timers };
}

describe('session timing: per-turn metrics', () => {
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
