/**
 * One realistic instance of every modeled message, shaped as a Pipecat bot or
 * harness sends it. The mapped types make the tables complete: a message type
 * added to the unions without a sample here fails to compile.
 */
import type { ClientMessage, ClientMessageType, ServerMessage, ServerMessageType } from './rtvi.js';

type ByType<U extends { type: string }, T extends string> = Extract<U, { type: T }>;

export const SERVER_SAMPLES: { [T in ServerMessageType]: ByType<ServerMessage, T> } = {
  'bot-ready': {
    type: 'bot-ready',
    id: '1',
    data: { version: '2.1.0', about: { library: 'pipecat-ai', library_version: '0.0.110' } },
  },
  error: { type: 'error', data: { error: 'LLM service unavailable', fatal: false } },
  'error-response': { type: 'error-response', id: '7', data: { error: 'Unsupported type foo' } },
  'server-response': { type: 'server-response', id: '8', data: { t: 'get-weather', d: { temp_c: 21 } } },
  'user-started-speaking': { type: 'user-started-speaking' },
  'user-stopped-speaking': { type: 'user-stopped-speaking' },
  'vad-user-started-speaking': { type: 'vad-user-started-speaking' },
  'vad-user-stopped-speaking': { type: 'vad-user-stopped-speaking' },
  'user-mute-started': { type: 'user-mute-started' },
  'user-mute-stopped': { type: 'user-mute-stopped' },
  'user-transcription': {
    type: 'user-transcription',
    data: {
      text: 'What is the capital of France?',
      final: true,
      user_id: 'eval-user',
      timestamp: '2026-01-01T10:00:00.000+00:00',
    },
  },
  'user-llm-text': { type: 'user-llm-text', data: { text: 'What is the capital of France?' } },
  'bot-started-speaking': { type: 'bot-started-speaking' },
  'bot-stopped-speaking': { type: 'bot-stopped-speaking' },
  'bot-interrupted': { type: 'bot-interrupted' },
  'bot-llm-started': { type: 'bot-llm-started' },
  'bot-llm-text': { type: 'bot-llm-text', data: { text: 'The capital ' } },
  'bot-llm-stopped': { type: 'bot-llm-stopped' },
  'bot-llm-marker': {
    type: 'bot-llm-marker',
    data: { text: '●', kind: 'complete', raw: '● The capital of France is Paris.', markers: ['●', '◐', '○'] },
  },
  'bot-tts-started': { type: 'bot-tts-started' },
  'bot-tts-text': { type: 'bot-tts-text', data: { text: 'The capital of France is Paris.' } },
  'bot-tts-stopped': { type: 'bot-tts-stopped' },
  'bot-tts-audio': { type: 'bot-tts-audio', data: { audio: 'AAABAA==', sample_rate: 24000, num_channels: 1 } },
  'bot-transcription': { type: 'bot-transcription', data: { text: 'The capital of France is Paris.' } },
  'bot-output': {
    type: 'bot-output',
    data: {
      text: 'The capital of France is Paris.',
      aggregated_by: 'sentence',
      segment_id: 3,
      will_be_spoken: true,
      spoken_status: 'in-progress',
      spoken_progress: { accumulated_text: 'The capital', remaining_text: ' of France is Paris.' },
    },
  },
  'llm-function-call': {
    type: 'llm-function-call',
    data: { function_name: 'get_weather', tool_call_id: 'call_1', args: { location: 'Paris' } },
  },
  'llm-function-call-started': { type: 'llm-function-call-started', data: { function_name: 'get_weather' } },
  'llm-function-call-in-progress': {
    type: 'llm-function-call-in-progress',
    data: { tool_call_id: 'call_1', function_name: 'get_weather', arguments: { location: 'Paris', unit: 'celsius' } },
  },
  'llm-function-call-stopped': {
    type: 'llm-function-call-stopped',
    data: { tool_call_id: 'call_1', cancelled: false, function_name: 'get_weather', result: { temp_c: 21 } },
  },
  metrics: {
    type: 'metrics',
    data: {
      ttfb: [{ processor: 'OpenAILLMService#0', model: 'gpt-4o', value: 0.412 }],
      processing: [{ processor: 'CartesiaTTSService#0', value: 0.08 }],
      tokens: [{ prompt_tokens: 120, completion_tokens: 14, total_tokens: 134 }],
      characters: [{ processor: 'CartesiaTTSService#0', value: 31 }],
    },
  },
  'server-message': { type: 'server-message', data: { anything: ['the', 'bot', 'likes'] } },
  'user-audio-level': { type: 'user-audio-level', data: { value: 0.25 } },
  'bot-audio-level': { type: 'bot-audio-level', data: { value: 0.5 } },
  'system-log': { type: 'system-log', data: { text: 'pipeline started' } },
  'ui-command': { type: 'ui-command', data: { command: 'toast', payload: { title: 'Saved' } } },
  'ui-job-group': { type: 'ui-job-group', data: { kind: 'group_started', job_id: 'job-1', cancellable: true, at: 0 } },
  'eval-bot-audio': { type: 'eval-bot-audio', data: { audio: 'AQACAP//', sampleRate: 24000 } },
};

export const CLIENT_SAMPLES: { [T in ClientMessageType]: ByType<ClientMessage, T> } = {
  'client-ready': {
    type: 'client-ready',
    id: '1',
    data: { version: '2.1.0', about: { library: 'earshot', library_version: '0.1.0' } },
  },
  'send-text': {
    type: 'send-text',
    id: '2',
    data: { content: 'Hello there', options: { run_immediately: true, audio_response: false } },
  },
  'raw-audio': { type: 'raw-audio', id: '3', data: { base64Audio: 'AQACAP//', sampleRate: 16000, numChannels: 1 } },
  'raw-audio-batch': {
    type: 'raw-audio-batch',
    id: '4',
    data: { base64AudioBatch: ['AQACAA==', '//8AAA=='], sampleRate: 16000, numChannels: 1 },
  },
  dtmf: { type: 'dtmf', id: '5', data: { buttons: ['1', '2', '#'] } },
  'client-message': {
    type: 'client-message',
    id: '6',
    data: {
      t: 'eval-configure',
      d: { function_call_report_level: { '*': 'full' }, vad_user_speaking: true, bot_llm_marker: true },
    },
  },
  'disconnect-bot': { type: 'disconnect-bot', id: '7' },
  'append-to-context': {
    type: 'append-to-context',
    id: '9',
    data: { role: 'system', content: 'Be terse.', run_immediately: false },
  },
  'llm-function-call-result': {
    type: 'llm-function-call-result',
    id: '8',
    data: {
      function_name: 'get_weather',
      tool_call_id: 'call_1',
      arguments: { location: 'Paris' },
      result: { temp_c: 21 },
    },
  },
};

/** Every eval control message and an application one, as `client-message`s. */
export const CLIENT_MESSAGE_SAMPLES: ClientMessage[] = [
  CLIENT_SAMPLES['client-message'],
  {
    type: 'client-message',
    id: '10',
    data: { t: 'eval-configure', d: { function_call_report_level: { get_weather: 'name', '*': 'none' } } },
  },
  {
    type: 'client-message',
    id: '11',
    data: {
      t: 'eval-context',
      d: {
        messages: [
          { role: 'system', content: 'Be terse.' },
          { role: 'user', content: 'Hi' },
        ],
      },
    },
  },
  { type: 'client-message', id: '12', data: { t: 'eval-image', d: { image: 'iVBORw0KGgo=', format: 'image/png' } } },
  { type: 'client-message', id: '13', data: { t: 'eval-cancel', d: {} } },
  { type: 'client-message', id: '14', data: { t: 'my-app-ping', d: [1, 'two', null] } },
];

/** Messages whose audio the codecs turn into `audio` items rather than `rtvi` ones. */
export const AUDIO_CARRIERS: readonly string[] = ['eval-bot-audio', 'raw-audio', 'raw-audio-batch'];
