import libsamplerate from '@alexanderolsen/libsamplerate-js';
import { float32ToInt16, int16ToFloat32 } from './pcm.js';

/**
 * Sample-rate conversion as the speech providers see it: one whole utterance
 * at a time. Providers take a `Resample` so the session can hand them the
 * shared resampler of `src/audio` once it exists; until then they default to
 * `sincResample`.
 */
export type Resample = (pcm: Int16Array, fromRate: number, toRate: number) => Promise<Int16Array>;

/**
 * libsamplerate's band-limited sinc converter (medium quality), a fresh
 * converter per call: its streaming state must not carry one utterance's tail
 * into the next.
 */
export const sincResample: Resample = async (pcm, fromRate, toRate) => {
  if (fromRate === toRate || pcm.length === 0) return pcm;
  const src = await libsamplerate.create(1, fromRate, toRate, {
    converterType: libsamplerate.ConverterType.SRC_SINC_MEDIUM_QUALITY,
  });
  try {
    return float32ToInt16(src.simple(int16ToFloat32(pcm)));
  } finally {
    src.destroy();
  }
};

export function isValidSampleRate(sampleRate: number): boolean {
  return Number.isInteger(sampleRate) && sampleRate >= 8000 && sampleRate <= 192000;
}
