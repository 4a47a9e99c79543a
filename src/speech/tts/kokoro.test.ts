import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelMissingError, SpeechConfigError, SpeechProviderError } from '../errors.js';
import { placeholderModel } from '../models/models.testutil.js';
import { ModelStore } from '../models/store.js';
import { sincResample } from '../../audio/index.js';
import { KokoroTts, kokoroLoadPlan, kokoroVoices } from './kokoro.js';
import { createTts, defaultTtsProvider } from './table.js';

/**
 * Kokoro's weights cannot be downloaded on this machine: these tests drive
 * the real loading code up to the model files (placeholders), and check the
 * plan handed to kokoro-js and the errors a user sees.
 */
let dir: string;
let store: ModelStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-kokoro-'));
  store = new ModelStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('kokoro', () => {
  it('knows the voices kokoro-js ships, without the model', () => {
    const voices = kokoroVoices();
    expect(voices).toContain('af_heart');
    expect(voices).toContain('bm_george');
    expect(voices.length).toBeGreaterThanOrEqual(28);
  });

  it('gives the one-line pull command when the model is missing, as soon as the provider is created', async () => {
    const err = await createTts('kokoro', { modelStore: store, noCache: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelMissingError);
    expect((err as Error).message).toBe(
      `model 'kokoro' is not in ${join(dir, 'onnx-community', 'Kokoro-82M-v1.0-ONNX')} (missing config.json and 3 more); run: earshot models pull kokoro`,
    );
    await expect(createTts({ service: 'kokoro', dtype: 'fp32' }, { modelStore: store })).rejects.toThrow(
      /; run: earshot models pull kokoro --dtype fp32$/,
    );
  });

  it('loads from the absolute model folder with q8 weights on the CPU unless told otherwise', () => {
    placeholderModel(store, 'kokoro');
    expect(kokoroLoadPlan(store)).toEqual({
      modelPath: join(dir, 'onnx-community', 'Kokoro-82M-v1.0-ONNX'),
      options: { dtype: 'q8', device: 'cpu' },
      files: ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
    });
    placeholderModel(store, 'kokoro', 'fp16');
    expect(kokoroLoadPlan(store, { dtype: 'fp16' }).files.at(-1)).toBe('onnx/model_fp16.onnx');
  });

  it('refuses unknown voices, dtypes and speeds before loading anything', async () => {
    placeholderModel(store, 'kokoro');
    await expect(createTts('kokoro:zz_nobody', { modelStore: store })).rejects.toThrow(
      /^kokoro: voice: unknown voice 'zz_nobody' \(known: af_alloy, /,
    );
    await expect(createTts({ service: 'kokoro', dtype: 'int2' }, { modelStore: store })).rejects.toThrow(
      "kokoro: dtype: unknown dtype 'int2'",
    );
    expect(() => new KokoroTts(store, { speed: 3 }, sincResample)).toThrow(
      new SpeechConfigError('kokoro', 'speed', 'expected a number from 0.5 to 2, got 3'),
    );
  });

  it('keys the utterance cache on dtype and speed', () => {
    placeholderModel(store, 'kokoro');
    expect(new KokoroTts(store, { speed: 1.1 }, sincResample).cacheKeyOptions).toEqual({ dtype: 'q8', speed: 1.1 });
  });

  it('reads the files through kokoro-js and transformers.js, and reports unreadable ones with the re-pull command', async () => {
    placeholderModel(store, 'kokoro');
    const listeners = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    const tts = await createTts('kokoro:af_bella', { modelStore: store, noCache: true });
    const err = await tts.synthesize('Hello.', { sampleRate: 16000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpeechProviderError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^kokoro: cannot load the model from ${join(dir, 'onnx-community', 'Kokoro-82M-v1.0-ONNX')} \\(.+\\); re-pull it: earshot models pull kokoro$`,
      ),
    );
    // kokoro-js's phonemizer adds process-wide error handlers when imported; they are taken out again.
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(
      listeners,
    );
    await tts.close();
  }, 30_000);

  it('is the default TTS only where its model is present', () => {
    expect(defaultTtsProvider(store)).toBe('flite');
    placeholderModel(store, 'kokoro');
    expect(defaultTtsProvider(store)).toBe('kokoro');
  });
});
