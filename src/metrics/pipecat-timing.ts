import type { TimelineEventName, TurnTimeline } from './timeline-types.js';

/**
 * A turn's timing as Pipecat's harness reports it (`results.py`
 * `EvalTurnTiming`, measured by `timing.py`), from earshot's timeline, so a
 * result line carries `turns[].timing` under Pipecat's names and
 * definitions beside earshot's own `metrics`.
 *
 * Every measure is ms from the turn's input anchor: the end of the user's
 * speech for a spoken turn, the send for a text or DTMF turn, where the
 * harness began observing for a turn that sends nothing. Each measure is the
 * first of its kind at or after the anchor; null when none occurred. The
 * LLM's text and response end count only after its `llm_started` in the same
 * turn, and `bot_stopped_speaking` only after a `bot_started_speaking`: a
 * response that began before the input is the previous turn's.
 *
 * Where earshot measures more precisely than Pipecat (the definitions are
 * otherwise the same):
 * - the spoken anchor is the last voiced sample of the user's audio as due at
 *   real-time pace, not the moment the last chunk (trailing silence included)
 *   left the harness; `input_duration_ms` is the audio streamed up to it;
 * - `bot_speech_onset_ms` is the first sample-accurate onset in the bot's
 *   captured audio (Silero VAD + an energy gate), not the moment a VAD start
 *   window closed (Pipecat's includes that window, typically 200 ms);
 * - `bot_metrics` has one entry per service with its first TTFB and summed
 *   processing time over the turn (token usage summed into one entry without
 *   a processor), where Pipecat lists every report as it came.
 *
 * `voice_to_voice_ms` is `bot_speech_onset_ms` for a spoken turn and null
 * otherwise; `speech_padding_ms` is `bot_speech_onset_ms −
 * bot_started_speaking_ms` when both were seen.
 */
export interface PipecatTiming {
  input_duration_ms: number;
  llm_started_ms: number | null;
  first_token_ms: number | null;
  llm_response_ms: number | null;
  function_call_ms: number | null;
  bot_started_speaking_ms: number | null;
  bot_speech_onset_ms: number | null;
  bot_stopped_speaking_ms: number | null;
  bot_metrics: PipecatBotMetric[];
  voice_to_voice_ms: number | null;
  speech_padding_ms: number | null;
}

/** One entry of Pipecat's `bot_metrics`: a service's TTFB and processing time, or the turn's token usage. */
export interface PipecatBotMetric {
  processor: string | null;
  ttfb_ms: number | null;
  processing_ms: number | null;
  tokens: Record<string, number> | null;
}

export function pipecatTiming(tl: TurnTimeline): PipecatTiming {
  const speechEnd = tl.kind === 'audio' ? tl.user_speech_end_at_ms : null;
  const anchor = speechEnd ?? tl.send_at_ms;
  const inputDuration = speechEnd !== null ? Math.max(0, Math.round(speechEnd - tl.send_at_ms)) : 0;
  const first = (name: TimelineEventName, from: number | null): number | null => {
    if (from === null) return null;
    return (tl.events[name] ?? []).find((t) => t >= from) ?? null;
  };
  const since = (at: number | null): number | null => (at === null ? null : Math.round(at - anchor));

  const llmStarted = first('llm_started', anchor);
  const started = first('bot_started_speaking', anchor);
  const onset = tl.bot_audio.find((b) => b.onset_at_ms >= anchor)?.onset_at_ms ?? null;
  const timing = {
    input_duration_ms: inputDuration,
    llm_started_ms: since(llmStarted),
    first_token_ms: since(first('llm_text', llmStarted)),
    llm_response_ms: since(first('llm_response', llmStarted)),
    function_call_ms: since(first('function_call', anchor)),
    bot_started_speaking_ms: since(started),
    bot_speech_onset_ms: since(onset),
    bot_stopped_speaking_ms: since(first('bot_stopped_speaking', started)),
    bot_metrics: botMetrics(tl),
  };
  return {
    ...timing,
    voice_to_voice_ms: inputDuration > 0 ? timing.bot_speech_onset_ms : null,
    speech_padding_ms:
      timing.bot_speech_onset_ms !== null && timing.bot_started_speaking_ms !== null
        ? timing.bot_speech_onset_ms - timing.bot_started_speaking_ms
        : null,
  };
}

function botMetrics(tl: TurnTimeline): PipecatBotMetric[] {
  const entries: PipecatBotMetric[] = Object.entries(tl.bot_metrics).map(([processor, m]) => ({
    processor,
    ttfb_ms: m.ttfb_ms === undefined ? null : Math.round(m.ttfb_ms),
    processing_ms: m.processing_ms === undefined ? null : Math.round(m.processing_ms),
    tokens: null,
  }));
  if (tl.bot_tokens) {
    const { reports: _reports, ...usage } = tl.bot_tokens;
    const tokens: Record<string, number> = {};
    for (const [k, v] of Object.entries(usage)) if (typeof v === 'number') tokens[k] = v;
    entries.push({ processor: null, ttfb_ms: null, processing_ms: null, tokens });
  }
  return entries;
}
