/**
 * The PCM and WAV helpers the speech providers use, from `src/audio`, plus
 * the one thing only speech needs: exact-zero padding for recognizers.
 */
import { decodeWav as decodeWavChannels, downmixToMono } from '../audio/index.js';

export { bytesToInt16, encodeWav, float32ToInt16, int16ToBytes, int16ToFloat32 } from '../audio/index.js';

/**
 * Pads with exact zeros on both sides: recognizers hear ±1 LSB dither as
 * noise (PocketSphinx turned a clean sentence into nonsense with it).
 */
export function padWithSilence(pcm: Int16Array, padSamples: number): Int16Array {
  if (padSamples <= 0) return pcm;
  const out = new Int16Array(pcm.length + 2 * padSamples);
  out.set(pcm, padSamples);
  return out;
}

export interface DecodedWav {
  pcm: Int16Array;
  sampleRate: number;
}

/** Any PCM WAV, downmixed to mono 16-bit. */
export function decodeWav(file: Uint8Array): DecodedWav {
  const mono = downmixToMono(decodeWavChannels(file));
  return { pcm: mono.samples, sampleRate: mono.sampleRate };
}
