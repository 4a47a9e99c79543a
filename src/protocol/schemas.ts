/**
 * The `data` shape of every modeled RTVI message, as checks. The mapped types
 * make the tables complete: adding a message type to `ServerMessage` or
 * `ClientMessage` without a schema here is a compile error.
 *
 * Required here = required by Pipecat's pydantic models, with one deliberate
 * loosening noted below; optional fields are type-checked when present.
 */
import {
  anything,
  arrayOf,
  boolean,
  type Check,
  either,
  integer,
  number,
  object,
  oneOf,
  optional,
  positiveInteger,
  record,
  recordOf,
  string,
} from './validate.js';
import {
  type ClientMessageType,
  type EvalClientMessageType,
  FUNCTION_CALL_REPORT_LEVELS,
  KEYPAD_ENTRIES,
  type ServerMessageType,
} from './rtvi.js';

/**
 * `null`: the message has no data (any `data` sent is ignored and dropped). `'any'`: data is free-form and optional.
 */
export type DataSchema = Check | null | 'any';

const text = object({ text: string });
const metricValue = object({ processor: string, model: optional(string), value: number });

export const SERVER_DATA: { [T in ServerMessageType]: DataSchema } = {
  'bot-ready': object({ version: string, about: optional(record) }),
  error: object({ error: string, fatal: boolean }),
  'error-response': object({ error: string }),
  'server-response': object({ t: string, d: optional(anything) }),
  'user-started-speaking': null,
  'user-stopped-speaking': null,
  'vad-user-started-speaking': null,
  'vad-user-stopped-speaking': null,
  'user-mute-started': null,
  'user-mute-stopped': null,
  // Pipecat always sends user_id and timestamp; other RTVI servers may not, and
  // nothing in earshot reads them, so they are not required.
  'user-transcription': object({
    text: string,
    final: boolean,
    user_id: optional(string),
    timestamp: optional(string),
  }),
  'user-llm-text': text,
  'bot-started-speaking': null,
  'bot-stopped-speaking': null,
  'bot-interrupted': null,
  'bot-llm-started': null,
  'bot-llm-text': text,
  'bot-llm-stopped': null,
  'bot-llm-marker': object({
    text: string,
    kind: optional(string),
    raw: optional(string),
    markers: optional(arrayOf(string)),
  }),
  'bot-tts-started': null,
  'bot-tts-text': text,
  'bot-tts-stopped': null,
  'bot-tts-audio': object({ audio: string, sample_rate: positiveInteger, num_channels: positiveInteger }),
  'bot-transcription': text,
  'bot-output': object({
    text: string,
    aggregated_by: string,
    segment_id: optional(integer),
    spoken: optional(boolean),
    will_be_spoken: optional(boolean),
    spoken_status: optional(oneOf(['new', 'in-progress', 'completed'])),
    spoken_progress: optional(object({ accumulated_text: string, remaining_text: string })),
  }),
  'llm-function-call': object({ function_name: string, tool_call_id: string, args: record }),
  'llm-function-call-started': object({ function_name: optional(string) }),
  'llm-function-call-in-progress': object({
    tool_call_id: string,
    function_name: optional(string),
    arguments: optional(record),
  }),
  'llm-function-call-stopped': object({
    tool_call_id: string,
    cancelled: boolean,
    function_name: optional(string),
    result: optional(anything),
  }),
  metrics: object({
    ttfb: optional(arrayOf(metricValue)),
    processing: optional(arrayOf(metricValue)),
    ttfa: optional(
      arrayOf(
        object({ processor: string, model: optional(string), ttfa: number, ttfb: number, leading_silence: number }),
      ),
    ),
    ttfat: optional(
      arrayOf(
        object({ processor: string, model: optional(string), ttfat: number, ttfb: number, thinking_time: number }),
      ),
    ),
    tokens: optional(arrayOf(object({ prompt_tokens: integer, completion_tokens: integer, total_tokens: integer }))),
    characters: optional(arrayOf(metricValue)),
  }),
  'server-message': 'any',
  'user-audio-level': object({ value: number }),
  'bot-audio-level': object({ value: number }),
  'system-log': text,
  'ui-command': object({ command: string, payload: optional(anything) }),
  'ui-job-group': object({ kind: string, job_id: string }),
  'eval-bot-audio': object({ audio: string, sampleRate: positiveInteger }),
};

const llmContextMessage = object({ role: string });

/** Payloads of the eval control messages carried in `client-message` (`d`). */
export const EVAL_DATA: { [T in EvalClientMessageType]: { check: Check; required: boolean } } = {
  'eval-configure': {
    required: true,
    check: object({
      function_call_report_level: optional(recordOf(oneOf(FUNCTION_CALL_REPORT_LEVELS))),
      vad_user_speaking: optional(boolean),
      bot_llm_marker: optional(boolean),
    }),
  },
  'eval-context': { required: true, check: object({ messages: arrayOf(llmContextMessage) }) },
  'eval-image': { required: true, check: object({ image: string, format: optional(string) }) },
  'eval-cancel': { required: false, check: record },
};

export const CLIENT_DATA: { [T in ClientMessageType]: DataSchema } = {
  'client-ready': object({
    version: string,
    about: object({
      library: string,
      library_version: optional(string),
      platform: optional(string),
      platform_version: optional(string),
      platform_details: optional(anything),
    }),
  }),
  'send-text': object({
    content: string,
    options: optional(object({ run_immediately: optional(boolean), audio_response: optional(boolean) })),
  }),
  'raw-audio': object({ base64Audio: string, sampleRate: positiveInteger, numChannels: positiveInteger }),
  'raw-audio-batch': object({
    base64AudioBatch: arrayOf(string),
    sampleRate: positiveInteger,
    numChannels: positiveInteger,
  }),
  dtmf: object({ buttons: arrayOf(oneOf(KEYPAD_ENTRIES), 1) }),
  'client-message': object({ t: string, d: optional(anything) }),
  'disconnect-bot': null,
  'append-to-context': object({ role: string, content: anything, run_immediately: optional(boolean) }),
  'llm-function-call-result': object({
    function_name: string,
    tool_call_id: string,
    arguments: record,
    result: either(record, string, 'object or string'),
  }),
};
