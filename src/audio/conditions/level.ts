import { dbfsToAmplitude, samplesForMs } from '../pcm.js';

/**
 * The active speech level: the mean power of the 10 ms blocks above the
 * -50 dBFS gate (the energy gate the microphone uses for the voiced span),
 * as an RMS level in dBFS (full scale 32768). A simplified ITU-T P.56:
 * pauses between words do not dilute it, so `snr_db` means the same for a
 * short "yes" and a long sentence. Null when no block is above the gate.
 */
export function activeLevelDbfs(pcm: Int16Array, sampleRate: number, gateDbfs = -50): number | null {
  const block = Math.max(1, samplesForMs(10, sampleRate));
  const gatePower = dbfsToAmplitude(gateDbfs) ** 2;
  let sum = 0;
  let count = 0;
  for (let at = 0; at < pcm.length; at += block) {
    const end = Math.min(pcm.length, at + block);
    let p = 0;
    for (let i = at; i < end; i++) p += pcm[i] * pcm[i];
    const mean = p / (end - at);
    if (mean > gatePower) {
      sum += p;
      count += end - at;
    }
  }
  if (count === 0) return null;
  return powerToDbfs(sum / count);
}

/** RMS level in dBFS (full scale = 32768) of a mean power in sample units². */
export function powerToDbfs(meanPower: number): number {
  return 10 * Math.log10(meanPower / 32768 ** 2);
}

/** Mean power of `pcm[start, end)` in sample units². */
export function meanPower(pcm: ArrayLike<number>, start = 0, end = pcm.length): number {
  if (end <= start) return 0;
  let p = 0;
  for (let i = start; i < end; i++) p += pcm[i] * pcm[i];
  return p / (end - start);
}
