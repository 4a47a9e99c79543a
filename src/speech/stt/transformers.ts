import { EarshotError } from '../../core/errors.js';
import type { AsrLoad, AsrRequest } from './asr-child.js';
import { ModelProcess } from '../model-process.js';
import { WorkerPool } from './pool.js';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { graphDtypes, MODELS, requiredFiles, type Dtype, type DtypeSpec, type ModelSpec } from '../models/registry.js';
import { parseDtype, type ModelStore } from '../models/store.js';
import { checkDevice, type OnnxDevice } from '../onnx.js';
import { int16ToFloat32, type Resample } from '../../audio/index.js';
import {
  isEnglish,
  prepareAudio,
  STT_SAMPLE_RATE,
  type SttFactory,
  type SttProvider,
  type TranscribeOptions,
  type Transcription,
} from './types.js';

type AsrProcess = ModelProcess<AsrLoad, AsrRequest, string>;

/**
 * Whisper and Moonshine through @huggingface/transformers 3.8.1 (ONNX Runtime,
 * in a process of its own), from the model store only: `earshot models pull <name>`.
 */
export type TransformersSttProvider = 'whisper' | 'moonshine';

export const DEFAULT_STT_MODEL: Record<TransformersSttProvider, string> = {
  whisper: 'whisper-base.en',
  moonshine: 'moonshine-base',
};

/** `tiny.en`, `whisper-tiny.en` → the registry entry; anything else lists what exists. */
export function resolveSttModel(provider: TransformersSttProvider, name: string | undefined): ModelSpec {
  const wanted = name ?? DEFAULT_STT_MODEL[provider];
  const candidates = MODELS.filter((m) => m.provider === provider);
  const found = candidates.find((m) => m.name === wanted || m.name === `${provider}-${wanted}`);
  if (found) return found;
  const short = candidates.map((m) => m.name.slice(provider.length + 1));
  throw new SpeechConfigError(provider, 'model', `unknown model '${wanted}' (known: ${short.join(', ')})`);
}

export interface AsrOptions {
  device?: OnnxDevice;
  dtype?: DtypeSpec;
  /** Calls waiting for the pipeline at most (`pool_queue`); default pool.ts's. */
  maxQueue?: number;
  /**
   * ONNX Runtime's threads for one call (`threads`); default ONNX Runtime's own choice, one thread on the 2-core
   * machines measured here (docs/benchmarks.md, bench:asr: 2 threads took whisper-base.en from RTF 0.254 to 0.208).
   */
  threads?: number;
}

/** Exactly what `pipeline()` gets: tested without the weights, used with them. */
export interface AsrLoadPlan {
  model: ModelSpec;
  task: 'automatic-speech-recognition';
  /** Absolute model folder, passed as the model id so nothing resolves against the hub. */
  modelPath: string;
  options: {
    device: OnnxDevice;
    dtype: Record<string, Dtype>;
    local_files_only: true;
    /** Passed on to ONNX Runtime's sessions by transformers.js. */
    session_options?: { intraOpNumThreads: number; interOpNumThreads: number };
  };
  files: string[];
}

/** The load plan, or the one-line ModelMissingError naming `earshot models pull <model>`. */
export function asrLoadPlan(store: ModelStore, model: ModelSpec, options: AsrOptions = {}): AsrLoadPlan {
  const device = checkDevice(model.provider, options.device);
  const dtype = graphDtypes(model, options.dtype);
  store.require(model.name, options.dtype);
  return {
    model,
    task: 'automatic-speech-recognition',
    modelPath: store.modelDir(model),
    options: {
      device,
      dtype,
      local_files_only: true,
      // One graph node at a time: the threads go to each node's work, where a transformer's cost is.
      ...(options.threads !== undefined
        ? { session_options: { intraOpNumThreads: options.threads, interOpNumThreads: 1 } }
        : {}),
    },
    files: requiredFiles(model, options.dtype),
  };
}

/**
 * Moonshine's decoding limit: 6 tokens per second of audio, as its paper
 * advises against runaway repetition. transformers.js rounds the seconds down,
 * so audio under a second (a short reply with `padding_secs: 0`) got one
 * decoding step, one word; this rounds up, and never allows fewer than 6.
 */
export function moonshineTokenLimit(seconds: number): number {
  return Math.max(6, Math.ceil(seconds * 6));
}

/** Whisper's `.en` checkpoints and every Moonshine checkpoint here are English-only. */
export function isMultilingual(model: ModelSpec): boolean {
  return model.provider === 'whisper' && !model.name.endsWith('.en');
}

export class TransformersStt implements SttProvider {
  readonly name: TransformersSttProvider;
  readonly model: string;
  readonly origin: string | undefined;
  /**
   * The loaded pipeline, in its own process (model-process.ts, asr-child.ts), behind the same
   * pool interface as PocketSphinx's recognizers (pool.ts): one pipeline per
   * provider (ONNX Runtime already spreads one call over the cores; a second
   * copy would double the memory), shared by every session, with the same
   * bounded queue in front. A failed load fails the call that asked for it and
   * is retried by the next one; a process that dies is replaced.
   */
  private readonly pool: WorkerPool<AsrProcess>;

  constructor(
    private readonly spec: ModelSpec,
    private readonly store: ModelStore,
    private readonly options: AsrOptions,
    private readonly paddingSecs: number,
    private readonly resample: Resample,
  ) {
    this.name = spec.provider as TransformersSttProvider;
    this.model = spec.name;
    this.origin = store.fixtureNote(spec);
    this.pool = new WorkerPool<AsrProcess>({
      provider: this.name,
      size: 1,
      ...(options.maxQueue !== undefined ? { maxQueue: options.maxQueue } : {}),
      create: () => this.doLoad(),
    });
  }

  async transcribe(pcm: Int16Array, sampleRate: number, options: TranscribeOptions = {}): Promise<Transcription> {
    const kwargs = this.generationOptions(options.language);
    const started = performance.now();
    options.signal?.throwIfAborted();
    const audio = int16ToFloat32(await prepareAudio(pcm, sampleRate, this.paddingSecs, this.resample));
    if (this.name === 'moonshine') kwargs.max_new_tokens = moonshineTokenLimit(audio.length / STT_SAMPLE_RATE);
    if (this.name === 'whisper' && audio.length > 30 * STT_SAMPLE_RATE) {
      // Whisper sees 30 s windows; longer audio is cut with overlap and stitched.
      kwargs.chunk_length_s = 30;
      kwargs.stride_length_s = 5;
    }
    let output: string;
    try {
      // ONNX Runtime cannot be interrupted: an abort stops waiting, the run finishes in the background.
      output = await this.pool.run((child) => child.call({ audio, kwargs }), options.signal);
    } catch (err) {
      if (options.signal?.aborted || err instanceof EarshotError) throw err;
      throw new SpeechProviderError(this.name, `transcription failed: ${(err as Error).message}`, { cause: err });
    }
    const text = output
      .replace(/\[BLANK_AUDIO\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { text, audioSeconds: pcm.length / sampleRate, elapsedMs: performance.now() - started };
  }

  /** Checks `language` against the model and says what to pass to generate(). */
  generationOptions(language: string | undefined): Record<string, unknown> {
    if (!isMultilingual(this.spec)) {
      if (!isEnglish(language)) {
        throw new SpeechConfigError(
          this.name,
          'language',
          `model ${this.spec.name} is English-only, got '${language}'; use a multilingual one (--stt whisper:base)`,
        );
      }
      return {}; // transformers rejects `language` for English-only checkpoints
    }
    return { language: language ?? 'en', task: 'transcribe' };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async doLoad(): Promise<AsrProcess> {
    const plan = asrLoadPlan(this.store, this.spec, this.options);
    try {
      return await ModelProcess.start<AsrLoad, AsrRequest, string>(import.meta.url, 'asr-child', this.name, {
        modelsDir: this.store.dir,
        task: plan.task,
        modelPath: plan.modelPath,
        options: plan.options,
      });
    } catch (err) {
      const first = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);
      throw new SpeechProviderError(
        this.name,
        `cannot load ${this.spec.name} from ${plan.modelPath} (${first}); ` +
          `re-pull it: earshot models pull ${this.spec.name}`,
        { cause: err },
      );
    }
  }
}

function factoryFor(provider: TransformersSttProvider): SttFactory {
  return async (context) => {
    const spec = resolveSttModel(provider, context.model);
    const o = context.options;
    const dtype = o.dtype === undefined ? undefined : parseDtype(spec, String(o.dtype));
    const device = checkDevice(provider, o.device);
    // Fail before a run starts, not at its first transcription; the weights still load lazily.
    asrLoadPlan(context.modelStore, spec, { device, dtype });
    const maxQueue = wholeNumber(provider, 'pool_queue', o.pool_queue, 0, 1024);
    const threads = wholeNumber(provider, 'threads', o.threads, 1, 64);
    return new TransformersStt(
      spec,
      context.modelStore,
      {
        device,
        dtype,
        ...(maxQueue !== undefined ? { maxQueue } : {}),
        ...(threads !== undefined ? { threads } : {}),
      },
      context.paddingSecs,
      context.resample,
    );
  };
}

/** An optional whole-number option in [min, max], or the located error. */
function wholeNumber(provider: string, key: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n >= min && n <= max) return n;
  throw new SpeechConfigError(
    provider,
    key,
    `expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
  );
}

export const createWhisper = factoryFor('whisper');
export const createMoonshine = factoryFor('moonshine');
