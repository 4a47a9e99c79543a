import { AudioFormatError, AudioOptionError, checkSampleRate } from './errors.js';
import { clip16, dbfsToAmplitude, samplesForMs } from './pcm.js';

/**
 * In-band DTMF: the keypad's dual tones (ITU-T Q.23), for bots that listen for
 * tones in the audio rather than RTVI `dtmf` messages, and a Goertzel detector
 * so the reference bot (and the tests) can hear them back.
 */
const ROWS_HZ = [697, 770, 852, 941] as const;
const COLS_HZ = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'] as const;

export const DTMF_DIGITS = '0123456789*#ABCD';

export interface DtmfOptions {
  sampleRate: number;
  /** Duration of each tone; Q.24 receivers need at least 40 ms. */
  toneMs?: number;
  /** Silence after each tone (and between tones). */
  gapMs?: number;
  /** Peak level of each of the two sines. */
  levelDbfs?: number;
}

/** The row and column frequencies of one key. */
export function dtmfFrequencies(digit: string): { lowHz: number; highHz: number } {
  const d = digit.toUpperCase();
  for (let r = 0; r < 4; r++) {
    const c = KEYPAD[r].indexOf(d);
    if (c >= 0 && d.length === 1) return { lowHz: ROWS_HZ[r], highHz: COLS_HZ[c] };
  }
  throw new AudioFormatError(`not a DTMF key: ${JSON.stringify(digit)} (keys are ${DTMF_DIGITS})`);
}

/** Tones for `digits`, each `toneMs` long and followed by `gapMs` of silence. */
export function dtmfTones(digits: string, options: DtmfOptions): Int16Array {
  const { sampleRate } = options;
  checkSampleRate(sampleRate);
  const toneMs = options.toneMs ?? 100;
  const gapMs = options.gapMs ?? 60;
  if (!(toneMs > 0)) throw new AudioOptionError('toneMs', toneMs, 'a duration above 0 ms');
  if (!(gapMs >= 0)) throw new AudioOptionError('gapMs', gapMs, 'a duration of 0 ms or more');
  if (sampleRate < 4000)
    throw new AudioOptionError('sampleRate', sampleRate, 'at least 4000 Hz for the 1633 Hz column');
  const amp = dbfsToAmplitude(options.levelDbfs ?? -10);
  const toneN = samplesForMs(toneMs, sampleRate);
  const gapN = samplesForMs(gapMs, sampleRate);
  const keys = [...digits].map(dtmfFrequencies);
  const out = new Int16Array(keys.length * (toneN + gapN));
  keys.forEach(({ lowHz, highHz }, k) => {
    const base = k * (toneN + gapN);
    const wl = (2 * Math.PI * lowHz) / sampleRate;
    const wh = (2 * Math.PI * highHz) / sampleRate;
    for (let i = 0; i < toneN; i++) out[base + i] = clip16(Math.round(amp * (Math.sin(wl * i) + Math.sin(wh * i))));
  });
  return out;
}

/**
 * Amplitude (in sample units, as a sine's peak) of the `frequencyHz` component
 * of `pcm[start, end)` — one Goertzel bin.
 */
export function toneAmplitude(
  pcm: ArrayLike<number>,
  sampleRate: number,
  frequencyHz: number,
  start = 0,
  end = pcm.length,
): number {
  const n = end - start;
  if (n <= 0) return 0;
  const coeff = 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = start; i < end; i++) {
    const s0 = pcm[i] + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / n;
}

export interface DetectedDtmf {
  digit: string;
  /** Sample index where the tone was first heard (block-accurate). */
  startSample: number;
}

/**
 * Keys heard in `pcm`, in order. Blocks of 20 ms (50 Hz bins: adjacent rows, 73 Hz apart, stay apart) are classified
 * by the strongest row and column bin; a key counts once it holds for `minToneMs`, and the same key again needs a gap
 * in between (as a telephone exchange does).
 */
export function detectDtmf(
  pcm: Int16Array,
  sampleRate: number,
  options: { minToneMs?: number; minLevelDbfs?: number } = {},
): DetectedDtmf[] {
  checkSampleRate(sampleRate);
  const block = samplesForMs(20, sampleRate);
  const needBlocks = Math.max(1, Math.floor((options.minToneMs ?? 40) / 20) - 1);
  const minAmp = dbfsToAmplitude(options.minLevelDbfs ?? -35);
  const found: DetectedDtmf[] = [];
  let current: string | null = null;
  let run = 0;
  let runStart = 0;
  let reported = false;
  for (let at = 0; at + block <= pcm.length; at += block) {
    const key = classifyDtmfBlock(pcm, sampleRate, at, at + block, minAmp);
    if (key !== null && key === current) run++;
    else {
      current = key;
      run = key === null ? 0 : 1;
      runStart = at;
      reported = false;
    }
    if (current !== null && !reported && run >= needBlocks) {
      found.push({ digit: current, startSample: runStart });
      reported = true;
    }
  }
  return found;
}

/**
 * The key whose two tones dominate `pcm[start, end)`, or null: both above `minAmp`, each clear of its neighbours,
 * within 12 dB of each other.
 */
export function classifyDtmfBlock(
  pcm: Int16Array,
  sampleRate: number,
  start: number,
  end: number,
  minAmp: number,
): string | null {
  const strongest = (freqs: readonly number[]): { index: number; amp: number; second: number } => {
    let index = -1;
    let amp = 0;
    let second = 0;
    freqs.forEach((f, i) => {
      const a = toneAmplitude(pcm, sampleRate, f, start, end);
      if (a > amp) {
        second = amp;
        amp = a;
        index = i;
      } else if (a > second) second = a;
    });
    return { index, amp, second };
  };
  const row = strongest(ROWS_HZ);
  const col = strongest(COLS_HZ);
  // Both tones present, each clearly above its neighbours, and neither drowning the other (twist).
  if (row.amp < minAmp || col.amp < minAmp) return null;
  if (row.second > row.amp / 2 || col.second > col.amp / 2) return null;
  if (row.amp > col.amp * 4 || col.amp > row.amp * 4) return null;
  return KEYPAD[row.index][col.index];
}
