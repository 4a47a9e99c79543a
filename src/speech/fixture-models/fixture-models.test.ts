import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, requiredFiles } from '../models/registry.js';
import { ModelStore } from '../models/store.js';
import { countingTranscript } from './counting.js';
import { GraphBuilder } from './graph.js';
import { byteLevel } from './tokenizers.js';
import { writeFixtureModels } from './write.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-fixture-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the ONNX writer', () => {
  it('refuses a weight whose values do not fill its shape', () => {
    expect(() => new GraphBuilder('bad').weight('w', new Float32Array(5), [2, 3])).toThrow(
      'weight w: 5 values for shape [2,3]',
    );
  });
});

describe('the tiny fixtures', () => {
  it('fill the store with every file the loaders open, for the default dtype, fp32 and q8, and say what they are', async () => {
    const written = await writeFixtureModels(dir);
    expect(written.map((w) => w.model)).toEqual(MODELS.map((m) => m.name));
    const store = new ModelStore(dir);
    for (const model of MODELS) {
      const status = store.status(model);
      expect(status.present, model.name).toBe(true);
      expect(store.status(model, 'fp32').present, model.name).toBe(true);
      expect(store.status(model, 'q8').present, model.name).toBe(true);
      expect(status.fixture?.variant).toBe('tiny');
      expect(store.fixtureNote(model)).toMatch(/^generated fixture \(tiny\): /);
      const onnx = readdirSync(join(status.dir, 'onnx')).sort();
      expect(onnx).toEqual(
        [...new Set([...requiredFiles(model), ...requiredFiles(model, 'fp32'), ...requiredFiles(model, 'q8')])]
          .filter((f) => f.startsWith('onnx/'))
          .map((f) => f.slice(5))
          .sort(),
      );
    }
  });

  it('say one number word per burst, in the language asked for', () => {
    expect(countingTranscript(3)).toBe('one two three');
    expect(countingTranscript(2, 'de')).toBe('eins zwei');
    expect(countingTranscript(0)).toBe('');
  });

  it('spell Whisper tokens as its byte-level vocabulary does', () => {
    expect(byteLevel(' one')).toBe('Ġone');
    expect(byteLevel(' fünf')).toBe('ĠfÃ¼nf');
  });
});
