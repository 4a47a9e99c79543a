import { describe, expect, it } from 'vitest';
import type { LatencyAssertions } from '../scenario/types.js';
import { deriveTurnMetrics } from './derive.js';
import { checkLatency } from './latency-check.js';
import { TimelineBuilder } from './timeline.js';

/** A spoken turn: speech ends at 1000 ms, LLM starts at 1300, bot audio 1900–3000. */
function measuredTurn(index = 2) {
  const b = new TimelineBuilder();
  b.beginTurn(index, 0, 'audio');
  b.markUserSpeech(100, 1000);
  b.addEvent('llm_started', 1300);
  b.addEvent('bot_audio_started', 1900);
  b.addEvent('bot_audio_stopped', 3000);
  b.end(4000);
  return deriveTurnMetrics(b.takeCompleted()[0]);
}

describe('checkLatency', () => {
  it('passes bounds that hold, inclusive at both ends', () => {
    const assertions: LatencyAssertions = { voice_to_voice_ms: { max: 900 }, llm_ttfb_ms: { min: 300, max: 300 } };
    expect(checkLatency(2, assertions, measuredTurn())).toEqual([]);
  });

  it('fails an exceeded max with kind latency_exceeded, naming the metric, the value and the bound', () => {
    expect(checkLatency(2, { voice_to_voice_ms: { max: 800 } }, measuredTurn())).toEqual([
      {
        kind: 'latency_exceeded',
        turn_index: 2,
        expectation_index: null,
        event: null,
        reason: 'voice_to_voice_ms 900 ms exceeds max 800 ms',
      },
    ]);
  });

  it('fails a value below min', () => {
    const [f] = checkLatency(2, { bot_speech_ms: { min: 1500 } }, measuredTurn());
    expect(f.reason).toBe('bot_speech_ms 1100 ms is below min 1500 ms');
  });

  it('does not round a violation away', () => {
    const [f] = checkLatency(0, { voice_to_voice_ms: { max: 1200 } }, { metrics: { voice_to_voice_ms: 1200.04 } });
    expect(f.reason).toBe('voice_to_voice_ms 1200.04 ms exceeds max 1200 ms');
  });

  it('fails a bound on a metric that could not be measured, saying why', () => {
    const failures = checkLatency(
      2,
      { interruption_ms: { max: 400 }, voice_to_voice_ms: { max: 2000 } },
      measuredTurn(),
    );
    expect(failures).toEqual([
      expect.objectContaining({
        kind: 'latency_exceeded',
        reason:
          "interruption_ms not measurable (bound max 400 ms): not a barge-in: no bot audio was playing when the user's speech started",
      }),
    ]);
  });

  it('says so when no reason for a missing measurement was given', () => {
    const [f] = checkLatency(1, { llm_ttfb_ms: { min: 10, max: 50 } }, { metrics: {} });
    expect(f.reason).toBe('llm_ttfb_ms not measurable (bound min 10 ms, max 50 ms): no measurement was recorded');
  });

  it('reports every violated metric, in the order of the metric list', () => {
    const failures = checkLatency(
      3,
      { bot_speech_ms: { max: 1 }, voice_to_voice_ms: { max: 1 }, llm_ttfb_ms: { max: 1 } },
      measuredTurn(3),
    );
    expect(failures.map((f) => f.reason.split(' ')[0])).toEqual(['voice_to_voice_ms', 'llm_ttfb_ms', 'bot_speech_ms']);
    expect(failures.every((f) => f.turn_index === 3)).toBe(true);
  });

  it('checks nothing when the turn has no latency block or an empty bound', () => {
    expect(checkLatency(0, undefined, measuredTurn())).toEqual([]);
    expect(checkLatency(0, { voice_to_voice_ms: {} }, { metrics: {} })).toEqual([]);
  });
});
