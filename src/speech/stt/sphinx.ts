import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { encodeWav, type Resample } from '../../audio/index.js';
import { parseSphinxOutput, type SphinxSegment } from './sphinx-output.js';
import { resolveSphinx, sphinxArgs, TailBuffer, type SphinxConfig } from './sphinx-config.js';
import { SphinxStream } from './sphinx-stream.js';
import {
  isEnglish,
  prepareAudio,
  STT_SAMPLE_RATE,
  type SttFactory,
  type SttProvider,
  type TranscribeOptions,
  type Transcription,
} from './types.js';

/**
 * CMU PocketSphinx from Debian (`pocketsphinx` + `pocketsphinx-en-us`):
 * offline, no download, fast and rough. Two ways to run it:
 *
 * - one process per call (default): a WAV in a temporary folder and
 *   `pocketsphinx_continuous -infile`; each call pays ~0.45 s of model loading;
 * - `persistent: true`: one long-lived process fed over stdin (see
 *   SphinxStream), which saves that load on every call.
 */
/** One `pocketsphinx_continuous` run over a 16 kHz WAV; the child is killed on abort. */
export async function runSphinxOnce(config: SphinxConfig, pcm16k: Int16Array, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const dir = await mkdtemp(join(tmpdir(), 'earshot-sphinx-'));
  try {
    const wavPath = join(dir, 'audio.wav');
    await writeFile(wavPath, encodeWav(pcm16k, STT_SAMPLE_RATE));
    return await new Promise<string>((resolve, reject) => {
      const child = spawn(config.binary, sphinxArgs(config, wavPath), { stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const log = new TailBuffer();
      const onAbort = (): void => {
        child.kill('SIGKILL');
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // An abort during the awaits above fired before the listener existed.
      if (signal?.aborted) onAbort();
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => log.push(d));
      child.on('error', (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(new SpeechProviderError('sphinx', `cannot run ${config.binary}: ${err.message}`, { cause: err }));
      });
      child.on('close', (code, sig) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return reject(signal.reason);
        if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
        else reject(new SpeechProviderError('sphinx', `${config.binary} exited with ${sig ?? `code ${code}`}: ${log.summary()}`));
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export class SphinxStt implements SttProvider {
  readonly name = 'sphinx';
  readonly model = 'en-us';
  private stream: SphinxStream | undefined;
  private closed = false;

  constructor(
    readonly config: SphinxConfig,
    private readonly paddingSecs: number,
    private readonly resample: Resample,
    readonly persistent: boolean = false,
  ) {}

  /** The persistent recognizer process, while one runs (for diagnostics). */
  get streamProcessId(): number | undefined {
    return this.stream?.processId;
  }

  async transcribe(pcm: Int16Array, sampleRate: number, options: TranscribeOptions = {}): Promise<Transcription> {
    if (!isEnglish(options.language)) {
      throw new SpeechConfigError('sphinx', 'language', `the en-us model transcribes English only, got '${options.language}'`);
    }
    if (this.closed) throw new SpeechProviderError('sphinx', 'provider closed');
    const started = performance.now();
    const audio = await prepareAudio(pcm, sampleRate, this.paddingSecs, this.resample);
    const offsetSec = this.paddingSecs;
    let segments: SphinxSegment[] | undefined;
    let text: string;
    if (this.persistent) {
      this.stream ??= new SphinxStream(this.config);
      const got = await this.stream.recognize(audio, options.signal);
      if (got) {
        segments = got.words;
        text = got.text;
      }
    }
    if (segments === undefined) {
      // One-shot, or the stream gave up on this request (it restarts for the next).
      const parsed = parseSphinxOutput(await runSphinxOnce(this.config, audio, options.signal));
      segments = parsed.words;
      text = parsed.text;
    }
    return {
      text: text!,
      words: segments.map((w) => ({
        word: w.word,
        start_sec: round3(w.start_sec - offsetSec),
        end_sec: round3(w.end_sec - offsetSec),
        confidence: w.confidence,
      })),
      audioSeconds: pcm.length / sampleRate,
      elapsedMs: performance.now() - started,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stream?.close();
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
  });
  const persistent = o.persistent === true || o.persistent === 'true';
  return new SphinxStt(config, context.paddingSecs, context.resample, persistent);
};
