import { dbfsToAmplitude } from './pcm.js';

/**
 * The energy gate: where audible sound starts and ends, to the sample.
 *
 * A sliding window of `windowMs` finds where the short-term RMS crosses
 * `thresholdDbfs`; inside that window the first (or last) sample whose
 * magnitude reaches the same level is the audible edge. Windowing keeps one
 * stray low-level sample from counting as sound; the per-sample step makes the
 * answer sample-accurate rather than window-accurate.
 */
export interface GateOptions {
  /** RMS level over one window that counts as audible. */
  thresholdDbfs: number;
  windowMs: number;
}

export const DEFAULT_GATE: GateOptions = { thresholdDbfs: -50, windowMs: 5 };

export interface AudibleBounds {
  /** Index of the first audible sample. */
  first: number;
  /** One past the last audible sample. */
  end: number;
}

/** The gate over `[from, to)`: window length in samples, per-sample level, and the window's energy threshold. */
function gateWindow(
  sampleRate: number,
  gate: GateOptions,
  from: number,
  to: number,
): { w: number; amp: number; sumGate: number } {
  const w = Math.min(Math.max(1, Math.round((gate.windowMs * sampleRate) / 1000)), Math.max(1, to - from));
  const amp = dbfsToAmplitude(gate.thresholdDbfs);
  return { w, amp, sumGate: amp * amp * w };
}

/** First audible sample in `pcm[from, to)`, or -1. */
export function firstAudibleSample(
  pcm: ArrayLike<number>,
  sampleRate: number,
  gate: GateOptions = DEFAULT_GATE,
  from = 0,
  to = pcm.length,
): number {
  const { w, amp, sumGate } = gateWindow(sampleRate, gate, from, to);
  let sum = 0;
  for (let i = from; i < to; i++) {
    sum += pcm[i] * pcm[i];
    const start = i - w + 1;
    if (start > from) sum -= pcm[start - 1] * pcm[start - 1];
    if (start >= from && sum >= sumGate) {
      for (let j = start; j <= i; j++) if (Math.abs(pcm[j]) >= amp) return j;
      return i;
    }
  }
  return -1;
}

/** One past the last audible sample in `pcm[from, to)`, or -1 when nothing there is audible. */
export function audibleEnd(
  pcm: ArrayLike<number>,
  sampleRate: number,
  gate: GateOptions = DEFAULT_GATE,
  from = 0,
  to = pcm.length,
): number {
  const { w, amp, sumGate } = gateWindow(sampleRate, gate, from, to);
  let sum = 0;
  for (let i = to - 1; i >= from; i--) {
    sum += pcm[i] * pcm[i];
    const end = i + w - 1;
    if (end < to - 1) sum -= pcm[end + 1] * pcm[end + 1];
    if (end <= to - 1 && sum >= sumGate) {
      for (let j = end; j >= i; j--) if (Math.abs(pcm[j]) >= amp) return j + 1;
      return end + 1;
    }
  }
  return -1;
}

/** The audible span of a whole buffer (a TTS utterance with its leading and trailing silence), or null. */
export function audibleBounds(
  pcm: ArrayLike<number>,
  sampleRate: number,
  gate: GateOptions = DEFAULT_GATE,
): AudibleBounds | null {
  const first = firstAudibleSample(pcm, sampleRate, gate);
  if (first < 0) return null;
  return { first, end: audibleEnd(pcm, sampleRate, gate) };
}
