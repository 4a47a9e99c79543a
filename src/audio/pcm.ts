import { AudioFormatError, checkSampleRate } from './errors.js';

/**
 * PCM inside the harness is 16-bit signed mono in an `Int16Array` (host order in
 * memory, little-endian on the wire and in files). Everything that carries audio
 * between components carries its sample rate with it.
 */
export interface PcmAudio {
  readonly samples: Int16Array;
  readonly sampleRate: number;
}

const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Samples in `durationMs` at `sampleRate`, rounded to the nearest sample. */
export function samplesForMs(durationMs: number, sampleRate: number): number {
  return Math.round((durationMs * sampleRate) / 1000);
}

/** Duration of `sampleCount` samples in ms (fractional). */
export function msForSamples(sampleCount: number, sampleRate: number): number {
  return (sampleCount * 1000) / sampleRate;
}

export function durationMs(audio: PcmAudio): number {
  return msForSamples(audio.samples.length, audio.sampleRate);
}

/** [-32768, 32767] → [-1, 1): the symmetric scaling WAV float and 16-bit PCM share. */
export function int16ToFloat32(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] / 32768;
  return out;
}

/** Rounds and clips: resampler and model output may overshoot ±1 slightly. */
export function float32ToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clip16(Math.round(samples[i] * 32768));
  return out;
}

/** Little-endian bytes whatever the host order (the wire format of every codec). */
export function int16ToBytes(pcm: Int16Array): Buffer {
  if (HOST_IS_LITTLE_ENDIAN) return Buffer.from(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
  const out = Buffer.allocUnsafe(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i], i * 2);
  return out;
}

/**
 * Little-endian 16-bit bytes → samples, copying (a Buffer from a socket may sit
 * at an odd offset, where an Int16Array view is not allowed). An odd byte count
 * means the sender is not sending 16-bit PCM, which is an error, not a sample to drop.
 */
export function bytesToInt16(bytes: Uint8Array, source?: string): Int16Array {
  if (bytes.byteLength % 2 !== 0) {
    throw new AudioFormatError(`16-bit PCM needs an even byte count, got ${bytes.byteLength} bytes`, source);
  }
  const out = new Int16Array(bytes.byteLength / 2);
  if (HOST_IS_LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** The average of interleaved channels, rounded: one mono frame per `channels` samples (a partial frame is dropped). */
export function downmix(interleaved: Int16Array, channels: number): Int16Array {
  const frames = Math.floor(interleaved.length / channels);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[i * channels + c];
    out[i] = Math.round(sum / channels);
  }
  return out;
}

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

export function silence(durationMs: number, sampleRate: number): Int16Array {
  checkSampleRate(sampleRate);
  return new Int16Array(Math.max(0, samplesForMs(durationMs, sampleRate)));
}

export function concatPcm(parts: readonly Int16Array[]): Int16Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Int16Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Sums `overlay` into a copy of `base` starting at `offsetSamples`, saturating;
 * the result is as long as needed to hold both.
 */
export function mixPcm(base: Int16Array, overlay: Int16Array, offsetSamples = 0): Int16Array {
  if (!Number.isInteger(offsetSamples) || offsetSamples < 0) {
    throw new AudioFormatError(`mix offset must be a non-negative integer sample count, got ${offsetSamples}`);
  }
  const out = new Int16Array(Math.max(base.length, offsetSamples + overlay.length));
  out.set(base);
  for (let i = 0; i < overlay.length; i++) out[offsetSamples + i] = clip16(out[offsetSamples + i] + overlay[i]);
  return out;
}

/** A copy scaled by `gainDb` decibels, saturating at full scale. */
export function applyGain(pcm: Int16Array, gainDb: number): Int16Array {
  const k = 10 ** (gainDb / 20);
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = clip16(Math.round(pcm[i] * k));
  return out;
}

/** Root mean square, in the units of the samples (0..32768). 0 for an empty buffer. */
export function rms(pcm: Int16Array, start = 0, end = pcm.length): number {
  const n = end - start;
  if (n <= 0) return 0;
  let sum = 0;
  for (let i = start; i < end; i++) sum += pcm[i] * pcm[i];
  return Math.sqrt(sum / n);
}

/** RMS level relative to full scale; -Infinity for digital silence. A full-scale sine is about -3 dBFS. */
export function rmsDbfs(pcm: Int16Array, start = 0, end = pcm.length): number {
  return amplitudeToDbfs(rms(pcm, start, end));
}

export function amplitudeToDbfs(amplitude: number): number {
  return amplitude <= 0 ? -Infinity : 20 * Math.log10(amplitude / 32768);
}

export function dbfsToAmplitude(dbfs: number): number {
  return 32768 * 10 ** (dbfs / 20);
}

/** A sine at `frequencyHz` with its peak at `peakDbfs`; test signals and DTMF are built from these. */
export function sineWave(frequencyHz: number, durationMs: number, sampleRate: number, peakDbfs = -6): Int16Array {
  checkSampleRate(sampleRate);
  const n = Math.max(0, samplesForMs(durationMs, sampleRate));
  const amp = Math.min(32767, dbfsToAmplitude(peakDbfs));
  const out = new Int16Array(n);
  const w = (2 * Math.PI * frequencyHz) / sampleRate;
  for (let i = 0; i < n; i++) out[i] = Math.round(amp * Math.sin(w * i));
  return out;
}

export function clip16(value: number): number {
  return value > 32767 ? 32767 : Math.max(value, -32768);
}
