/**
 * Audio the fixture models answer predictably: tone bursts (the counting
 * Whisper and Moonshine fixtures say one number word per burst) and a reader
 * for the Kokoro fixture's one-tone-per-token speech.
 */
import { toneAmplitude } from '../../../src/audio/index.js';

/** `count` 200 ms bursts of 440 Hz, 500 ms apart, in `seconds` of 16-bit PCM at `rate`. */
export function toneBursts(count: number, rate: number, seconds = 3, burstMs = 200): Int16Array {
  const pcm = new Int16Array(Math.round(rate * seconds));
  const burst = Math.round((rate * burstMs) / 1000);
  for (let k = 0; k < count; k++) {
    const start = Math.round(rate * (0.2 + 0.5 * k));
    for (let i = 0; i < burst && start + i < pcm.length; i++) {
      pcm[start + i] = Math.round(9000 * Math.sin((2 * Math.PI * 440 * i) / rate));
    }
  }
  return pcm;
}

/**
 * Reads the Kokoro fixture's speech back as token ids: each `segment` samples
 * hold one tone, id k at `toneHz(k)`; a silent segment is id 0 (`$`).
 */
export function readTones(
  pcm: Int16Array,
  rate: number,
  segment: number,
  ids: readonly number[],
  toneHz: (id: number) => number,
): number[] {
  const out: number[] = [];
  for (let from = 0; from + segment <= pcm.length; from += segment) {
    let energy = 0;
    for (let i = from; i < from + segment; i++) energy += (pcm[i] / 32768) ** 2;
    if (energy / segment < 1e-5) {
      out.push(0);
      continue;
    }
    let best = ids[0];
    let bestPower = -1;
    for (const id of ids) {
      const power = toneAmplitude(pcm, rate, toneHz(id), from, from + segment);
      if (power > bestPower) [best, bestPower] = [id, power];
    }
    out.push(best);
  }
  return out;
}
