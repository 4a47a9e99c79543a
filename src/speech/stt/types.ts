import { padWithSilence, type Resample } from '../../audio/index.js';
import type { ModelStore } from '../models/store.js';
import { SpeechConfigError } from '../errors.js';

export interface TranscribeOptions {
  /** ISO 639-1 code (`en`, `es`); only multilingual models accept one other than English. */
  language?: string;
  signal?: AbortSignal;
}

export interface RecognizedWord {
  word: string;
  /** Seconds from the start of the audio given (padding excluded). */
  start_sec: number;
  end_sec: number;
  confidence?: number;
}

export interface Transcription {
  /** What was said, words separated by single spaces; empty for silence. */
  text: string;
  /** Word timings, where the recognizer reports them (sphinx). */
  words?: RecognizedWord[];
  /** Length of the audio given, without padding. */
  audioSeconds: number;
  /** Wall time the call took. */
  elapsedMs: number;
}

/** 16-bit mono PCM in, text out. */
export interface SttProvider {
  readonly name: string;
  /** Model in use (`en-us`, `whisper-base.en`...). */
  readonly model: string;
  /** Set when the weights are not what the model's name says (a generated fixture): said in the trace and result. */
  readonly origin?: string;
  transcribe(pcm: Int16Array, sampleRate: number, options?: TranscribeOptions): Promise<Transcription>;
  /** Ends processes and releases models. Idempotent. */
  close(): Promise<void>;
}

export interface SttFactoryContext {
  /** `model` from the spec (`tiny.en`, `whisper-base.en`...); the provider's default when absent. */
  model?: string;
  /** Provider options (`device`, `dtype`, `persistent`...). */
  options: Record<string, unknown>;
  /** Silence added before and after the audio (Pipecat's `padding_secs`, default 2). */
  paddingSecs: number;
  modelStore: ModelStore;
  resample: Resample;
}

export type SttFactory = (context: SttFactoryContext) => Promise<SttProvider>;

/** Every recognizer here reads 16 kHz. */
export const STT_SAMPLE_RATE = 16000;
export const DEFAULT_PADDING_SECS = 2;

/**
 * Resamples to 16 kHz and adds the silence padding: recognizers drop a word
 * that starts on the very first sample (the captured bot audio begins exactly
 * at its onset), and a lead-out lets them close the last word.
 */
export async function prepareAudio(
  pcm: Int16Array,
  sampleRate: number,
  paddingSecs: number,
  resample: Resample,
): Promise<Int16Array> {
  const at16k = await resample(pcm, sampleRate, STT_SAMPLE_RATE);
  return padWithSilence(at16k, Math.round(paddingSecs * STT_SAMPLE_RATE));
}

export function checkPadding(provider: string, value: unknown): number {
  if (value === undefined) return DEFAULT_PADDING_SECS;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 30) {
    throw new SpeechConfigError(
      provider,
      'padding_secs',
      `expected seconds from 0 to 30, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** `en`, `en-US`, `english` → true: what English-only models accept. */
export function isEnglish(language: string | undefined): boolean {
  if (!language) return true;
  const l = language.toLowerCase();
  return l === 'en' || l.startsWith('en-') || l.startsWith('en_') || l === 'english';
}
