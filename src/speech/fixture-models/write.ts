/**
 * Writes fixture models into a model store, in the layout and file names
 * `earshot models pull` produces, so every loader runs unchanged on them:
 * `EARSHOT_MODELS_DIR=<dir> earshot run ... --stt whisper:tiny.en`.
 *
 * Each model folder also gets `earshot-fixture.json`, saying what the files
 * are: `earshot models list` and the run's trace name them as fixtures, so a
 * transcript of "one two three" is never mistaken for a real model's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DTYPE_SUFFIX, MODELS, type Dtype, type ModelSpec } from '../models/registry.js';
import { FIXTURE_MARKER, type FixtureMarker, ModelStore } from '../models/store.js';
import type { FixtureFiles } from './files.js';
import { kokoroTinyFiles } from './kokoro-tiny.js';
import { moonshineTinyFiles } from './moonshine-tiny.js';
import { whisperTinyFiles } from './whisper-tiny.js';

/** `tiny`: set weights, known outputs, kilobytes; `full`: the real architecture and size, seeded random weights. */
export type FixtureVariant = FixtureMarker['variant'];

/** Both dtypes the benchmark compares; the default dtype of every model is among them. */
export const FIXTURE_DTYPES: readonly Dtype[] = ['fp32', 'q8'];

export interface WriteFixturesOptions {
  variant?: FixtureVariant;
  /** Registry names; default: every model. */
  models?: readonly string[];
  /** Writes the full variants (seeded); tiny ones ignore it. */
  seed?: number;
}

export interface WrittenFixture {
  model: string;
  dir: string;
  files: string[];
  bytes: number;
}

/** Generates one model's files; `full` variants come from ./full (per dtype, since q8 is a different graph). */
export type FixtureGenerator = (model: ModelSpec, dtype: Dtype, seed: number) => FixtureFiles;

const TINY_DESCRIPTION: Record<string, string> = {
  whisper: 'counts voiced bursts (>= 180 ms apart) and says the count: "one two three"; language tokens pick the words',
  moonshine: 'counts voiced bursts (>= 180 ms apart) and says the count: "one two three"',
  kokoro: 'one 100 ms tone per phoneme token, token id k at 300 + 15k Hz; `$` padding is silence',
};

function tinyFiles(model: ModelSpec): FixtureFiles {
  if (model.provider === 'whisper') return whisperTinyFiles(!model.name.endsWith('.en'));
  if (model.provider === 'moonshine') return moonshineTinyFiles();
  return kokoroTinyFiles();
}

/** Writes the fixtures; returns what went where. */
export async function writeFixtureModels(dir: string, options: WriteFixturesOptions = {}): Promise<WrittenFixture[]> {
  const variant = options.variant ?? 'tiny';
  const store = new ModelStore(dir);
  const wanted = options.models ?? MODELS.map((m) => m.name);
  const written: WrittenFixture[] = [];
  for (const name of wanted) {
    const model = MODELS.find((m) => m.name === name);
    if (!model) throw new Error(`no model '${name}' (known: ${MODELS.map((m) => m.name).join(', ')})`);
    const modelDir = store.modelDir(model);
    const out: WrittenFixture = { model: name, dir: modelDir, files: [], bytes: 0 };
    const put = (path: string, content: Uint8Array | string): void => {
      const file = join(modelDir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      out.files.push(path);
      out.bytes += typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
    };
    let description: string;
    if (variant === 'tiny') {
      const files = tinyFiles(model);
      for (const [path, json] of Object.entries(files.json)) put(path, `${JSON.stringify(json, null, 2)}\n`);
      // One graph serves every dtype name: the tiny fixtures test interfaces, not precision.
      for (const [graph, bytes] of Object.entries(files.graphs)) {
        for (const dtype of FIXTURE_DTYPES) put(`onnx/${graph}${DTYPE_SUFFIX[dtype]}.onnx`, bytes);
      }
      description = TINY_DESCRIPTION[model.provider];
    } else {
      const { fullFixture, FULL_DESCRIPTION } = await import('./full/index.js');
      for (const dtype of FIXTURE_DTYPES) {
        const files = fullFixture(model, dtype, options.seed ?? 1);
        if (dtype === FIXTURE_DTYPES[0]) {
          for (const [path, json] of Object.entries(files.json)) put(path, `${JSON.stringify(json, null, 2)}\n`);
        }
        for (const [graph, bytes] of Object.entries(files.graphs))
          put(`onnx/${graph}${DTYPE_SUFFIX[dtype]}.onnx`, bytes);
      }
      description = FULL_DESCRIPTION[model.provider];
    }
    const marker: FixtureMarker = { variant, model: name, description };
    put(FIXTURE_MARKER, `${JSON.stringify(marker, null, 2)}\n`);
    written.push(out);
  }
  return written;
}
