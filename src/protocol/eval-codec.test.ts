import { describe, expect, it } from 'vitest';
import { evalClientCodec, evalServerCodec } from './eval-codec.js';
import type { InboundItem } from './codec.js';

const client = evalClientCodec();
const server = evalServerCodec();

function violation<M>(item: InboundItem<M>): { code: string; reason: string } {
  if (item.kind !== 'invalid') throw new Error(`expected invalid, got ${item.kind}`);
  return item.violation;
}

describe('pipecat-eval codec', () => {
  it('writes RTVI JSON with the label first, as Pipecat harness and bot do', () => {
    expect(client.encode({ kind: 'rtvi', message: { type: 'dtmf', id: '4', data: { buttons: ['1', '#'] } } })).toBe(
      '{"label":"rtvi-ai","type":"dtmf","id":"4","data":{"buttons":["1","#"]}}',
    );
    expect(server.encode({ kind: 'rtvi', message: { type: 'bot-llm-started' } })).toBe(
      '{"label":"rtvi-ai","type":"bot-llm-started"}',
    );
  });

  it('sends microphone audio as raw-audio: base64 16-bit LE PCM, sample rate, one channel', () => {
    const frame = client.encode({ kind: 'audio', pcm: Int16Array.from([1, -2]), sampleRate: 16000 });
    expect(JSON.parse(frame as string)).toEqual({
      label: 'rtvi-ai',
      type: 'raw-audio',
      id: 'mic-1',
      data: {
        base64Audio: Buffer.from([0x01, 0x00, 0xfe, 0xff]).toString('base64'),
        sampleRate: 16000,
        numChannels: 1,
      },
    });
  });

  it('sends bot audio as eval-bot-audio {audio, sampleRate}, the shape Pipecat’s serializer emits', () => {
    const frame = server.encode({ kind: 'audio', pcm: Int16Array.from([256]), sampleRate: 24000 });
    expect(frame).toBe('{"label":"rtvi-ai","type":"eval-bot-audio","data":{"audio":"AAE=","sampleRate":24000}}');
  });

  it('joins a raw-audio-batch into one audio item', () => {
    const batch = JSON.stringify({
      label: 'rtvi-ai',
      type: 'raw-audio-batch',
      id: '1',
      data: { base64AudioBatch: ['AQACAA==', 'AwA='], sampleRate: 8000, numChannels: 1 },
    });
    expect(server.decode(batch)).toEqual({
      kind: 'audio',
      pcm: Int16Array.from([1, 2, 3]),
      sampleRate: 8000,
      numChannels: 1,
    });
  });

  it('reports a binary frame as a violation, not a crash', () => {
    const v = violation(client.decode(new Uint8Array([1, 2, 3])));
    expect(v.code).toBe('wrong_frame_type');
    expect(v.reason).toContain('binary frame (3 bytes)');
    expect(violation(server.decode(new Uint8Array(0))).code).toBe('wrong_frame_type');
  });

  it('reports audio that cannot be 16-bit PCM', () => {
    const botAudio = (audio: string): string =>
      JSON.stringify({ label: 'rtvi-ai', type: 'eval-bot-audio', data: { audio, sampleRate: 16000 } });
    expect(violation(client.decode(botAudio('AA=A')))).toMatchObject({
      code: 'bad_audio',
      reason: expect.stringContaining('not base64'),
    });
    expect(violation(client.decode(botAudio('A')))).toMatchObject({
      code: 'bad_audio',
      reason: expect.stringContaining('not base64'),
    });
    expect(violation(client.decode(botAudio('AA%%')))).toMatchObject({ code: 'bad_audio' });
    expect(violation(client.decode(botAudio('AAAA')))).toMatchObject({
      code: 'bad_audio',
      reason: 'eval-bot-audio: data.audio: 3 bytes is not a whole number of 16-bit samples',
    });
    const stereoOdd = JSON.stringify({
      label: 'rtvi-ai',
      type: 'raw-audio',
      id: '1',
      data: { base64Audio: 'AQACAAMA', sampleRate: 16000, numChannels: 2 },
    });
    expect(violation(server.decode(stereoOdd)).reason).toBe('3 samples do not divide into 2 channels');
  });

  it('reports malformed JSON and malformed RTVI as violations', () => {
    expect(violation(client.decode('{"label":"rtvi-ai",')).code).toBe('not_json');
    expect(violation(client.decode('{"label":"other","type":"bot-ready"}')).code).toBe('wrong_label');
    expect(violation(server.decode('{"label":"rtvi-ai","type":"send-text","id":"1","data":{"content":5}}')).code).toBe(
      'bad_data',
    );
  });
});
