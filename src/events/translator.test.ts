import { describe, expect, it } from 'vitest';
import type { ServerInbound } from '../protocol/index.js';
import { EventTranslator } from './translator.js';

const feed = (t: EventTranslator, msgs: ServerInbound[]) => msgs.map((m, i) => t.translate(m, i));
const names = (t: EventTranslator, msgs: ServerInbound[]) =>
  feed(t, msgs).flatMap((r) => r.events.map((e) => ('text' in e ? `${e.name}:${e.text}` : e.name)));

describe('event translator (RTVI → earshot events)', () => {
  it('llm_response is the bot-llm-text chunks joined at bot-llm-stopped', () => {
    const t = new EventTranslator({ botAudio: false });
    expect(
      names(t, [
        { type: 'bot-llm-started' },
        { type: 'bot-llm-text', data: { text: 'The capital ' } },
        { type: 'bot-llm-text', data: { text: 'is Berlin.' } },
        { type: 'bot-llm-stopped' },
      ]),
    ).toEqual(['llm_started', 'llm_response:The capital is Berlin.']);
  });

  it('after an interruption, stragglers of the interrupted response are dropped until the next llm_started', () => {
    const t = new EventTranslator({ botAudio: false });
    const out = feed(t, [
      { type: 'bot-llm-started' },
      { type: 'bot-llm-text', data: { text: 'Once upon a time' } },
      { type: 'bot-interrupted' },
      { type: 'bot-llm-text', data: { text: ' there was' } },
      { type: 'bot-llm-stopped' },
      { type: 'bot-llm-started' },
      { type: 'bot-llm-text', data: { text: 'Tokyo.' } },
      { type: 'bot-llm-stopped' },
    ]);
    expect(out[2].dropPending).toBeTruthy();
    expect(out.flatMap((r) => r.events.map((e) => ('text' in e ? `${e.name}:${e.text}` : e.name)))).toEqual([
      'llm_started',
      'bot_interrupted',
      'llm_started',
      'llm_response:Tokyo.',
    ]);
  });

  it('user-started-speaking also marks a new turn: pending output is dropped', () => {
    const t = new EventTranslator({ botAudio: true });
    expect(t.translate({ type: 'user-started-speaking' }, 0).dropPending).toBeTruthy();
  });

  it('only final user transcriptions become user_transcription', () => {
    const t = new EventTranslator({ botAudio: false });
    expect(
      names(t, [
        { type: 'user-transcription', data: { text: 'DTMF: 1', final: false } },
        { type: 'user-transcription', data: { text: 'DTMF: 1#', final: true } },
      ]),
    ).toEqual(['user_transcription:DTMF: 1#']);
  });

  it('tts_response comes from each bot-tts-text, and only when the bot speaks (audio judge)', () => {
    const msgs: ServerInbound[] = [{ type: 'bot-tts-text', data: { text: 'Hello.' } }];
    expect(names(new EventTranslator({ botAudio: false }), msgs)).toEqual([]);
    expect(names(new EventTranslator({ botAudio: true }), msgs)).toEqual(['tts_response:Hello.']);
  });

  it('function calls carry name, id and args; stopped calls carry cancelled', () => {
    const t = new EventTranslator({ botAudio: false });
    const [a, b] = feed(t, [
      {
        type: 'llm-function-call-in-progress',
        data: { tool_call_id: 'c1', function_name: 'get_current_weather', arguments: { location: 'Paris' } },
      },
      {
        type: 'llm-function-call-stopped',
        data: { tool_call_id: 'c1', cancelled: true, function_name: 'get_current_weather' },
      },
    ]);
    expect(a.events[0]).toMatchObject({
      name: 'function_call',
      function_name: 'get_current_weather',
      tool_call_id: 'c1',
      args: { location: 'Paris' },
    });
    expect(b.events[0]).toMatchObject({ name: 'function_call_stopped', tool_call_id: 'c1', cancelled: true });
  });

  it('speaking reports bound a spoken reply; metrics are kept, not events', () => {
    const t = new EventTranslator({ botAudio: true });
    expect(t.translate({ type: 'bot-started-speaking' }, 0)).toMatchObject({
      speaking: 'started',
      events: [{ name: 'bot_started_speaking' }],
    });
    expect(t.translate({ type: 'metrics', data: { ttfb: [{ processor: 'llm', value: 0.2 }] } }, 0)).toMatchObject({
      events: [],
      metrics: { ttfb: [{ processor: 'llm', value: 0.2 }] },
    });
  });

  it('marks the first LLM token of a response', () => {
    const t = new EventTranslator({ botAudio: false });
    const out = feed(t, [
      { type: 'bot-llm-started' },
      { type: 'bot-llm-text', data: { text: 'a' } },
      { type: 'bot-llm-text', data: { text: 'b' } },
    ]);
    expect(out.map((r) => r.firstToken ?? false)).toEqual([false, true, false]);
  });

  it('marks every LLM text chunk of the current response, but not the stragglers of an interrupted one', () => {
    const t = new EventTranslator({ botAudio: false });
    const out = feed(t, [
      { type: 'bot-llm-started' },
      { type: 'bot-llm-text', data: { text: 'a' } },
      { type: 'bot-llm-text', data: { text: 'b' } },
      { type: 'bot-interrupted' },
      { type: 'bot-llm-text', data: { text: 'late' } },
      { type: 'bot-llm-started' },
      { type: 'bot-llm-text', data: { text: 'c' } },
    ]);
    expect(out.map((r) => r.llmText ?? false)).toEqual([false, true, true, false, false, false, true]);
  });

  it("a server-response answers a client message (the documents' ack): it says what, and never that the bot speaks", () => {
    const t = new EventTranslator({ botAudio: true });
    const [ack, tts] = feed(t, [
      { type: 'server-response', data: { t: 'earshot-index-documents', d: { indexed: 2 } } },
      { type: 'bot-tts-started' },
    ]);
    expect(ack).toEqual({
      events: [],
      response: { kind: 'server-response', t: 'earshot-index-documents', d: { indexed: 2 } },
    });
    expect(tts.ttsStarted).toBe(true);
  });

  it('a server-response or error-response carries the request id; neither, nor a user mute, marks TTS started', () => {
    const t = new EventTranslator({ botAudio: true });
    const out = feed(t, [
      {
        type: 'server-response',
        id: '7',
        data: { t: 'get_scenario_summary', d: { actions: [], db_hash: null } },
      },
      { type: 'error-response', id: '8', data: { error: 'Unsupported type reset' } },
      { type: 'user-mute-started' },
      { type: 'user-mute-stopped' },
    ]);
    expect(out[0].response).toEqual({
      kind: 'server-response',
      id: '7',
      t: 'get_scenario_summary',
      d: { actions: [], db_hash: null },
    });
    expect(out[1].response).toEqual({ kind: 'error-response', id: '8', error: 'Unsupported type reset' });
    expect(out[1].note).toContain('id 8');
    expect(out.map((r) => r.ttsStarted ?? false)).toEqual([false, false, false, false]);
  });
});
