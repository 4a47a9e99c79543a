import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ModelMissingError, SpeechConfigError } from '../errors.js';
import {
  findModel,
  MODELS,
  modelNames,
  requiredFiles,
  type Dtype,
  type DtypeSpec,
  type ModelSpec,
} from './registry.js';

/**
 * Written beside a generated fixture model's files (`npm run models:fixtures`):
 * the files load like the real model's, so the marker is what tells a
 * transcript of "one two three" from a real model's.
 */
export const FIXTURE_MARKER = 'earshot-fixture.json';

export interface FixtureMarker {
  /** `tiny`: set weights, known outputs; `full`: real dimensions, seeded random weights. */
  variant: 'tiny' | 'full';
  model: string;
  description: string;
}

/** Environment variable that moves the model store. */
export const MODELS_DIR_ENV = 'EARSHOT_MODELS_DIR';

/**
 * The default store is `models/` at the root of the project earshot runs in:
 * the nearest ancestor of `cwd` holding `.git` or `package.json`, else `cwd`.
 */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const fromEnv = env[MODELS_DIR_ENV];
  if (fromEnv) return resolve(cwd, fromEnv);
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, 'package.json'))) return join(dir, 'models');
    const parent = dirname(dir);
    if (parent === dir) return join(resolve(cwd), 'models');
    dir = parent;
  }
}

export interface FileStatus {
  path: string;
  present: boolean;
  sizeBytes: number;
}

export interface ModelStatus {
  model: ModelSpec;
  /** Where the files live: `<store>/<repo>`. */
  dir: string;
  /** Every required file is there (complete files only: downloads in progress are `.part`). */
  present: boolean;
  files: FileStatus[];
  /** Bytes of the required files that are present. */
  sizeBytes: number;
  /** Set when the folder holds generated fixtures, not the hub's weights. */
  fixture?: FixtureMarker;
}

/**
 * Model files on disk, laid out as transformers.js reads a local model:
 * `<dir>/<hub repo>/<repo path>`, so `env.localModelPath = dir` and the hub
 * repo name as model id load them unchanged.
 */
export class ModelStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ModelStore {
    return new ModelStore(defaultModelsDir(env, cwd));
  }

  modelDir(model: ModelSpec): string {
    return join(this.dir, ...model.repo.split('/'));
  }

  status(model: ModelSpec, dtype?: DtypeSpec): ModelStatus {
    const dir = this.modelDir(model);
    const files = requiredFiles(model, dtype).map((path) => {
      const stat = statSync(join(dir, path), { throwIfNoEntry: false });
      const present = stat?.isFile() ?? false;
      return { path, present, sizeBytes: present && stat ? stat.size : 0 };
    });
    const fixture = this.fixture(model);
    return {
      model,
      dir,
      present: files.every((f) => f.present),
      files,
      sizeBytes: files.reduce((sum, f) => sum + f.sizeBytes, 0),
      ...(fixture ? { fixture } : {}),
    };
  }

  /** The fixture marker in the model's folder, if there is one (an unreadable one counts as none). */
  fixture(model: ModelSpec): FixtureMarker | undefined {
    try {
      const marker = JSON.parse(readFileSync(join(this.modelDir(model), FIXTURE_MARKER), 'utf8')) as FixtureMarker;
      return marker.variant === 'tiny' || marker.variant === 'full' ? marker : undefined;
    } catch {
      return undefined;
    }
  }

  /** How a provider names weights that are not the real model's: `generated fixture (tiny): ...`; else undefined. */
  fixtureNote(model: ModelSpec): string | undefined {
    const marker = this.fixture(model);
    return marker ? `generated fixture (${marker.variant}): ${marker.description}` : undefined;
  }

  list(): ModelStatus[] {
    return MODELS.map((m) => this.status(m));
  }

  /** The model's spec when all its files are present; otherwise the one-line error naming the pull command. */
  require(name: string, dtype?: DtypeSpec): ModelStatus {
    const model = lookupModel(name);
    const status = this.status(model, dtype);
    if (!status.present) {
      throw new ModelMissingError(
        model.name,
        status.dir,
        status.files.filter((f) => !f.present).map((f) => f.path),
        pullCommand(model, dtype),
      );
    }
    return status;
  }
}

/** The command that fetches exactly the files a load with this dtype needs. */
export function pullCommand(model: ModelSpec, dtype?: DtypeSpec): string {
  const base = `earshot models pull ${model.name}`;
  if (dtype === undefined || formatDtype(dtype) === formatDtype(model.defaultDtype)) return base;
  return `${base} --dtype ${formatDtype(dtype)}`;
}

/** `q8`, or `decoder_model_merged=q8,encoder_model=fp32` (sorted) for per-graph dtypes. */
export function formatDtype(dtype: DtypeSpec): string {
  if (typeof dtype === 'string') return dtype;
  return Object.keys(dtype)
    .sort()
    .map((k) => `${k}=${dtype[k]}`)
    .join(',');
}

/** Inverse of `formatDtype`; checks every name against the model's graphs and dtypes. */
export function parseDtype(model: ModelSpec, text: string): DtypeSpec {
  const bad = (what: string): never => {
    throw new SpeechConfigError(
      model.name,
      'dtype',
      `${what} (dtypes: ${model.dtypes.join(', ')}; graphs: ${model.graphs.join(', ')})`,
    );
  };
  if (!text.includes('=')) {
    if (!model.dtypes.includes(text as Dtype)) bad(`unknown dtype '${text}'`);
    return text as Dtype;
  }
  const out: Record<string, Dtype> = {};
  for (const part of text.split(',')) {
    const [graph, d] = part.split('=').map((s) => s.trim());
    if (!model.graphs.includes(graph)) bad(`unknown graph '${graph}'`);
    if (!model.dtypes.includes(d as Dtype)) bad(`unknown dtype '${d}'`);
    out[graph] = d as Dtype;
  }
  return out;
}

export function lookupModel(name: string): ModelSpec {
  const model = findModel(name);
  if (!model)
    throw new SpeechConfigError('models', 'name', `unknown model '${name}' (known: ${modelNames().join(', ')})`);
  return model;
}
