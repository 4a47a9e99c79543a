import type { EventName } from '../scenario/events.js';
import type { HearingEvidence } from './hearing-types.js';

/**
 * What the session observed, translated from RTVI messages (and, for the
 * `bot_audio_*` pair, measured from captured audio). Every event carries its
 * arrival time on the run's one monotonic clock (`at_ms`, relative to the
 * session start) so timelines can be drawn and latencies computed.
 */
interface Base<N extends EventName> {
  name: N;
  /** Arrival (or, for measured audio events, the sample-accurate) time, ms since session start. */
  at_ms: number;
}

export interface TextEvent extends Base<'response' | 'llm_response' | 'tts_response' | 'user_transcription'> {
  text: string;
  /** On a transcribed `response`: earshot could not hear this segment reliably (results/hearing.ts). */
  hearing?: HearingEvidence;
}

export interface FunctionCallEvent extends Base<'function_call'> {
  function_name?: string;
  tool_call_id?: string;
  args?: Record<string, unknown>;
}

export interface FunctionCallStoppedEvent extends Base<'function_call_stopped'> {
  function_name?: string;
  tool_call_id?: string;
  cancelled?: boolean;
  result?: unknown;
}

/**
 * The bot's report on its LLM's sideband markers for one response
 * (`bot-llm-marker`): `text` the marker found ('' for none), `kind` what it
 * means, `raw` the response's text before the bot held anything back,
 * `markers` every marker the bot recognizes.
 */
export interface MarkerEvent extends Base<'llm_marker'> {
  text: string;
  kind?: string;
  raw: string;
  markers: string[];
}

export type SignalEventName = Exclude<
  EventName,
  | 'response'
  | 'llm_response'
  | 'tts_response'
  | 'user_transcription'
  | 'function_call'
  | 'function_call_stopped'
  | 'llm_marker'
>;
export type SignalEvent = Base<SignalEventName>;

export type EarshotEvent = TextEvent | MarkerEvent | FunctionCallEvent | FunctionCallStoppedEvent | SignalEvent;
