import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { requiredFiles, type Dtype } from '../models/registry.js';
import { lookupModel, parseDtype, type ModelStore } from '../models/store.js';
import { EarshotError } from '../../core/errors.js';
import { ModelProcess } from '../model-process.js';
import { checkDevice, type OnnxDevice } from '../onnx.js';
import { WorkerPool } from '../stt/pool.js';
import type { KokoroAudio, KokoroLoad, KokoroRequest } from './kokoro-child.js';
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

type KokoroProcess = ModelProcess<KokoroLoad, KokoroRequest, KokoroAudio>;

export class KokoroTts implements TtsProvider {
  readonly name = 'kokoro';
  readonly defaultVoice: string;
  readonly cacheKeyOptions: Record<string, unknown>;
  readonly origin: string | undefined;
  private readonly voices: string[];
  private readonly speed: number;
  /** The model in its own process (model-process.ts, kokoro-child.ts), one call at a time, queue bounded. */
  private readonly pool: WorkerPool<KokoroProcess>;

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
    this.origin = store.fixtureNote(model);
    const fixture = store.fixture(model);
    // A fixture's audio must never be served from the cache once the real weights are in place.
    this.pool = new WorkerPool<KokoroProcess>({ provider: 'kokoro', size: 1, create: () => this.doLoad() });
    this.cacheKeyOptions = {
      dtype: options.dtype ?? model.defaultDtype,
      speed: this.speed,
      ...(fixture ? { fixture: fixture.variant } : {}),
    };
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    const voice = this.checkVoice(options.voice ?? this.defaultVoice);
    if (!isValidSampleRate(options.sampleRate)) {
      throw new SpeechConfigError('kokoro', 'sampleRate', `expected an integer rate in Hz, got ${options.sampleRate}`);
    }
    options.signal?.throwIfAborted();
    let audio: KokoroAudio;
    try {
      audio = await this.pool.run((child) => child.call({ text, voice, speed: this.speed }), options.signal);
    } catch (err) {
      if (options.signal?.aborted || err instanceof EarshotError) throw err;
      throw new SpeechProviderError('kokoro', `synthesis failed: ${(err as Error).message}`, { cause: err });
    }
    const pcm = await this.resample(float32ToInt16(audio.audio), audio.sampleRate, options.sampleRate);
    options.signal?.throwIfAborted();
    return { pcm, sampleRate: options.sampleRate };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async doLoad(): Promise<KokoroProcess> {
    const plan = kokoroLoadPlan(this.store, this.options);
    try {
      return await ModelProcess.start<KokoroLoad, KokoroRequest, KokoroAudio>(
        import.meta.url,
        'kokoro-child',
        'kokoro',
        {
          modelsDir: this.store.dir,
          modelPath: plan.modelPath,
          dtype: plan.options.dtype,
          device: plan.options.device,
        },
      );
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
