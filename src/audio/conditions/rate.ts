import { concatPcm, samplesForMs } from '../pcm.js';
import type { ChunkTransform, ConditionContext, SpeakingRateCondition } from './types.js';

/**
 * Speaking rate: a faster or slower talker with the pitch kept, by WSOLA
 * (waveform-similarity overlap-add): 30 ms Hann windows are laid down every
 * 15 ms of output, each read from `factor` × as far into the input, nudged
 * within ±10 ms to where it best continues the previous one. It needs the
 * whole utterance to search in, so it holds everything until `flush` (a
 * stage may hold samples back; this one holds them all).
 */
export async function speakingRateStage(config: SpeakingRateCondition, ctx: ConditionContext): Promise<ChunkTransform> {
  const parts: Int16Array[] = [];
  return {
    name: 'speaking_rate',
    process: (chunk) => {
      parts.push(chunk.slice());
      return new Int16Array(0);
    },
    flush: () => {
      const input = concatPcm(parts);
      parts.length = 0;
      return timeStretch(input, config.factor, ctx.sampleRate);
    },
    close: () => {
      parts.length = 0;
    },
  };
}

/** `input` played `factor` times as fast (output length ≈ input / factor), pitch unchanged. */
export function timeStretch(input: Int16Array, factor: number, sampleRate: number): Int16Array {
  if (factor === 1 || input.length === 0) return input.slice();
  const win = samplesForMs(30, sampleRate);
  const hop = win >> 1;
  const tolerance = samplesForMs(10, sampleRate);
  const outLength = Math.round(input.length / factor);
  const out = new Float64Array(outLength + win);
  const norm = new Float64Array(outLength + win);
  const hann = new Float64Array(win);
  for (let i = 0; i < win; i++) hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / win);
  const sample = (i: number): number => (i >= 0 && i < input.length ? input[i] : 0);
  let prevRead = 0;
  for (let outAt = 0; outAt < outLength; outAt += hop) {
    const nominal = Math.round(outAt * factor);
    let best = nominal;
    if (outAt > 0) {
      // The natural continuation of the last window read, one hop on: find where the input looks most like it.
      const natural = prevRead + hop;
      let bestScore = -Infinity;
      for (let d = -tolerance; d <= tolerance; d++) {
        const cand = nominal + d;
        let score = 0;
        for (let i = 0; i < hop; i += 2) score += sample(natural + i) * sample(cand + i);
        if (score > bestScore) {
          bestScore = score;
          best = cand;
        }
      }
    }
    for (let i = 0; i < win; i++) {
      out[outAt + i] += hann[i] * sample(best + i);
      norm[outAt + i] += hann[i];
    }
    prevRead = best;
  }
  const result = new Int16Array(outLength);
  for (let i = 0; i < outLength; i++) {
    const y = norm[i] > 1e-6 ? out[i] / norm[i] : 0;
    result[i] = y > 32767 ? 32767 : y < -32768 ? -32768 : Math.round(y);
  }
  return result;
}
