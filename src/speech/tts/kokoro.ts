import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { requiredFiles, type Dtype } from '../models/registry.js';
import { lookupModel, parseDtype, type ModelStore } from '../models/store.js';
import { checkDevice, loadTransformers, type OnnxDevice } from '../onnx.js';
import { float32ToInt16, isValidSampleRate, type Resample } from '../../audio/index.js';
import type { SynthesisResult, SynthesizeOptions, TtsFactory, TtsProvider } from './types.js';

/**
 * Kokoro 82M through kokoro-js: the quality voice, 24 kHz, resampled to the
 * rate asked for. Weights come from the model store only
 * (`earshot models pull kokoro`); the voice style tables ship inside the
 * kokoro-js package, so the voice list is known before the model loads.
 */
export const KOKORO_MODEL = 'kokoro';
export const KOKORO_DEFAULT_VOICE = 'af_heart';
export const KOKORO_SAMPLE_RATE = 24000;

export function kokoroVoices(): string[] {
  const main = createRequire(import.meta.url).resolve('kokoro-js');
  // .../kokoro-js/dist/kokoro.cjs → package root /voices
  const dir = join(dirname(dirname(main)), 'voices');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => f.slice(0, -4))
    .sort();
}

export interface KokoroOptions {
  voice?: string;
  /** Weights precision: fp32, fp16, q8 (default, 92 MB), q4, q4f16. */
  dtype?: Dtype;
  device?: OnnxDevice;
  /** Speaking rate multiplier, 0.5–2. */
  speed?: number;
}

/** Exactly what `from_pretrained` gets: tested without the weights, used with them. */
export interface KokoroLoadPlan {
  /** Absolute model folder, passed as the model id so nothing resolves against the hub. */
  modelPath: string;
  options: { dtype: Dtype; device: OnnxDevice };
  files: string[];
}

/** The load plan, or the one-line ModelMissingError naming `earshot models pull kokoro`. */
export function kokoroLoadPlan(store: ModelStore, options: KokoroOptions = {}): KokoroLoadPlan {
  const model = lookupModel(KOKORO_MODEL);
  const dtype = options.dtype ?? (model.defaultDtype as Dtype);
  if (!model.dtypes.includes(dtype)) parseDtype(model, String(dtype)); // throws the located error
  const device = checkDevice('kokoro', options.device);
  store.require(KOKORO_MODEL, dtype);
  return { modelPath: store.modelDir(model), options: { dtype, device }, files: requiredFiles(model, dtype) };
}

interface KokoroModel {
  generate(
    text: string,
    options: { voice: string; speed: number },
  ): Promise<{ audio: Float32Array; sampling_rate: number }>;
}

export class KokoroTts implements TtsProvider {
  readonly name = 'kokoro';
  readonly defaultVoice: string;
  readonly cacheKeyOptions: Record<string, unknown>;
  private readonly voices: string[];
  private readonly speed: number;
  private loading: Promise<KokoroModel> | undefined;

  constructor(
    private readonly store: ModelStore,
    private readonly options: KokoroOptions,
    private readonly resample: Resample,
  ) {
    this.voices = kokoroVoices();
    this.defaultVoice = this.checkVoice(options.voice ?? KOKORO_DEFAULT_VOICE);
    this.speed = options.speed ?? 1;
    if (!(this.speed >= 0.5 && this.speed <= 2)) {
      throw new SpeechConfigError('kokoro', 'speed', `expected a number from 0.5 to 2, got ${options.speed}`);
    }
    const model = lookupModel(KOKORO_MODEL);
    this.cacheKeyOptions = { dtype: options.dtype ?? model.defaultDtype, speed: this.speed };
  }

  /** Loads the model once; a failed load is retried by the next call. */
  load(): Promise<KokoroModel> {
    this.loading ??= this.doLoad().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    const voice = this.checkVoice(options.voice ?? this.defaultVoice);
    if (!isValidSampleRate(options.sampleRate)) {
      throw new SpeechConfigError('kokoro', 'sampleRate', `expected an integer rate in Hz, got ${options.sampleRate}`);
    }
    options.signal?.throwIfAborted();
    const tts = await this.load();
    options.signal?.throwIfAborted();
    let audio: { audio: Float32Array; sampling_rate: number };
    try {
      audio = await tts.generate(text, { voice, speed: this.speed });
    } catch (err) {
      throw new SpeechProviderError('kokoro', `synthesis failed: ${(err as Error).message}`, { cause: err });
    }
    const pcm = await this.resample(float32ToInt16(audio.audio), audio.sampling_rate, options.sampleRate);
    options.signal?.throwIfAborted();
    return { pcm, sampleRate: options.sampleRate };
  }

  async close(): Promise<void> {
    this.loading = undefined;
  }

  private async doLoad(): Promise<KokoroModel> {
    const plan = kokoroLoadPlan(this.store, this.options);
    await loadTransformers(this.store.dir);
    const { KokoroTTS } = await importKokoroJs();
    try {
      // kokoro-js types `device` as its browser set; transformers accepts cpu and cuda in Node.
      const device = plan.options.device as 'cpu';
      return (await KokoroTTS.from_pretrained(plan.modelPath, {
        dtype: plan.options.dtype as 'q8',
        device,
      })) as KokoroModel;
    } catch (err) {
      throw new SpeechProviderError(
        'kokoro',
        `cannot load the model from ${plan.modelPath} (${firstLine(err)}); re-pull it: earshot models pull kokoro`,
        { cause: err },
      );
    }
  }

  private checkVoice(voice: string): string {
    if (this.voices.includes(voice)) return voice;
    throw new SpeechConfigError('kokoro', 'voice', `unknown voice '${voice}' (known: ${this.voices.join(', ')})`);
  }
}

/**
 * kokoro-js loads phonemizer (espeak-ng in Emscripten), whose module body
 * adds process-wide `uncaughtException` and `unhandledRejection` listeners
 * that rethrow (and print the whole minified module with the error). Those
 * are not ours to add to the embedding application: they are removed again
 * right after the import.
 */
async function importKokoroJs(): Promise<typeof import('kokoro-js')> {
  const exceptions = new Set(process.listeners('uncaughtException'));
  const rejections = new Set(process.listeners('unhandledRejection'));
  const mod = await import('kokoro-js');
  for (const l of process.listeners('uncaughtException'))
    if (!exceptions.has(l)) process.removeListener('uncaughtException', l);
  for (const l of process.listeners('unhandledRejection'))
    if (!rejections.has(l)) process.removeListener('unhandledRejection', l);
  return mod;
}

export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0].slice(0, 300);
}

export const createKokoro: TtsFactory = async (context) => {
  const o = context.options;
  const model = lookupModel(KOKORO_MODEL);
  const dtype = o.dtype === undefined ? undefined : (parseDtype(model, String(o.dtype)) as Dtype);
  if (typeof dtype === 'object')
    throw new SpeechConfigError('kokoro', 'dtype', 'kokoro has one graph; give a single dtype');
  const speed = o.speed === undefined ? undefined : Number(o.speed);
  const options: KokoroOptions = { voice: context.voice, dtype, device: checkDevice('kokoro', o.device), speed };
  // Fail before a run starts, not at its first utterance; the weights still load lazily.
  kokoroLoadPlan(context.modelStore, options);
  return new KokoroTts(context.modelStore, options, context.resample);
};
