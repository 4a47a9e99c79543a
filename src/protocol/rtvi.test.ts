import { describe, expect, it } from 'vitest';
import {
  asEvalData,
  assertNever,
  type ClientMessage,
  EVAL_CLIENT_MESSAGE_TYPES,
  RTVI_LABEL,
  RTVI_PROTOCOL_VERSION,
  type ServerMessage,
} from './rtvi.js';
import { CLIENT_MESSAGE_SAMPLES, CLIENT_SAMPLES, SERVER_SAMPLES } from './messages.testutil.js';

/** What a consumer writes: one case per bot message, checked complete by `assertNever`. */
function category(m: ServerMessage): string {
  switch (m.type) {
    case 'bot-ready':
    case 'error':
    case 'error-response':
    case 'server-response':
    case 'server-message':
    case 'system-log':
      return 'control';
    case 'user-started-speaking':
    case 'user-stopped-speaking':
    case 'vad-user-started-speaking':
    case 'vad-user-stopped-speaking':
    case 'user-mute-started':
    case 'user-mute-stopped':
    case 'user-audio-level':
      return 'user';
    case 'user-transcription':
    case 'user-llm-text':
      return 'user-text';
    case 'bot-started-speaking':
    case 'bot-stopped-speaking':
    case 'bot-interrupted':
    case 'bot-audio-level':
    case 'bot-tts-audio':
    case 'eval-bot-audio':
      return 'bot-audio';
    case 'bot-llm-started':
    case 'bot-llm-text':
    case 'bot-llm-stopped':
    case 'bot-llm-marker':
    case 'bot-tts-started':
    case 'bot-tts-text':
    case 'bot-tts-stopped':
    case 'bot-transcription':
    case 'bot-output':
      return 'bot-text';
    case 'llm-function-call':
    case 'llm-function-call-started':
    case 'llm-function-call-in-progress':
    case 'llm-function-call-stopped':
      return 'function-call';
    case 'metrics':
      return 'metrics';
    case 'ui-command':
    case 'ui-job-group':
      return 'ui';
    default:
      return assertNever(m, 'server message');
  }
}

function clientCategory(m: ClientMessage): string {
  switch (m.type) {
    case 'client-ready':
    case 'disconnect-bot':
      return 'lifecycle';
    case 'send-text':
    case 'dtmf':
      return 'input';
    case 'raw-audio':
    case 'raw-audio-batch':
      return 'audio';
    case 'client-message':
    case 'append-to-context':
    case 'llm-function-call-result':
      return 'app';
    default:
      return assertNever(m, 'client message');
  }
}

describe('RTVI message types', () => {
  it('speak protocol 2.1.0 under the rtvi-ai label, as Pipecat does', () => {
    expect(RTVI_PROTOCOL_VERSION).toBe('2.1.0');
    expect(RTVI_LABEL).toBe('rtvi-ai');
  });

  it('a switch over every server message type is complete (assertNever compiles)', () => {
    const counts: Record<string, number> = {};
    for (const sample of Object.values(SERVER_SAMPLES)) counts[category(sample)] = (counts[category(sample)] ?? 0) + 1;
    expect(counts).toEqual({
      control: 6,
      user: 7,
      'user-text': 2,
      'bot-audio': 6,
      'bot-text': 9,
      'function-call': 4,
      metrics: 1,
      ui: 2,
    });
  });

  it('a switch over every client message type is complete', () => {
    expect(Object.values(CLIENT_SAMPLES).map(clientCategory)).toEqual([
      'lifecycle',
      'input',
      'audio',
      'audio',
      'input',
      'app',
      'lifecycle',
      'app',
      'app',
    ]);
  });

  it('a switch that misses a case does not compile', () => {
    function incomplete(m: ServerMessage): string {
      switch (m.type) {
        case 'bot-ready':
          return 'ready';
        default:
          // @ts-expect-error every other message type is unhandled, so `m` is not `never`
          return assertNever(m);
      }
    }
    expect(incomplete(SERVER_SAMPLES['bot-ready'])).toBe('ready');
    expect(() => incomplete(SERVER_SAMPLES['bot-llm-started'])).toThrow(/unhandled value/);
  });

  it('asEvalData types the eval control payloads and leaves application messages alone', () => {
    const seen: string[] = [];
    for (const m of CLIENT_MESSAGE_SAMPLES) {
      if (m.type !== 'client-message') continue;
      const ev = asEvalData(m.data);
      if (!ev) {
        seen.push(`custom:${m.data.t}`);
        continue;
      }
      switch (ev.t) {
        case 'eval-configure':
          seen.push(`configure:${Object.keys(ev.d.function_call_report_level ?? {}).join('+')}`);
          break;
        case 'eval-context':
          seen.push(`context:${ev.d.messages.length}`);
          break;
        case 'eval-image':
          seen.push(`image:${ev.d.format}`);
          break;
        case 'eval-cancel':
          seen.push('cancel');
          break;
        default:
          assertNever(ev);
      }
    }
    expect(seen).toEqual([
      'configure:*',
      'configure:get_weather+*',
      'context:2',
      'image:image/png',
      'cancel',
      'custom:my-app-ping',
    ]);
    expect(EVAL_CLIENT_MESSAGE_TYPES).toEqual(['eval-configure', 'eval-context', 'eval-image', 'eval-cancel']);
  });
});
