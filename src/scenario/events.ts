/**
 * Event names a scenario may expect. Pipecat's names first (the file format we
 * match; its newest scripted format also lists the bot speaking pair), then
 * earshot's extras. `response` is an alias resolved at load time:
 * `llm_response` under a text judge, the transcription of the bot's audio under
 * an audio judge.
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
] as const;

export const EARSHOT_EVENT_NAMES = ['bot_ready', 'bot_audio_started', 'bot_audio_stopped'] as const;

export const EVENT_NAMES = [...PIPECAT_EVENT_NAMES, ...EARSHOT_EVENT_NAMES] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events whose payload is text a judge or `text_contains` can check. */
export const TEXT_EVENTS = ['response', 'llm_response', 'tts_response', 'user_transcription'] as const;
export type TextEventName = (typeof TEXT_EVENTS)[number];

/** Events an `eval:` criterion is meaningful on: the bot's words, or a call's name and arguments. */
export const JUDGEABLE_EVENTS = ['response', 'llm_response', 'tts_response', 'function_call', 'function_call_stopped'] as const;

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
