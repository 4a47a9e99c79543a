import { describe, expect, it } from 'vitest';
import { audibleBounds, audibleEnd, firstAudibleSample } from './level.js';
import { concatPcm, mixPcm, silence, sineWave } from './pcm.js';

describe('energy gate', () => {
  const rate = 16000;
  const tone = sineWave(440, 200, rate, -20);

  it('finds the exact first and last audible sample of a tone inside silence', () => {
    const pcm = concatPcm([silence(100, rate), tone, silence(100, rate)]);
    const b = audibleBounds(pcm, rate);
    // sin(0) = 0: the first sample of the tone is silent, the next is not.
    expect(b?.first).toBe(1600 + 1);
    expect(b?.end).toBeGreaterThanOrEqual(1600 + tone.length - 2);
    expect(b?.end).toBeLessThanOrEqual(1600 + tone.length);
  });

  it('ignores noise below the gate and an isolated small click', () => {
    const noise = new Int16Array(8000).map(() => Math.round((Math.random() - 0.5) * 20)); // about -70 dBFS
    const click = new Int16Array(8000);
    click[4000] = 120;
    expect(firstAudibleSample(noise, rate)).toBe(-1);
    expect(firstAudibleSample(click, rate)).toBe(-1);
    expect(audibleBounds(noise, rate)).toBeNull();
  });

  it('finds sound over a noise floor to within a few samples', () => {
    const noise = new Int16Array(8000).map(() => Math.round((Math.random() - 0.5) * 20));
    const pcm = mixPcm(noise, tone, 3000);
    const first = firstAudibleSample(pcm, rate);
    expect(Math.abs(first - 3001)).toBeLessThanOrEqual(2);
  });

  it('searches only the given range', () => {
    const pcm = concatPcm([tone, silence(100, rate), tone]);
    expect(firstAudibleSample(pcm, rate, undefined, tone.length)).toBe(tone.length + 1600 + 1);
    expect(audibleEnd(pcm, rate, undefined, 0, tone.length + 1600)).toBeLessThanOrEqual(tone.length);
    expect(audibleEnd(pcm, rate, undefined, 0, tone.length + 1600)).toBeGreaterThan(tone.length - 3);
  });
});
