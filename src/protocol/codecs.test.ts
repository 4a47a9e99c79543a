import { describe, expect, it } from 'vitest';
import { CODEC_NAMES, type CodecName, WIRE_CAPABILITIES } from './codec.js';
import { CODECS, getCodec } from './codecs.js';
import { UnknownCodecError } from './errors.js';
import { AUDIO_CARRIERS, CLIENT_MESSAGE_SAMPLES, CLIENT_SAMPLES, SERVER_SAMPLES } from './messages.testutil.js';

const pair = (name: CodecName) => ({ client: CODECS[name].client(), server: CODECS[name].server() });

describe('codec table', () => {
  it('has pipecat-eval and protobuf, each in both roles', () => {
    expect(Object.keys(CODECS)).toEqual([...CODEC_NAMES]);
    for (const name of CODEC_NAMES) {
      expect(CODECS[name].client()).toMatchObject({ name, role: 'client' });
      expect(CODECS[name].server()).toMatchObject({ name, role: 'server' });
    }
  });

  it('declares what each wire carries beyond RTVI: the eval wire its eval-* controls, protobuf bare audio frames', () => {
    expect([...CODECS['pipecat-eval'].capabilities].sort()).toEqual([
      'bot_audio',
      'cancel',
      'context',
      'images',
      'markers',
      'report_level',
      'url_flags',
      'vad_events',
    ]);
    expect([...CODECS.protobuf.capabilities].sort()).toEqual(['bare_audio', 'bot_audio']);
    for (const name of CODEC_NAMES)
      for (const c of CODECS[name].capabilities) expect(Object.keys(WIRE_CAPABILITIES)).toContain(c);
  });

  it('names the known codecs when asked for an unknown one', () => {
    expect(() => getCodec('msgpack')).toThrow(UnknownCodecError);
    expect(() => getCodec('msgpack')).toThrow('unknown wire codec "msgpack" (known: pipecat-eval, protobuf)');
    expect(getCodec('protobuf')).toBe(CODECS.protobuf);
  });
});

describe.each(CODEC_NAMES)('%s codec round trips', (name) => {
  const { client, server } = pair(name);
  // The eval codec turns RTVI audio messages into audio items; protobuf carries audio in its own frames.
  const audioByMessage = name === 'pipecat-eval';

  it('every bot message: server encodes, client decodes the same message', () => {
    for (const message of Object.values(SERVER_SAMPLES)) {
      if (audioByMessage && AUDIO_CARRIERS.includes(message.type)) continue;
      const frame = server.encode({ kind: 'rtvi', message });
      expect(frame, message.type).not.toBeNull();
      expect(client.decode(frame!), message.type).toEqual({ kind: 'rtvi', message });
    }
  });

  it('every client message: client encodes, server decodes the same message', () => {
    for (const message of [...Object.values(CLIENT_SAMPLES), ...CLIENT_MESSAGE_SAMPLES]) {
      if (audioByMessage && AUDIO_CARRIERS.includes(message.type)) continue;
      const frame = client.encode({ kind: 'rtvi', message });
      expect(server.decode(frame!), message.type).toEqual({ kind: 'rtvi', message });
    }
  });

  it('microphone audio: client sends PCM, server gets the same samples', () => {
    const pcm = Int16Array.from({ length: 320 }, (_, i) => Math.round(Math.sin(i / 5) * 32767));
    const item = server.decode(client.encode({ kind: 'audio', pcm, sampleRate: 16000 })!);
    expect(item).toEqual({ kind: 'audio', pcm, sampleRate: 16000, numChannels: 1 });
  });

  it('bot audio: server sends PCM, client gets the same samples (extremes included)', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 12345, -12345, 0]);
    const item = client.decode(server.encode({ kind: 'audio', pcm, sampleRate: 24000 })!);
    expect(item).toEqual({ kind: 'audio', pcm, sampleRate: 24000, numChannels: 1 });
  });

  it('decodes audio into its own buffer, independent of the frame it came in', () => {
    const frame = server.encode({ kind: 'audio', pcm: Int16Array.from([7, 8]), sampleRate: 8000 })!;
    const item = client.decode(frame);
    if (typeof frame !== 'string') frame.fill(0);
    expect(item).toMatchObject({ kind: 'audio', pcm: Int16Array.from([7, 8]) });
  });
});

describe('what each codec cannot carry', () => {
  it('pipecat-eval has no text, transcription or interruption frames, and no multichannel bot audio', () => {
    const { client, server } = pair('pipecat-eval');
    expect(server.encode({ kind: 'interruption' })).toBeNull();
    expect(server.encode({ kind: 'text', text: 'hi' })).toBeNull();
    expect(client.encode({ kind: 'transcription', text: 'hi', userId: 'u', timestamp: 't' })).toBeNull();
    expect(server.encode({ kind: 'audio', pcm: new Int16Array(4), sampleRate: 16000, numChannels: 2 })).toBeNull();
  });

  it('protobuf carries all of them', () => {
    const { client, server } = pair('protobuf');
    expect(client.decode(server.encode({ kind: 'interruption' })!)).toEqual({ kind: 'interruption' });
    expect(client.decode(server.encode({ kind: 'text', text: 'hi' })!)).toEqual({ kind: 'text', text: 'hi' });
    const t = { kind: 'transcription', text: 'hello', userId: 'u1', timestamp: '2026-01-01T00:00:00Z' } as const;
    expect(server.decode(client.encode(t)!)).toEqual(t);
    const stereo = {
      kind: 'audio',
      pcm: Int16Array.from([1, 2, 3, 4]),
      sampleRate: 48000,
      numChannels: 2,
      pts: 5,
    } as const;
    expect(client.decode(server.encode(stereo)!)).toEqual(stereo);
  });
});
