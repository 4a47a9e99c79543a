import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { DependencyMissingError } from '../errors.js';

/** Where Debian's PocketSphinx lives, and the arguments every run shares. */
export const SPHINX_BINARY = 'pocketsphinx_continuous';
export const SPHINX_DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const APT_HINT = 'install it: sudo apt-get install pocketsphinx pocketsphinx-en-us';

export interface SphinxConfig {
  binary: string;
  /** `-hmm`, `-lm`, `-dict` */
  hmm: string;
  lm: string;
  dict: string;
}

/** Locates the program and the en-us model, or says which apt packages are missing. */
export function resolveSphinx(options: { binary?: string; modelDir?: string } = {}, env: NodeJS.ProcessEnv = process.env): SphinxConfig {
  const binary = options.binary ?? findOnPath(SPHINX_BINARY, env);
  if (!binary || !isExecutable(binary)) {
    throw new DependencyMissingError(`PocketSphinx (${options.binary ?? SPHINX_BINARY})`, APT_HINT);
  }
  const modelDir = options.modelDir ?? SPHINX_DEFAULT_MODEL_DIR;
  const config = {
    binary,
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
  for (const path of [config.hmm, config.lm, config.dict]) {
    if (!existsSync(path)) {
      throw new DependencyMissingError(`PocketSphinx en-us model (${path})`, 'install it: sudo apt-get install pocketsphinx-en-us');
    }
  }
  return config;
}

export function sphinxArgs(config: SphinxConfig, infile: string): string[] {
  return ['-hmm', config.hmm, '-lm', config.lm, '-dict', config.dict, '-infile', infile, '-time', 'yes'];
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Keeps the end of a stream: the log is long and only its last lines explain a failure. */
export class TailBuffer {
  private text = '';
  constructor(private readonly maxChars = 4000) {}
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.maxChars);
  }
  /** ERROR/FATAL lines if any, else the last lines. */
  summary(): string {
    const lines = this.text.split('\n').filter((l) => l.trim());
    const errors = lines.filter((l) => /ERROR|FATAL/.test(l));
    return (errors.length ? errors.slice(-3) : lines.slice(-3)).join(' | ');
  }
}
