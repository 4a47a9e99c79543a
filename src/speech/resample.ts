import { resample } from '../audio/index.js';

/**
 * Sample-rate conversion as the speech providers see it: one whole utterance
 * at a time. Providers take a `Resample` so a caller can inject its own.
 */
export type Resample = (pcm: Int16Array, fromRate: number, toRate: number) => Promise<Int16Array>;

/** libsamplerate's band-limited sinc converter (medium quality), a fresh converter per utterance. */
export const sincResample: Resample = (pcm, fromRate, toRate) =>
  fromRate === toRate || pcm.length === 0 ? Promise.resolve(pcm) : resample(pcm, fromRate, toRate, { quality: 'medium' });

export function isValidSampleRate(sampleRate: number): boolean {
  return Number.isInteger(sampleRate) && sampleRate >= 8000 && sampleRate <= 192000;
}
