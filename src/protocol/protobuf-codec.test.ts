import { describe, expect, it } from 'vitest';
import type { InboundItem } from './codec.js';
import { protobufClientCodec, protobufServerCodec } from './protobuf-codec.js';

const client = protobufClientCodec();
const server = protobufServerCodec();
const hex = (b: string | Uint8Array | null): string => Buffer.from(b as Uint8Array).toString('hex');
const bytes = (...parts: Array<number | number[] | Uint8Array>): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...p])));

function violation<M>(item: InboundItem<M>): { code: string; reason: string } {
  if (item.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(item)}`);
  return item.violation;
}

describe('protobuf codec: bytes on the wire (pipecat frames.proto)', () => {
  it('encodes an AudioRawFrame exactly: Frame.audio(2){audio(3), sample_rate(4), num_channels(5)}', () => {
    const frame = client.encode({ kind: 'audio', pcm: Int16Array.from([1, -2, 300]), sampleRate: 16000 });
    // 12 0d        Frame field 2 (audio), length-delimited, 13 bytes
    // 1a 06 ...    AudioRawFrame.audio, 6 bytes: 1 → 01 00, -2 → fe ff, 300 → 2c 01 (little-endian)
    // 20 80 7d     sample_rate = 16000 (varint: 0x80 | 0, then 125)
    // 28 01        num_channels = 1
    expect(hex(frame)).toBe('120d' + '1a06' + '0100feff2c01' + '20807d' + '2801');
  });

  it('writes pts (proto3 optional, field 6) only when given', () => {
    const frame = server.encode({ kind: 'audio', pcm: Int16Array.from([1]), sampleRate: 16000, pts: 1_000_000_000 });
    // 30 80 94 eb dc 03: field 6 varint, 1e9 in 7-bit groups (0x00, 0x14, 0x6b, 0x5c, 0x03)
    expect(hex(frame)).toBe('120f' + '1a020100' + '20807d' + '2801' + '308094ebdc03');
  });

  it('encodes RTVI JSON in a MessageFrame: Frame.message(4){data(1)}', () => {
    const frame = server.encode({ kind: 'rtvi', message: { type: 'bot-llm-started' } });
    const json = '{"label":"rtvi-ai","type":"bot-llm-started"}'; // 44 bytes
    // 22 2e: Frame field 4, 46 bytes; 0a 2c: MessageFrame.data, 44 bytes
    expect(hex(frame)).toBe(`222e0a2c${Buffer.from(json).toString('hex')}`);
  });

  it('encodes an interruption as an empty InterruptionFrame (field 5)', () => {
    expect(hex(server.encode({ kind: 'interruption' }))).toBe('2a00');
  });

  it('decodes the audio Pipecat sends: id and name set, sample rate 24 kHz', () => {
    const name = Buffer.from('OutputAudioRawFrame#0');
    const inner = bytes(
      0x08,
      0x07,
      0x12,
      name.length,
      name,
      0x1a,
      0x04,
      [0x10, 0x00, 0xf0, 0xff],
      0x20,
      [0xc0, 0xbb, 0x01],
      0x28,
      0x01,
    );
    const item = client.decode(bytes(0x12, inner.length, inner));
    expect(item).toEqual({ kind: 'audio', pcm: Int16Array.from([16, -16]), sampleRate: 24000, numChannels: 1 });
  });

  it('decodes uint64 fields as numbers, however large', () => {
    const maxU64 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    const inner = bytes(0x08, maxU64, 0x20, [0x80, 0x7d], 0x30, [0x80, 0x94, 0xeb, 0xdc, 0x03]);
    expect(client.decode(bytes(0x12, inner.length, inner))).toEqual({
      kind: 'audio',
      pcm: new Int16Array(0),
      sampleRate: 16000,
      numChannels: 1,
      pts: 1_000_000_000,
    });
  });

  it('treats a missing num_channels (proto3 zero) as mono', () => {
    expect(server.decode(bytes(0x12, 0x07, 0x1a, 0x02, [0x05, 0x00], 0x20, [0x80, 0x7d]))).toMatchObject({
      numChannels: 1,
      pcm: Int16Array.from([5]),
    });
  });

  it('decodes text and transcription frames', () => {
    expect(client.decode(bytes(0x0a, 0x04, 0x1a, 0x02, [0x68, 0x69]))).toEqual({ kind: 'text', text: 'hi' });
    const t = bytes(0x1a, 0x02, [0x68, 0x69], 0x22, 0x01, 0x75, 0x2a, 0x01, 0x74);
    expect(server.decode(bytes(0x1a, t.length, t))).toEqual({
      kind: 'transcription',
      text: 'hi',
      userId: 'u',
      timestamp: 't',
    });
  });

  it('skips fields it does not know (a newer frames.proto)', () => {
    expect(client.decode(bytes(0x48, 0x01, 0x2a, 0x00))).toEqual({ kind: 'interruption' });
  });
});

describe('protobuf codec: what is not a pipecat.Frame', () => {
  it('a text frame is a violation', () => {
    expect(violation(client.decode('{"label":"rtvi-ai","type":"bot-ready"}')).code).toBe('wrong_frame_type');
  });

  it('garbage, truncated frames and bad wire types are violations', () => {
    const good = client.encode({ kind: 'audio', pcm: Int16Array.from([1, 2]), sampleRate: 16000 }) as Uint8Array;
    for (const bad of [bytes(0xff, 0xff, 0xff), good.subarray(0, good.length - 1), bytes(0x0f), bytes(0x12, 0x80)]) {
      expect(violation(client.decode(bad)).code, hex(bad)).toBe('bad_protobuf');
    }
  });

  it('an empty frame, or one with no member set, is a violation', () => {
    expect(violation(client.decode(new Uint8Array(0))).reason).toBe('pipecat.Frame with no frame member set');
    expect(violation(client.decode(bytes(0x48, 0x01))).code).toBe('bad_protobuf');
  });

  it('deeply nested groups do not overflow the stack into a crash', () => {
    expect(violation(client.decode(new Uint8Array(200_000).fill(0x7b))).code).toBe('bad_protobuf');
  });

  it('bad audio inside a valid frame is a violation', () => {
    expect(violation(client.decode(bytes(0x12, 0x05, 0x1a, 0x01, 0x05, 0x28, 0x01))).reason).toBe(
      'AudioRawFrame.sample_rate: missing',
    );
    expect(violation(client.decode(bytes(0x12, 0x06, 0x1a, 0x01, 0x05, 0x20, 0x80, 0x7d))).reason).toBe(
      'AudioRawFrame.audio: 1 bytes is not a whole number of 16-bit samples',
    );
  });

  it('a MessageFrame that is not RTVI JSON is a violation', () => {
    const msg = (json: string): Uint8Array => {
      const data = Buffer.from(json);
      const inner = bytes(0x0a, data.length, data);
      return bytes(0x22, inner.length, inner);
    };
    expect(violation(client.decode(msg('not json'))).code).toBe('not_json');
    expect(violation(client.decode(msg('{"label":"x","type":"bot-ready"}'))).code).toBe('wrong_label');
    expect(
      violation(server.decode(msg('{"label":"rtvi-ai","type":"dtmf","id":"1","data":{"buttons":"12"}}'))).code,
    ).toBe('bad_data');
  });

  it('never throws on random bytes', () => {
    let seed = 12345;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed & 0xff;
    };
    const kinds = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const frame = Uint8Array.from({ length: 1 + (i % 48) }, rand);
      kinds.add(client.decode(frame).kind);
      kinds.add(server.decode(frame).kind);
    }
    expect(kinds.has('invalid')).toBe(true);
    for (const k of kinds) expect(['invalid', 'audio', 'text', 'transcription', 'interruption', 'rtvi']).toContain(k);
  });
});
