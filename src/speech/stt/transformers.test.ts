import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyMissingError, ModelMissingError, SpeechConfigError, SpeechProviderError } from '../errors.js';
import { placeholderModel } from '../models/models.testutil.js';
import { findModel } from '../models/registry.js';
import { ModelStore } from '../models/store.js';
import { checkDevice, cudaSupport, loadTransformers } from '../onnx.js';
import { sincResample } from '../../audio/index.js';
import { createStt } from './table.js';
import { asrLoadPlan, resolveSttModel, TransformersStt } from './transformers.js';

/**
 * Whisper and Moonshine weights cannot be downloaded on this machine: these
 * tests drive the real loading code up to the model files (placeholders),
 * and check the plan handed to transformers.js and the errors a user sees.
 */
let dir: string;
let store: ModelStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-asr-'));
  store = new ModelStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('model names', () => {
  it('accept the short form, the full name, and default per provider', () => {
    expect(resolveSttModel('whisper', 'tiny.en').name).toBe('whisper-tiny.en');
    expect(resolveSttModel('whisper', 'whisper-base').name).toBe('whisper-base');
    expect(resolveSttModel('moonshine', 'tiny').name).toBe('moonshine-tiny');
    expect(resolveSttModel('whisper', undefined).name).toBe('whisper-base.en');
    expect(resolveSttModel('moonshine', undefined).name).toBe('moonshine-base');
  });

  it('refuse names the provider does not have, listing the ones it has', () => {
    expect(() => resolveSttModel('moonshine', 'small-streaming')).toThrow(
      new SpeechConfigError('moonshine', 'model', "unknown model 'small-streaming' (known: tiny, base)"),
    );
    expect(() => resolveSttModel('whisper', 'moonshine-tiny')).toThrow(
      "unknown model 'moonshine-tiny' (known: tiny.en, base.en, tiny, base)",
    );
  });
});

describe('loading plan', () => {
  it('loads from the absolute model folder, local files only, on the CPU, fp32 encoder and q8 decoder', () => {
    placeholderModel(store, 'whisper-tiny.en');
    const plan = asrLoadPlan(store, findModel('whisper-tiny.en')!);
    expect(plan).toEqual({
      model: findModel('whisper-tiny.en'),
      task: 'automatic-speech-recognition',
      modelPath: join(dir, 'onnx-community', 'whisper-tiny.en'),
      options: { device: 'cpu', dtype: { encoder_model: 'fp32', decoder_model_merged: 'q8' }, local_files_only: true },
      files: [
        'config.json',
        'generation_config.json',
        'preprocessor_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/encoder_model.onnx',
        'onnx/decoder_model_merged_quantized.onnx',
      ],
    });
  });

  it('follows a dtype option to other weight files', () => {
    placeholderModel(store, 'moonshine-tiny', 'fp16');
    expect(asrLoadPlan(store, findModel('moonshine-tiny')!, { dtype: 'fp16' }).options.dtype).toEqual({
      encoder_model: 'fp16',
      decoder_model_merged: 'fp16',
    });
  });

  it('gives ONNX Runtime the threads asked for, one node at a time, and refuses a count it cannot use', async () => {
    placeholderModel(store, 'whisper-tiny.en');
    expect(asrLoadPlan(store, findModel('whisper-tiny.en')!, { threads: 2 }).options.session_options).toEqual({
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
    });
    await expect(
      createStt({ service: 'whisper', model: 'tiny.en', threads: 0 }, { modelStore: store }),
    ).rejects.toThrow('whisper: threads: expected a whole number from 1 to 64, got 0');
  });

  it('names the pull command, in one line, when the model is not there', async () => {
    const err = await createStt('whisper:tiny.en', { modelStore: store }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelMissingError);
    expect((err as Error).message).toBe(
      `model 'whisper-tiny.en' is not in ${join(dir, 'onnx-community', 'whisper-tiny.en')} (missing config.json and 6 more); run: earshot models pull whisper-tiny.en`,
    );
    await expect(
      createStt({ service: 'moonshine', model: 'tiny', dtype: 'q4' }, { modelStore: store }),
    ).rejects.toThrow(/; run: earshot models pull moonshine-tiny --dtype q4$/);
  });

  it('asks for CUDA only where onnxruntime-node has its CUDA provider, and says how to get it', () => {
    expect(cudaSupport('darwin', 'arm64')).toEqual({
      available: false,
      reason: 'onnxruntime-node has no CUDA build for darwin-arm64',
    });
    const cuda = cudaSupport();
    if (cuda.available) {
      expect(checkDevice('whisper', 'cuda')).toBe('cuda');
    } else {
      expect(() => checkDevice('whisper', 'cuda')).toThrow(DependencyMissingError);
      expect(() => checkDevice('whisper', 'cuda')).toThrow(
        /^CUDA for whisper is missing; .*libonnxruntime_providers_cuda\.so is not installed .*ONNXRUNTIME_NODE_INSTALL_CUDA=v12 npm rebuild onnxruntime-node .*, or use device cpu$/,
      );
    }
    expect(() => checkDevice('whisper', 'tpu')).toThrow(
      new SpeechConfigError('whisper', 'device', 'expected one of cpu, cuda, got "tpu"'),
    );
  });
});

describe('TransformersStt', () => {
  it('loads its pipeline through the recognizer pool: a failed load fails its call and is retried by the next', async () => {
    placeholderModel(store, 'whisper-tiny.en');
    const stt = (await createStt(
      { service: 'whisper', model: 'tiny.en', pool_queue: 0 },
      { modelStore: store },
    )) as TransformersStt;
    try {
      for (let i = 0; i < 2; i++)
        await expect(stt.transcribe(new Int16Array(1600), 16000)).rejects.toThrow(
          /^whisper: cannot load whisper-tiny\.en/,
        );
    } finally {
      await stt.close();
    }
    await expect(stt.transcribe(new Int16Array(1600), 16000)).rejects.toThrow('whisper: recognizer pool closed');
    await expect(
      createStt({ service: 'whisper', model: 'tiny.en', pool_queue: -1 }, { modelStore: store }),
    ).rejects.toThrow('whisper: pool_queue: expected a whole number from 0 to 1024, got -1');
  });

  it('reads the files from the store through transformers.js, never the hub, and reports unreadable files with the re-pull command', async () => {
    placeholderModel(store, 'whisper-tiny.en');
    const stt = (await createStt({ service: 'whisper', model: 'tiny.en' }, { modelStore: store })) as TransformersStt;
    const err = await stt.transcribe(new Int16Array(1600), 16000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpeechProviderError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^whisper: cannot load whisper-tiny\\.en from ${join(dir, 'onnx-community', 'whisper-tiny.en')} \\(.+\\); re-pull it: earshot models pull whisper-tiny\\.en$`,
      ),
    );
    // The pipeline loads in a process of its own (model-process.ts, asr-child.ts), through the same settings as here.
    const { env } = await loadTransformers(dir);
    expect(env.allowRemoteModels).toBe(false);
    expect(env.useFSCache).toBe(false);
    expect(env.localModelPath).toBe(`${dir}/`);
    await stt.close();
  }, 30_000);

  it('refuses a non-English language on English-only models, and passes it to multilingual Whisper', () => {
    const english = new TransformersStt(findModel('whisper-base.en')!, store, {}, 2, sincResample);
    expect(english.generationOptions(undefined)).toEqual({});
    expect(english.generationOptions('en-US')).toEqual({});
    expect(() => english.generationOptions('es')).toThrow(
      "whisper: language: model whisper-base.en is English-only, got 'es'; use a multilingual one (--stt whisper:base)",
    );
    const moonshine = new TransformersStt(findModel('moonshine-base')!, store, {}, 2, sincResample);
    expect(() => moonshine.generationOptions('fr')).toThrow(SpeechConfigError);
    const multilingual = new TransformersStt(findModel('whisper-base')!, store, {}, 2, sincResample);
    expect(multilingual.generationOptions('es')).toEqual({ language: 'es', task: 'transcribe' });
    expect(multilingual.generationOptions(undefined)).toEqual({ language: 'en', task: 'transcribe' });
  });

  it('checks a scenario language when the provider is created, not at its first turn', async () => {
    placeholderModel(store, 'moonshine-base');
    await expect(createStt({ service: 'moonshine', language: 'de' }, { modelStore: store })).rejects.toThrow(
      "moonshine: language: model moonshine-base is English-only, got 'de'",
    );
  });
});
