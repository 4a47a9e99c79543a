import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { int16ToBytes, type Resample } from '../../audio/index.js';
import { resolveSphinx, sphinxBatchArgs, TailBuffer, yieldToRealTime, type SphinxConfig } from './sphinx-config.js';
import { parseHypseg, SphinxBatchWorker, type BatchResult } from './sphinx-batch.js';
import { SphinxStream } from './sphinx-stream.js';
import { WorkerPool } from './pool.js';
import {
  isEnglish,
  prepareAudio,
  type SttFactory,
  type SttProvider,
  type TranscribeOptions,
  type Transcription,
} from './types.js';

/**
 * CMU PocketSphinx from Debian (`pocketsphinx` + `pocketsphinx-en-us`):
 * offline, no download, fast and rough. Three ways to run it (`mode`):
 *
 * - `pool` (default): long-lived `pocketsphinx_batch` processes, as many as
 *   the cores, shared by every session using this provider, with a bounded
 *   queue in front (pool.ts, sphinx-batch.ts); no model load per reply;
 * - `once`: a fresh `pocketsphinx_batch` per call (~0.3 s of model loading);
 *   the same decoder and settings, so the same words as the pool;
 * - `stream`: the former persistent `pocketsphinx_continuous` fed over a FIFO
 *   (sphinx-stream.ts), whose transcripts depend on what it heard before
 *   (live CMN); kept for comparison in bench/speech.ts and for word times.
 */
export type SphinxMode = 'pool' | 'once' | 'stream';
export const SPHINX_MODES: readonly SphinxMode[] = ['pool', 'once', 'stream'];

/** One `pocketsphinx_batch` run over one utterance of 16 kHz PCM; the child is killed on abort. */
export async function runSphinxOnce(
  config: SphinxConfig,
  pcm16k: Int16Array,
  signal?: AbortSignal,
): Promise<BatchResult> {
  signal?.throwIfAborted();
  const dir = await mkdtemp(join(tmpdir(), 'earshot-sphinx-'));
  try {
    await writeFile(join(dir, 'u.raw'), int16ToBytes(pcm16k));
    await writeFile(join(dir, 'ctl'), 'u\n');
    const out = join(dir, 'hypseg');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(config.batchBinary, sphinxBatchArgs(config, dir, join(dir, 'ctl'), out), {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      yieldToRealTime(child);
      const log = new TailBuffer();
      const onAbort = (): void => {
        child.kill('SIGKILL');
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // An abort during the awaits above fired before the listener existed.
      if (signal?.aborted) onAbort();
      child.stderr.on('data', (d: Buffer) => log.push(d));
      child.on('error', (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(new SpeechProviderError('sphinx', `cannot run ${config.batchBinary}: ${err.message}`, { cause: err }));
      });
      child.on('close', (code, sig) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return reject(signal.reason);
        if (code === 0) resolve();
        else
          reject(
            new SpeechProviderError(
              'sphinx',
              `${config.batchBinary} exited with ${sig ?? `code ${code}`}: ${log.summary()}`,
            ),
          );
      });
    });
    const parsed = parseHypseg(await readFile(out, 'utf8').catch(() => ''));
    if (!parsed) throw new SpeechProviderError('sphinx', `${config.batchBinary} wrote no result for the utterance`);
    return { text: parsed.words.join(' '), words: parsed.words };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export class SphinxStt implements SttProvider {
  readonly name = 'sphinx';
  readonly model = 'en-us';
  private stream: SphinxStream | undefined;
  private closed = false;
  /** Started on first use, so a text-only run starts no recognizer. */
  private workers: WorkerPool<SphinxBatchWorker> | undefined;

  constructor(
    readonly config: SphinxConfig,
    private readonly paddingSecs: number,
    private readonly resample: Resample,
    readonly mode: SphinxMode = 'pool',
    private readonly poolOptions: { size?: number; maxQueue?: number } = {},
  ) {}

  /** The shared recognizers (created on first use). */
  get pool(): WorkerPool<SphinxBatchWorker> {
    this.workers ??= new WorkerPool({
      provider: 'sphinx',
      ...this.poolOptions,
      create: async () => new SphinxBatchWorker(this.config),
    });
    return this.workers;
  }

  /** The persistent recognizer process, while one runs (for diagnostics). */
  get streamProcessId(): number | undefined {
    return this.stream?.processId;
  }

  async transcribe(pcm: Int16Array, sampleRate: number, options: TranscribeOptions = {}): Promise<Transcription> {
    if (!isEnglish(options.language)) {
      throw new SpeechConfigError(
        'sphinx',
        'language',
        `the en-us model transcribes English only, got '${options.language}'`,
      );
    }
    if (this.closed) throw new SpeechProviderError('sphinx', 'provider closed');
    const started = performance.now();
    const audio = await prepareAudio(pcm, sampleRate, this.paddingSecs, this.resample);
    const offsetSec = this.paddingSecs;
    const audioSeconds = pcm.length / sampleRate;
    if (this.mode === 'stream') {
      this.stream ??= new SphinxStream(this.config);
      const got = await this.stream.recognize(audio, options.signal);
      if (got) {
        return {
          text: got.text,
          words: got.words.map((w) => ({
            word: w.word,
            start_sec: round3(w.start_sec - offsetSec),
            end_sec: round3(w.end_sec - offsetSec),
            confidence: w.confidence,
          })),
          audioSeconds,
          elapsedMs: performance.now() - started,
        };
      }
      // The stream gave up on this request (it restarts for the next): one-shot.
    }
    const got =
      this.mode === 'pool'
        ? await this.pool.run((worker) => worker.recognize(audio), options.signal)
        : await runSphinxOnce(this.config, audio, options.signal);
    return { text: got.text, audioSeconds, elapsedMs: performance.now() - started };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.stream?.close(), this.workers?.close()]);
    this.stream = undefined;
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export const createSphinx: SttFactory = async (context) => {
  if (context.model !== undefined && context.model !== 'en-us') {
    throw new SpeechConfigError('sphinx', 'model', `only 'en-us' is available, got '${context.model}'`);
  }
  const o = context.options;
  const config = resolveSphinx({
    binary: typeof o.binary === 'string' ? o.binary : undefined,
    modelDir: typeof o.model_dir === 'string' ? o.model_dir : undefined,
    batchBinary: typeof o.batch_binary === 'string' ? o.batch_binary : undefined,
  });
  return new SphinxStt(config, context.paddingSecs, context.resample, sphinxMode(o), {
    size: positiveInt('pool_size', o.pool_size),
    maxQueue: positiveInt('pool_queue', o.pool_queue, 0),
  });
};

/** `mode`, or the older `persistent` flag (true: the stream, false: one process per call). */
function sphinxMode(o: Record<string, unknown>): SphinxMode {
  if (o.mode !== undefined) {
    const mode = String(o.mode);
    if (!(SPHINX_MODES as readonly string[]).includes(mode)) {
      throw new SpeechConfigError('sphinx', 'mode', `expected one of ${SPHINX_MODES.join(', ')}, got '${mode}'`);
    }
    return mode as SphinxMode;
  }
  if (o.persistent === true || o.persistent === 'true') return 'stream';
  if (o.persistent === false || o.persistent === 'false') return 'once';
  return 'pool';
}

function positiveInt(field: string, value: unknown, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 1024) {
    throw new SpeechConfigError(
      'sphinx',
      field,
      `expected a whole number from ${min} to 1024, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}
