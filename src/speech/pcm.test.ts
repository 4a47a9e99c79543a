import { describe, expect, it } from 'vitest';
import { decodeWav, encodeWav, float32ToInt16, int16ToFloat32, padWithSilence } from './pcm.js';

describe('WAV', () => {
  it('round-trips 16-bit mono PCM with its rate', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const wav = encodeWav(pcm, 22050);
    expect(wav.length).toBe(44 + pcm.length * 2);
    expect(decodeWav(wav)).toEqual({ pcm, sampleRate: 22050 });
  });

  it('skips chunks it does not know and takes the first channel of a stereo file', () => {
    const data = Buffer.alloc(8);
    [10, -10, 20, -20].forEach((v, i) => data.writeInt16LE(v, i * 2));
    const fmt = Buffer.alloc(16);
    fmt.writeUInt16LE(1, 0);
    fmt.writeUInt16LE(2, 2);
    fmt.writeUInt32LE(8000, 4);
    fmt.writeUInt32LE(32000, 8);
    fmt.writeUInt16LE(4, 12);
    fmt.writeUInt16LE(16, 14);
    const chunk = (id: string, body: Buffer): Buffer => {
      const h = Buffer.alloc(8);
      h.write(id, 0, 'ascii');
      h.writeUInt32LE(body.length, 4);
      return Buffer.concat([h, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
    };
    const body = Buffer.concat([Buffer.from('WAVE'), chunk('fmt ', fmt), chunk('LIST', Buffer.from('INFOabc')), chunk('data', data)]);
    const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), body]);
    expect(decodeWav(riff)).toEqual({ pcm: Int16Array.from([10, 20]), sampleRate: 8000 });
  });

  it('refuses what it cannot read', () => {
    expect(() => decodeWav(Buffer.from('hello world, not a wav'))).toThrow('not a RIFF/WAVE file');
    const float = encodeWav(new Int16Array(4), 8000);
    float.writeUInt16LE(3, 20);
    expect(() => decodeWav(float)).toThrow('unsupported WAV encoding (format 3, 16-bit)');
  });
});

describe('PCM helpers', () => {
  it('converts between int16 and float, clipping overshoot', () => {
    expect(Array.from(int16ToFloat32(Int16Array.from([-32768, 0, 16384])))).toEqual([-1, 0, 0.5]);
    expect(Array.from(float32ToInt16(Float32Array.from([-2, -1, 0, 0.5, 1, 3])))).toEqual([-32768, -32768, 0, 16384, 32767, 32767]);
  });

  it('pads with exact zeros on both sides', () => {
    expect(Array.from(padWithSilence(Int16Array.from([5, 6]), 2))).toEqual([0, 0, 5, 6, 0, 0]);
  });
});
