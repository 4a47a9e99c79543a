import { SpeechConfigError, UnknownProviderError } from '../errors.js';
import { buildCustomProvider, loadFactory } from '../../core/code-hooks.js';
import { ModelStore } from '../models/store.js';
import { padWithSilence, sincResample, type Resample } from '../../audio/index.js';
import { createSphinx, SphinxStt } from './sphinx.js';
import { createMoonshine, createWhisper, TransformersStt } from './transformers.js';
import {
  checkPadding,
  isEnglish,
  STT_SAMPLE_RATE,
  type SttFactory,
  type SttProvider,
  type TranscribeOptions,
  type Transcription,
} from './types.js';

/** One line per provider. */
export const STT_PROVIDERS: Readonly<Record<string, SttFactory>> = {
  sphinx: createSphinx,
  whisper: createWhisper,
  moonshine: createMoonshine,
};

export interface SttSpec {
  /** An STT_PROVIDERS name; ignored when `factory` is set. */
  provider: string;
  /** `tiny.en`, `base`, `whisper-base.en`...; the provider's default when absent. */
  model?: string;
  /** Default language for calls that name none. */
  language?: string;
  /** Silence around the audio; default 2 s (Pipecat's SILENCE_PAD_S). */
  padding_secs?: number;
  /** Provider options (`device`, `dtype`, `persistent`...). */
  options?: Record<string, unknown>;
  /** `./module.js#export` building a custom provider (needs allowCode). */
  factory?: string;
}

export interface CreateSttOptions {
  allowCode?: boolean;
  baseDir?: string;
  modelStore?: ModelStore;
  resample?: Resample;
}

const STT_SPEC_KEYS = new Set(['service', 'provider', 'model', 'language', 'padding_secs', 'factory', 'options']);

/**
 * Accepts `NAME[:model]` (the `--stt` flag), an SttSpec, or a scenario's
 * `judge.transcription` block (Pipecat's `service`, `model`, `padding_secs`,
 * `language`, `factory`; other keys such as `device` become options).
 */
export function parseSttSpec(input: string | SttSpec | Record<string, unknown>): SttSpec {
  if (typeof input === 'string') {
    const colon = input.indexOf(':');
    const provider = (colon >= 0 ? input.slice(0, colon) : input).trim().toLowerCase();
    const model = colon >= 0 ? input.slice(colon + 1).trim() : undefined;
    if (!provider) throw new SpeechConfigError('stt', 'spec', `expected NAME[:model], got '${input}'`);
    return model ? { provider, model } : { provider };
  }
  const raw = input as Record<string, unknown>;
  const options: Record<string, unknown> = { ...((raw.options as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(raw)) if (!STT_SPEC_KEYS.has(k)) options[k] = v;
  // Pipecat's default transcription service is moonshine.
  const spec: SttSpec = { provider: String(raw.provider ?? raw.service ?? 'moonshine').toLowerCase(), options };
  if (raw.model !== undefined && raw.model !== null) spec.model = String(raw.model);
  if (raw.language !== undefined && raw.language !== null) spec.language = String(raw.language);
  if (raw.padding_secs !== undefined) spec.padding_secs = checkPadding(spec.provider, raw.padding_secs);
  if (raw.factory !== undefined) spec.factory = String(raw.factory);
  return spec;
}

export async function createStt(
  input: string | SttSpec | Record<string, unknown>,
  options: CreateSttOptions = {},
): Promise<SttProvider> {
  const spec = parseSttSpec(input);
  const modelStore = options.modelStore ?? ModelStore.fromEnv();
  const resample = options.resample ?? sincResample;
  const paddingSecs = checkPadding(spec.provider, spec.padding_secs);
  let provider: SttProvider;
  if (spec.factory) {
    const fn = await loadFactory(spec.factory, {
      allowCode: options.allowCode ?? false,
      baseDir: options.baseDir ?? process.cwd(),
    });
    const made = await buildCustomProvider<SttProvider>(
      spec.factory,
      fn,
      [
        { model: spec.model, language: spec.language, padding_secs: paddingSecs, ...spec.options },
        { modelsDir: modelStore.dir, resample },
      ],
      'transcribe',
    );
    provider = customStt(spec, made, paddingSecs, resample);
  } else {
    const factory = Object.hasOwn(STT_PROVIDERS, spec.provider) ? STT_PROVIDERS[spec.provider] : undefined;
    if (!factory) throw new UnknownProviderError('stt', spec.provider, Object.keys(STT_PROVIDERS));
    provider = await factory({ model: spec.model, options: spec.options ?? {}, paddingSecs, modelStore, resample });
  }
  if (!spec.language) return provider;
  checkLanguage(provider, spec.language);
  return withDefaultLanguage(provider, spec.language);
}

/** A scenario asking an English-only model for Spanish fails when the run is set up, not at its first turn. */
function checkLanguage(provider: SttProvider, language: string): void {
  if (provider instanceof TransformersStt) provider.generationOptions(language);
  else if (provider instanceof SphinxStt && !isEnglish(language)) {
    throw new SpeechConfigError('sphinx', 'language', `the en-us model transcribes English only, got '${language}'`);
  }
}

/**
 * A hand-written provider gets the same input as the built-in ones: 16 kHz,
 * padded. It may return a bare string or `{text}`.
 */
function customStt(
  spec: SttSpec,
  made: SttProvider & Record<string, unknown>,
  paddingSecs: number,
  resample: Resample,
): SttProvider {
  return {
    name: typeof made.name === 'string' ? made.name : `factory:${spec.factory}`,
    model: typeof made.model === 'string' ? made.model : (spec.model ?? ''),
    async transcribe(pcm: Int16Array, sampleRate: number, o: TranscribeOptions = {}): Promise<Transcription> {
      const started = performance.now();
      const at16k = padWithSilence(
        await resample(pcm, sampleRate, STT_SAMPLE_RATE),
        Math.round(paddingSecs * STT_SAMPLE_RATE),
      );
      const out = (await made.transcribe(at16k, STT_SAMPLE_RATE, o)) as Transcription | string;
      const text = typeof out === 'string' ? out : String(out?.text ?? '');
      return { text: text.trim(), audioSeconds: pcm.length / sampleRate, elapsedMs: performance.now() - started };
    },
    close: async () => {
      if (typeof made.close === 'function') await made.close();
    },
  };
}

function withDefaultLanguage(inner: SttProvider, language: string): SttProvider {
  return {
    name: inner.name,
    model: inner.model,
    ...(inner.origin ? { origin: inner.origin } : {}),
    transcribe: (pcm, sampleRate, o = {}) =>
      inner.transcribe(pcm, sampleRate, { ...o, language: o.language ?? language }),
    close: () => inner.close(),
  };
}
