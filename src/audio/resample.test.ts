import { describe, expect, it } from 'vitest';
import { createResampler, isValidSampleRate, resample, sincResample } from './resample.js';
import { concatPcm, rms, silence, sineWave } from './pcm.js';
import { toneAmplitude } from './dtmf.js';
import { firstAudibleSample } from './level.js';
import { AudioOptionError } from './errors.js';

function errorDb(a: Int16Array, b: Int16Array, from: number, to: number): number {
  let e = 0;
  let s = 0;
  for (let i = from; i < to; i++) {
    e += (a[i] - b[i]) ** 2;
    s += a[i] ** 2;
  }
  return 10 * Math.log10(e / s);
}

describe('resampler (libsamplerate)', () => {
  it('a 1 kHz sine survives 16k → 24k → 16k with error below -60 dB', async () => {
    const x = sineWave(1000, 1000, 16000, -6);
    const up = await resample(x, 16000, 24000);
    expect(up.length).toBe(24000);
    expect(toneAmplitude(up, 24000, 1000, 2400, 21600)).toBeCloseTo(toneAmplitude(x, 16000, 1000, 1600, 14400), -1);
    const back = await resample(up, 24000, 16000);
    expect(back.length).toBe(16000);
    // Edges are filter transients of a sine switched on and off; the body must match.
    expect(errorDb(x, back, 800, 15200)).toBeLessThan(-60);
  });

  it('8 kHz → 16 kHz doubles the length exactly', async () => {
    const x = sineWave(440, 500, 8000);
    expect((await resample(x, 8000, 16000)).length).toBe(8000);
    expect((await resample(x.subarray(0, 333), 8000, 16000)).length).toBe(666);
  });

  it('filters instead of dropping samples: a 7 kHz tone at 16 kHz is removed going to 8 kHz, not aliased to 1 kHz', async () => {
    const x = sineWave(7000, 1000, 16000, -6);
    const y = await resample(x, 16000, 8000);
    expect(y.length).toBe(8000);
    const inLevel = rms(x);
    // Sample dropping would fold 7 kHz onto 1 kHz at full level.
    expect(toneAmplitude(y, 8000, 1000, 800, 7200)).toBeLessThan(inLevel / 1000);
    expect(rms(y, 800, 7200)).toBeLessThan(inLevel / 1000);
    // ...while a 3 kHz tone, inside the new band, passes at its level.
    const pass = await resample(sineWave(3000, 1000, 16000, -6), 16000, 8000);
    expect(
      toneAmplitude(pass, 8000, 3000, 800, 7200) / toneAmplitude(sineWave(3000, 1000, 16000, -6), 16000, 3000),
    ).toBeCloseTo(1, 1);
  });

  it('keeps sound where it was in time: an onset at 0.5 s stays at 0.5 s', async () => {
    const x = concatPcm([silence(500, 16000), sineWave(500, 300, 16000, -12), silence(200, 16000)]);
    const y = await resample(x, 16000, 24000);
    expect(Math.abs(firstAudibleSample(y, 24000) - 12000)).toBeLessThanOrEqual(3);
  });

  it('streams: chunked conversion equals whole-buffer conversion', async () => {
    const x = concatPcm([sineWave(300, 700, 24000, -10), sineWave(2500, 300, 24000, -10)]);
    const whole = await resample(x, 24000, 16000);
    const r = await createResampler(24000, 16000);
    const parts: Int16Array[] = [];
    for (let at = 0, size = 7; at < x.length; at += size, size = ((size * 7) % 997) + 1)
      parts.push(r.process(x.subarray(at, at + size)));
    parts.push(r.flush());
    r.close();
    const streamed = concatPcm(parts);
    expect(streamed.length).toBe(whole.length);
    let maxDiff = 0;
    for (let i = 0; i < whole.length; i++) maxDiff = Math.max(maxDiff, Math.abs(whole[i] - streamed[i]));
    expect(maxDiff).toBeLessThanOrEqual(1);
  });

  it('passes audio through untouched at equal rates', async () => {
    const x = sineWave(440, 100, 16000);
    const r = await createResampler(16000, 16000);
    expect(r.process(x)).toBe(x);
    expect(r.flush().length).toBe(0);
  });

  it('refuses bad rates and use after flush', async () => {
    await expect(createResampler(0, 16000)).rejects.toThrow(AudioOptionError);
    await expect(createResampler(16000, 48000, { quality: 'ultra' as 'best' })).rejects.toThrow(/quality/);
    const r = await createResampler(16000, 8000, { quality: 'medium' });
    r.process(new Int16Array(100));
    r.flush();
    expect(() => r.process(new Int16Array(10))).toThrow(AudioOptionError);
    r.close();
    r.close();
  });
});

describe('sincResample', () => {
  const sine = (hz: number, rate: number, seconds: number): Int16Array =>
    Int16Array.from({ length: rate * seconds }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate)));
  const zeroCrossings = (pcm: Int16Array): number => {
    let n = 0;
    for (let i = 1; i < pcm.length; i++) if (pcm[i - 1] < 0 !== pcm[i] < 0) n++;
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
