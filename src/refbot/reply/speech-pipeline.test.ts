import { describe, expect, it } from 'vitest';
import { firstAudibleSample } from '../../audio/index.js';
import { trimLeadIn } from './speech-pipeline.js';

/** `leadMs` of silence, then a 440 Hz tone at -12 dBFS for `toneMs`. */
function utterance(leadMs: number, toneMs: number, rate = 16000): Int16Array {
  const lead = Math.round((leadMs * rate) / 1000);
  const pcm = new Int16Array(lead + Math.round((toneMs * rate) / 1000));
  for (let i = lead; i < pcm.length; i++) pcm[i] = Math.round(8200 * Math.sin((2 * Math.PI * 440 * (i - lead)) / rate));
  return pcm;
}

describe('trimLeadIn', () => {
  it("cuts Flite's long lead-in to the given silence before the first audible sample, keeping every sample after it", () => {
    const pcm = utterance(200, 100);
    const first = firstAudibleSample(pcm, 16000);
    const out = trimLeadIn(pcm, 16000, 20);
    expect(firstAudibleSample(out, 16000)).toBe(320);
    expect(out.length).toBe(pcm.length - (first - 320));
    expect(out[out.length - 1]).toBe(pcm[pcm.length - 1]);
  });

  it('keeps an utterance whose lead-in is already short, or that has nothing audible, whole', () => {
    const short = utterance(10, 100);
    expect(trimLeadIn(short, 16000, 20)).toBe(short);
    const silent = new Int16Array(3200);
    expect(trimLeadIn(silent, 16000, 20)).toBe(silent);
  });

  it('counts the lead-in at the given sample rate', () => {
    const pcm = utterance(200, 50, 48000);
    expect(firstAudibleSample(trimLeadIn(pcm, 48000, 20), 48000)).toBe(960);
  });
});
