import { describe, expect, it } from 'vitest';
import { pipecatTiming } from './pipecat-timing.js';
import type { TurnTimeline } from './timeline-types.js';

function timeline(over: Partial<TurnTimeline>): TurnTimeline {
  return {
    index: 0,
    kind: 'text',
    send_at_ms: 1000,
    window_end_at_ms: null,
    user_speech_start_at_ms: null,
    user_speech_end_at_ms: null,
    bot_audio_carried: null,
    bot_audio: [],
    events: {},
    dropped: {},
    bot_metrics: {},
    bot_tokens: null,
    closed_by_session_end: false,
    ...over,
  };
}

describe("Pipecat's EvalTurnTiming from earshot's timeline", () => {
  it('a text turn: every measure from the send; no voice-to-voice without speech', () => {
    const t = pipecatTiming(
      timeline({
        events: {
          llm_started: [1200],
          llm_text: [1250, 1260],
          llm_response: [1400],
          function_call: [1220],
          bot_started_speaking: [1500],
          bot_stopped_speaking: [2500],
        },
        bot_audio: [{ onset_at_ms: 1540, offset_at_ms: 2480 }],
        bot_metrics: { 'OpenAILLMService#0': { ttfb_ms: 180.4, processing_ms: 390, reports: 2 } },
        bot_tokens: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, reports: 1 },
      }),
    );
    expect(t).toEqual({
      input_duration_ms: 0,
      llm_started_ms: 200,
      first_token_ms: 250,
      llm_response_ms: 400,
      function_call_ms: 220,
      bot_started_speaking_ms: 500,
      bot_speech_onset_ms: 540,
      bot_stopped_speaking_ms: 1500,
      bot_metrics: [
        { processor: 'OpenAILLMService#0', ttfb_ms: 180, processing_ms: 390, tokens: null },
        {
          processor: null,
          ttfb_ms: null,
          processing_ms: null,
          tokens: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        },
      ],
      voice_to_voice_ms: null,
      speech_padding_ms: 40,
    });
  });

  it('a spoken turn is anchored at the end of the user speech; what came before it is the previous reply', () => {
    const t = pipecatTiming(
      timeline({
        kind: 'audio',
        user_speech_start_at_ms: 1100,
        user_speech_end_at_ms: 2600,
        // A response still streaming when the user spoke: before the anchor, not this turn's.
        events: {
          llm_started: [1300, 2900],
          llm_text: [1350, 2950],
          llm_response: [1500, 3100],
          bot_started_speaking: [3000],
          bot_stopped_speaking: [1800, 4000],
        },
        bot_audio: [{ onset_at_ms: 3050, offset_at_ms: 3990 }],
      }),
    );
    expect(t).toMatchObject({
      input_duration_ms: 1600,
      llm_started_ms: 300,
      first_token_ms: 350,
      llm_response_ms: 500,
      bot_started_speaking_ms: 400,
      bot_speech_onset_ms: 450,
      bot_stopped_speaking_ms: 1400,
      voice_to_voice_ms: 450,
      speech_padding_ms: 50,
    });
  });

  it('text and the response end count only after an llm_started; a stop only after a start', () => {
    const t = pipecatTiming(
      timeline({ events: { llm_text: [1100], llm_response: [1150], bot_stopped_speaking: [1200] } }),
    );
    expect(t).toMatchObject({
      llm_started_ms: null,
      first_token_ms: null,
      llm_response_ms: null,
      bot_started_speaking_ms: null,
      bot_stopped_speaking_ms: null,
      bot_speech_onset_ms: null,
      speech_padding_ms: null,
    });
  });
});
