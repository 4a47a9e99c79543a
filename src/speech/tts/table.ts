import { CachedTts, defaultTtsCacheDir, UtteranceCache } from '../cache.js';
import { SpeechConfigError, UnknownProviderError } from '../errors.js';
import { buildCustomProvider, loadFactory } from '../../core/code-hooks.js';
import { lookupModel, ModelStore } from '../models/store.js';
import { sincResample, type Resample } from '../../audio/index.js';
import { createFlite } from './flite.js';
import { createKokoro, KOKORO_MODEL } from './kokoro.js';
import type { SynthesisResult, SynthesizeOptions, TtsFactory, TtsProvider } from './types.js';

/** One line per provider. */
export const TTS_PROVIDERS: Readonly<Record<string, TtsFactory>> = {
  flite: createFlite,
  kokoro: createKokoro,
};

export interface TtsSpec {
  /** A TTS_PROVIDERS name; ignored when `factory` is set. */
  provider: string;
  voice?: string;
  /** Provider options (`dtype`, `speed`, `device` for kokoro). */
  options?: Record<string, unknown>;
  /** `./module.js#export` building a custom provider (needs allowCode). */
  factory?: string;
}

export interface CreateTtsOptions {
  /** The user allowed scenario code (`--allow-code`); without it `factory:` is refused. */
  allowCode?: boolean;
  /** Where `factory:` paths resolve from (the scenario's root); default cwd. */
  baseDir?: string;
  modelStore?: ModelStore;
  resample?: Resample;
  /** Utterance cache folder; default `defaultTtsCacheDir()`. */
  cacheDir?: string;
  noCache?: boolean;
}

/** Scenario keys that are not provider options. */
const TTS_SPEC_KEYS = new Set(['service', 'provider', 'voice', 'factory', 'sample_rate', 'options']);

/**
 * Accepts `NAME[:voice]` (the `--tts` flag), a TtsSpec, or a scenario's
 * `user.speech` block (Pipecat's `service`, `voice`, `factory`, extra keys as options).
 */
export function parseTtsSpec(input: string | TtsSpec | Record<string, unknown>): TtsSpec {
  if (typeof input === 'string') {
    const colon = input.indexOf(':');
    const provider = (colon >= 0 ? input.slice(0, colon) : input).trim().toLowerCase();
    const voice = colon >= 0 ? input.slice(colon + 1).trim() : undefined;
    if (!provider) throw new SpeechConfigError('tts', 'spec', `expected NAME[:voice], got '${input}'`);
    return voice ? { provider, voice } : { provider };
  }
  const raw = input as Record<string, unknown>;
  const provider = String(raw.provider ?? raw.service ?? '').toLowerCase();
  const options: Record<string, unknown> = { ...((raw.options as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(raw)) if (!TTS_SPEC_KEYS.has(k)) options[k] = v;
  const spec: TtsSpec = { provider, options };
  if (raw.voice !== undefined) spec.voice = String(raw.voice);
  if (raw.factory !== undefined) spec.factory = String(raw.factory);
  if (!spec.provider && !spec.factory)
    throw new SpeechConfigError('tts', 'service', 'names no provider and no factory');
  return spec;
}

/** kokoro where its model is in the store, else flite (embedded, no download). */
export function defaultTtsProvider(store: ModelStore): 'kokoro' | 'flite' {
  return store.status(lookupModel(KOKORO_MODEL)).present ? 'kokoro' : 'flite';
}

/** A provider from the table or the factory hook, wrapped in the utterance cache unless `noCache`. */
export async function createTts(
  input: string | TtsSpec | Record<string, unknown>,
  options: CreateTtsOptions = {},
): Promise<TtsProvider> {
  const spec = parseTtsSpec(input);
  const modelStore = options.modelStore ?? ModelStore.fromEnv();
  const resample = options.resample ?? sincResample;
  let provider: TtsProvider;
  if (spec.factory) {
    const fn = await loadFactory(spec.factory, {
      allowCode: options.allowCode ?? false,
      baseDir: options.baseDir ?? process.cwd(),
    });
    const made = await buildCustomProvider<TtsProvider>(
      spec.factory,
      fn,
      [
        { voice: spec.voice, ...spec.options },
        { modelsDir: modelStore.dir, resample },
      ],
      'synthesize',
    );
    provider = customTts(spec, made);
  } else {
    const factory = Object.hasOwn(TTS_PROVIDERS, spec.provider) ? TTS_PROVIDERS[spec.provider] : undefined;
    if (!factory) throw new UnknownProviderError('tts', spec.provider, Object.keys(TTS_PROVIDERS));
    provider = await factory({ options: spec.options ?? {}, voice: spec.voice, modelStore, resample });
  }
  if (options.noCache) return provider;
  return new CachedTts(provider, new UtteranceCache(options.cacheDir ?? defaultTtsCacheDir()));
}

/** Fills what a hand-written provider may leave out. */
function customTts(spec: TtsSpec, made: TtsProvider & Record<string, unknown>): TtsProvider {
  const name = typeof made.name === 'string' ? made.name : `factory:${spec.factory}`;
  return {
    name,
    defaultVoice: typeof made.defaultVoice === 'string' ? made.defaultVoice : (spec.voice ?? ''),
    cacheKeyOptions: (made.cacheKeyOptions as Record<string, unknown> | undefined) ?? {
      factory: spec.factory,
      ...spec.options,
    },
    synthesize: (text: string, o: SynthesizeOptions): Promise<SynthesisResult> => made.synthesize(text, o),
    close: async () => {
      if (typeof made.close === 'function') await made.close();
    },
  };
}
