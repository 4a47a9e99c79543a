import { describe, expect, it } from 'vitest';
import { decodeWav, encodeWav, float32ToInt16, int16ToFloat32, padWithSilence } from './pcm.js';

describe('WAV', () => {
  it('round-trips 16-bit mono PCM with its rate', () => {
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const wav = encodeWav(pcm, 22050);
    expect(wav.length).toBe(44 + pcm.length * 2);
    expect(decodeWav(wav)).toEqual({ pcm, sampleRate: 22050 });
  });

  it('downmixes a multi-channel file to mono (decoding itself is src/audio/wav)', () => {
    const wav = encodeWav(Int16Array.from([10, 20]), 8000);
    expect(decodeWav(wav)).toEqual({ pcm: Int16Array.from([10, 20]), sampleRate: 8000 });
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
