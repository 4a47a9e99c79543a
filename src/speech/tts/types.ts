import type { Resample } from '../../audio/index.js';
import type { ModelStore } from '../models/store.js';

export interface SynthesizeOptions {
  /** Provider-specific voice id; the provider's default when absent. */
  voice?: string;
  /** Rate of the returned PCM; the provider resamples its native rate to it. */
  sampleRate: number;
  signal?: AbortSignal;
}

export interface SynthesisResult {
  /** 16-bit mono PCM. */
  pcm: Int16Array;
  sampleRate: number;
}

/** Text in, 16-bit mono PCM out at the rate asked for. */
export interface TtsProvider {
  /** Table name (`flite`, `kokoro`) or the factory's name for custom providers. */
  readonly name: string;
  /** Voice used when a call names none. */
  readonly defaultVoice: string;
  /**
   * Everything besides provider, voice, text and rate that changes the audio
   * (model dtype, speed...). Part of the utterance cache key; keep it JSON.
   */
  readonly cacheKeyOptions: Record<string, unknown>;
  /** Set when the weights are not what the model's name says (a generated fixture): said in the trace and result. */
  readonly origin?: string;
  synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult>;
  /** Releases models, processes or worker state. Idempotent. */
  close(): Promise<void>;
}

/** What a provider factory in the table gets. */
export interface TtsFactoryContext {
  /** Provider options from the scenario or the command line (`dtype`, `speed`...). */
  options: Record<string, unknown>;
  /** Default voice for calls that name none (from the spec). */
  voice?: string;
  modelStore: ModelStore;
  resample: Resample;
}

export type TtsFactory = (context: TtsFactoryContext) => Promise<TtsProvider>;
