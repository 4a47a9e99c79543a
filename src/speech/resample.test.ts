import { describe, expect, it } from 'vitest';
import { isValidSampleRate, sincResample } from './resample.js';

describe('sincResample', () => {
  const sine = (hz: number, rate: number, seconds: number): Int16Array =>
    Int16Array.from({ length: rate * seconds }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate)));
  const zeroCrossings = (pcm: Int16Array): number => {
    let n = 0;
    for (let i = 1; i < pcm.length; i++) if ((pcm[i - 1] < 0) !== (pcm[i] < 0)) n++;
    return n;
  };

  it('keeps duration and pitch from 8 kHz to 16 kHz and from 24 kHz to 16 kHz', async () => {
    for (const from of [8000, 24000]) {
      const out = await sincResample(sine(440, from, 1), from, 16000);
      expect(Math.abs(out.length - 16000)).toBeLessThanOrEqual(2);
      expect(Math.abs(zeroCrossings(out) - 880)).toBeLessThanOrEqual(4);
    }
  });

  it('removes content above the new Nyquist frequency instead of folding it down', async () => {
    const out = await sincResample(sine(7000, 24000, 1), 24000, 8000); // 7 kHz cannot exist at 8 kHz
    const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / out.length);
    expect(rms).toBeLessThan(300); // the input's rms is ~7071
  });

  it('returns the input untouched when the rates match', async () => {
    const pcm = sine(300, 16000, 0.1);
    expect(await sincResample(pcm, 16000, 16000)).toBe(pcm);
  });
});

describe('isValidSampleRate', () => {
  it('accepts integer telephone-to-studio rates only', () => {
    expect([8000, 16000, 44100, 48000].every(isValidSampleRate)).toBe(true);
    expect([0, 4000, 16000.5, Number.NaN, 400000].some(isValidSampleRate)).toBe(false);
  });
});
