/**
 * Event names a scenario may expect. Pipecat's names first (the file format we
 * match), then earshot's extras. `response` is an alias resolved at load time:
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
  'bot_interrupted',
] as const;

export const EARSHOT_EVENT_NAMES = [
  'bot_ready',
  'bot_started_speaking',
  'bot_stopped_speaking',
  'bot_audio_started',
  'bot_audio_stopped',
] as const;

export const EVENT_NAMES = [...PIPECAT_EVENT_NAMES, ...EARSHOT_EVENT_NAMES] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events whose payload is text a judge or `text_contains` can check. */
export const TEXT_EVENTS = ['response', 'llm_response', 'tts_response', 'user_transcription'] as const;
export type TextEventName = (typeof TEXT_EVENTS)[number];

export function isEventName(s: string): s is EventName {
  return (EVENT_NAMES as readonly string[]).includes(s);
}
export function isTextEvent(s: string): s is TextEventName {
  return (TEXT_EVENTS as readonly string[]).includes(s);
}
