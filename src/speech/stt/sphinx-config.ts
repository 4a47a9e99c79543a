import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { DependencyMissingError } from '../errors.js';

/** Where Debian's PocketSphinx lives, and the arguments every run shares. */
export const SPHINX_BINARY = 'pocketsphinx_continuous';
/** The pooled and one-shot recognizer (sphinx-batch.ts says why batch). */
export const SPHINX_BATCH_BINARY = 'pocketsphinx_batch';
export const SPHINX_DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const APT_HINT = 'install it: sudo apt-get install pocketsphinx pocketsphinx-en-us';

export interface SphinxConfig {
  /** `pocketsphinx_continuous`, for the `stream` mode. */
  binary: string;
  /** `pocketsphinx_batch`, for the pool and one-shot calls. */
  batchBinary: string;
  /** `-hmm`, `-lm`, `-dict` */
  hmm: string;
  lm: string;
  dict: string;
}

/** Locates the program and the en-us model, or says which apt packages are missing. */
export function resolveSphinx(
  options: { binary?: string; batchBinary?: string; modelDir?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): SphinxConfig {
  const binary = findProgram(options.binary, SPHINX_BINARY, env);
  const batchBinary = findProgram(options.batchBinary, SPHINX_BATCH_BINARY, env);
  const modelDir = options.modelDir ?? SPHINX_DEFAULT_MODEL_DIR;
  const config = {
    binary,
    batchBinary,
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
  for (const path of [config.hmm, config.lm, config.dict]) {
    if (!existsSync(path)) {
      throw new DependencyMissingError(
        `PocketSphinx en-us model (${path})`,
        'install it: sudo apt-get install pocketsphinx-en-us',
      );
    }
  }
  return config;
}

/**
 * The nice value recognizers run at. Recognition is batch work that shares
 * the cores with real-time work: the pacer thread's 20 ms frames, and a bot's
 * own paced speech. On a machine with fewer cores than busy tasks, a woken
 * pacer otherwise waits out a recognizer's time slice (frame lateness p99 of
 * 2.4–3.1 ms at 8 and 16 transcribing sessions on 2 cores, docs/benchmarks.md);
 * at nice 10 the kernel runs it at once, and the recognizers still get every
 * cycle nothing real-time wants. Not 19: beside a bot's own busy models at
 * nice 0 a recognizer there gets ~1.5 % of a core, and a reply's transcript
 * could outlast its expectation; at 10 it keeps ~10 %. Raising a child's nice
 * value needs no privilege.
 */
export const RECOGNIZER_NICE = 10;

/** Lowers a just-spawned recognizer's priority to `RECOGNIZER_NICE`, never above this process's own. */
export function yieldToRealTime(child: ChildProcess): void {
  // No pid: it failed to start, which its 'error' event reports.
  if (child.pid === undefined) return;
  try {
    setPriority(child.pid, Math.max(getPriority(), RECOGNIZER_NICE));
  } catch {
    // It has exited already (its exit is reported on its own): nothing left to lower.
  }
}

export function sphinxArgs(config: SphinxConfig, infile: string): string[] {
  return ['-hmm', config.hmm, '-lm', config.lm, '-dict', config.dict, '-infile', infile, '-time', 'yes'];
}

function findProgram(given: string | undefined, name: string, env: NodeJS.ProcessEnv): string {
  const path = given ?? findOnPath(name, env);
  if (!path || !isExecutable(path)) throw new DependencyMissingError(`PocketSphinx (${given ?? name})`, APT_HINT);
  return path;
}

/**
 * `pocketsphinx_batch` reading utterance names from `ctl` (raw 16 kHz files
 * in `dir`) and writing one `-hypseg` line per utterance to `hypseg`. The
 * model's feat.params supplies `-cmn batch`; the log goes to stderr.
 */
export function sphinxBatchArgs(config: SphinxConfig, dir: string, ctl: string, hypseg: string): string[] {
  return [
    '-hmm',
    config.hmm,
    '-lm',
    config.lm,
    '-dict',
    config.dict,
    '-adcin',
    'yes',
    '-cepdir',
    dir,
    '-cepext',
    '.raw',
    '-ctl',
    ctl,
    '-hypseg',
    hypseg,
  ];
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
