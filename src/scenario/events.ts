/**
 * Event names a scenario may expect. Pipecat's names first (the file format we
 * match, from its newest `script.py` and `events.py`, plus `image`, the image a
 * bot generates, which Pipecat's own release evals wait for), then earshot's
 * extras. `response` is an alias resolved at load time: `llm_response` under a
 * text judge, the transcription of the bot's audio under an audio judge.
 */
export const PIPECAT_EVENT_NAMES = [
  'response',
  'llm_response',
  'tts_response',
  'llm_started',
  'function_call',
  'function_call_stopped',
  'user_transcription',
  'user_started_speaking',
  'user_stopped_speaking',
  'vad_user_started_speaking',
  'vad_user_stopped_speaking',
  'bot_started_speaking',
  'bot_stopped_speaking',
  'bot_interrupted',
  'llm_marker',
  'image',
] as const;

export const EARSHOT_EVENT_NAMES = ['bot_ready', 'bot_audio_started', 'bot_audio_stopped'] as const;

export const EVENT_NAMES = [...PIPECAT_EVENT_NAMES, ...EARSHOT_EVENT_NAMES] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events whose payload is text a judge or `text_contains` can check (`llm_marker`: the LLM's raw response). */
export const TEXT_EVENTS = ['response', 'llm_response', 'tts_response', 'user_transcription', 'llm_marker'] as const;
export type TextEventName = (typeof TEXT_EVENTS)[number];

/**
 * Events an `eval:` criterion is meaningful on: the bot's words, or a call's
 * name and arguments. A stopped call carries no arguments, so `eval:` on
 * `function_call_stopped` is an error (Pipecat's rule).
 */
export const JUDGEABLE_EVENTS = ['response', 'llm_response', 'tts_response', 'function_call'] as const;

/**
 * What `marker:` may name on an `llm_marker` expectation: the turn-completion
 * marker kinds, and `incomplete` for either of `short` and `long`.
 */
export const MARKER_KINDS = ['complete', 'short', 'long', 'incomplete'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

/** Expectation keys that check the raw text of an `llm_marker` event; on any other event they are an error. */
export const MARKER_KEYS = ['marker', 'marker_first', 'markers', 'text_after'] as const;

/** The raw VAD events, which a bot reports only when asked (`eval-configure`). */
export const VAD_EVENTS = ['vad_user_started_speaking', 'vad_user_stopped_speaking'] as const;

/** Events matched by `calls:` / `name:` / `args:` rather than by text. */
export const FUNCTION_CALL_EVENTS = ['function_call', 'function_call_stopped'] as const;

/** Events that exist only when the bot speaks (judge modality audio). */
export const BOT_AUDIO_EVENTS = ['tts_response', 'bot_audio_started', 'bot_audio_stopped'] as const;

export function isEventName(s: string): s is EventName {
  return (EVENT_NAMES as readonly string[]).includes(s);
}
export function isTextEvent(s: string): s is TextEventName {
  return (TEXT_EVENTS as readonly string[]).includes(s);
}
export function isFunctionCallEvent(s: string): s is (typeof FUNCTION_CALL_EVENTS)[number] {
  return (FUNCTION_CALL_EVENTS as readonly string[]).includes(s);
}
