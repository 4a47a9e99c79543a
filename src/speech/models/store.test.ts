import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelMissingError, SpeechConfigError } from '../errors.js';
import { findModel, graphDtypes, MODELS, requiredFiles } from './registry.js';
import { defaultModelsDir, formatDtype, ModelStore, parseDtype, pullCommand } from './store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(store: ModelStore, name: string, files: string[], size = 10): void {
  for (const f of files) {
    const path = join(store.modelDir(findModel(name)!), f);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.alloc(size));
  }
}

describe('defaultModelsDir', () => {
  it('is models/ at the nearest project root above the working folder', () => {
    mkdirSync(join(dir, 'proj', 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(dir, 'proj', 'package.json'), '{}');
    expect(defaultModelsDir({}, join(dir, 'proj', 'sub', 'deeper'))).toBe(join(dir, 'proj', 'models'));
  });

  it('follows EARSHOT_MODELS_DIR, relative to the working folder', () => {
    expect(defaultModelsDir({ EARSHOT_MODELS_DIR: '/srv/models' }, dir)).toBe('/srv/models');
    expect(defaultModelsDir({ EARSHOT_MODELS_DIR: 'weights' }, dir)).toBe(join(dir, 'weights'));
  });
});

describe('the registry', () => {
  it('names the hub repositories and the files transformers.js opens', () => {
    expect(MODELS.map((m) => `${m.name} ${m.repo}`)).toEqual([
      'whisper-tiny.en onnx-community/whisper-tiny.en',
      'whisper-base.en onnx-community/whisper-base.en',
      'whisper-tiny onnx-community/whisper-tiny',
      'whisper-base onnx-community/whisper-base',
      'moonshine-tiny onnx-community/moonshine-tiny-ONNX',
      'moonshine-base onnx-community/moonshine-base-ONNX',
      'kokoro onnx-community/Kokoro-82M-v1.0-ONNX',
    ]);
    expect(requiredFiles(findModel('moonshine-base')!)).toEqual([
      'config.json',
      'generation_config.json',
      'preprocessor_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/encoder_model.onnx',
      'onnx/decoder_model_merged_quantized.onnx',
    ]);
    expect(requiredFiles(findModel('kokoro')!)).toEqual([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_quantized.onnx',
    ]);
  });

  it('maps a dtype to transformers.js file suffixes, per graph or for all', () => {
    const whisper = findModel('whisper-tiny.en')!;
    expect(requiredFiles(whisper, 'fp16').slice(-2)).toEqual([
      'onnx/encoder_model_fp16.onnx',
      'onnx/decoder_model_merged_fp16.onnx',
    ]);
    expect(graphDtypes(whisper, { decoder_model_merged: 'q4' })).toEqual({
      encoder_model: 'fp32',
      decoder_model_merged: 'q4',
    });
    expect(requiredFiles(findModel('kokoro')!, 'fp32')).toContain('onnx/model.onnx');
  });

  it('parses and prints --dtype values, refusing unknown graphs and dtypes', () => {
    const whisper = findModel('whisper-tiny.en')!;
    expect(parseDtype(whisper, 'q8')).toBe('q8');
    expect(parseDtype(whisper, 'encoder_model=fp16,decoder_model_merged=q4')).toEqual({
      encoder_model: 'fp16',
      decoder_model_merged: 'q4',
    });
    expect(formatDtype({ encoder_model: 'fp16', decoder_model_merged: 'q4' })).toBe(
      'decoder_model_merged=q4,encoder_model=fp16',
    );
    expect(() => parseDtype(whisper, 'fp8')).toThrow(SpeechConfigError);
    expect(() => parseDtype(whisper, 'decoder=q8')).toThrow("whisper-tiny.en: dtype: unknown graph 'decoder'");
  });
});

describe('ModelStore', () => {
  it('lays models out as <store>/<hub repo>/<path>, the layout transformers.js reads locally', () => {
    const store = new ModelStore(dir);
    expect(store.modelDir(findModel('kokoro')!)).toBe(join(dir, 'onnx-community', 'Kokoro-82M-v1.0-ONNX'));
  });

  it('lists every model as missing, partial or present with its size on disk', () => {
    const store = new ModelStore(dir);
    const whisper = findModel('whisper-tiny.en')!;
    put(store, 'whisper-tiny.en', requiredFiles(whisper).slice(0, 3), 100);
    put(store, 'kokoro', requiredFiles(findModel('kokoro')!), 250);
    const byName = Object.fromEntries(store.list().map((s) => [s.model.name, s]));
    expect(byName['whisper-tiny.en']).toMatchObject({ present: false, sizeBytes: 300 });
    expect(byName['whisper-tiny.en'].files.filter((f) => f.present)).toHaveLength(3);
    expect(byName.kokoro).toMatchObject({ present: true, sizeBytes: 1000 });
    expect(byName['moonshine-base']).toMatchObject({ present: false, sizeBytes: 0 });
  });

  it('does not count an unfinished .part download as present', () => {
    const store = new ModelStore(dir);
    const files = requiredFiles(findModel('kokoro')!);
    put(store, 'kokoro', files.slice(0, -1));
    put(store, 'kokoro', [`${files.at(-1)}.part`]);
    expect(store.status(findModel('kokoro')!).present).toBe(false);
  });

  it('gives a one-line error naming the pull command when a model is missing', () => {
    const store = new ModelStore(dir);
    const err = (() => {
      try {
        store.require('moonshine-tiny');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ModelMissingError);
    expect((err as Error).message).toBe(
      `model 'moonshine-tiny' is not in ${join(dir, 'onnx-community', 'moonshine-tiny-ONNX')} (missing config.json and 6 more); run: earshot models pull moonshine-tiny`,
    );
    expect((err as Error).message).not.toContain('\n');
    expect((err as ModelMissingError).missingFiles).toHaveLength(7);
  });

  it('names the --dtype in the pull command when a non-default precision is asked for', () => {
    const kokoro = findModel('kokoro')!;
    expect(pullCommand(kokoro)).toBe('earshot models pull kokoro');
    expect(pullCommand(kokoro, 'q8')).toBe('earshot models pull kokoro');
    expect(pullCommand(kokoro, 'fp32')).toBe('earshot models pull kokoro --dtype fp32');
    expect(() => new ModelStore(dir).require('kokoro', 'fp16')).toThrow(
      /\(missing config\.json and 3 more\); run: earshot models pull kokoro --dtype fp16$/,
    );
  });
});
