import { describe, expect, it } from 'vitest';
import type { DerivedTurnMetrics } from '../metrics/index.js';
import type { TurnMetrics } from './turn-metrics.js';
import type { TurnResult } from './types.js';
import { LATENCY_METRICS } from './turn-metrics.js';

/**
 * What src/metrics derives is what a result line carries: its `TurnMetrics`
 * must stay assignable to the results type (this file stops type-checking if
 * the two drift apart), and every latency metric it names is one the summary
 * and the reports know.
 */
function carry(derived: DerivedTurnMetrics['metrics']): TurnResult['metrics'] {
  const asResult: TurnMetrics = derived;
  return asResult;
}

describe('TurnMetrics', () => {
  it('accepts what the metrics module derives, unchanged', () => {
    const derived: DerivedTurnMetrics['metrics'] = {
      voice_to_voice_ms: 640,
      llm_ttfb_ms: 210,
      first_token_ms: 320,
      speech_padding_ms: 35,
      bot_speech_ms: 1200,
      interruption_ms: null,
      yielded: null,
      talk_over_ms: 0,
      user_speech_start_at_ms: 100,
      user_speech_end_at_ms: 900,
      bot_audio_onset_at_ms: 1540,
      bot_audio_offset_at_ms: 2740,
      bot_metrics: { 'OpenAILLMService#0': { ttfb_ms: 210, reports: 1 } },
      bot_tokens: null,
    };
    const carried = carry(derived);
    expect(JSON.parse(JSON.stringify(carried))).toEqual(derived);
    for (const name of LATENCY_METRICS) expect(name in derived).toBe(true);
  });
});
