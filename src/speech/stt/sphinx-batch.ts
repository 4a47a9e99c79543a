import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { constants, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { SpeechProviderError } from '../errors.js';
import { int16ToBytes } from '../../audio/index.js';
import { baseWord, isFiller } from './sphinx-output.js';
import { sphinxBatchArgs, TailBuffer, yieldToRealTime, type SphinxConfig } from './sphinx-config.js';
import { STT_SAMPLE_RATE } from './types.js';
import type { PoolWorker } from './pool.js';

/**
 * One long-lived `pocketsphinx_batch` that decodes utterance after utterance
 * without reloading its model: its control file (`-ctl`) is a FIFO we write
 * one line per utterance to, naming a raw 16 kHz file, and its `-hypseg`
 * output is a FIFO it writes one line per utterance to, in the same order.
 *
 * Why batch and not `pocketsphinx_continuous` (what earshot ran before, one
 * process per reply, or one long-lived process fed over a FIFO): the en-us
 * model normalises cepstra by their mean (CMN), and the continuous program
 * does it "live" — each utterance is normalised with the mean of the
 * utterances before it, starting from the model's prior (`-cmninit 41.00,
 * -5.29, ...` in feat.params, which overrides the command line). Flite's
 * voices sit far from that prior (c0 ≈ 52, c2 ≈ 13), so a fresh process
 * heard every reply with a wrong mean (9.4 % WER for slt) while a long-lived
 * one had adapted to the voice (6.4 %) — and would transcribe the same audio
 * differently depending on what it heard before. The batch program applies
 * the model's own `-cmn batch`: each utterance is normalised by its own mean
 * over its own frames, so the transcript of an utterance depends on that
 * utterance only (slt 7.9 %, rms 4.9 % = the persistent figure), whatever the
 * process decoded before and whether it is fresh or not. The one-shot path
 * runs the same program on a one-line control file and gives the same words.
 *
 * What it cannot give: word times. With `-remove_silence yes` (the default,
 * and 3× faster than decoding the padding) its frame numbers count only the
 * frames the VAD kept, not the audio's time, so transcriptions carry no
 * `words`.
 */

/** Nothing comes back for an utterance within this (plus twice its length): the process is stuck. */
const BASE_DEADLINE_MS = 10_000;

export interface BatchResult {
  text: string;
  /** Words as decoded, fillers removed. */
  words: string[];
}

interface Pending {
  id: string;
  file: string;
  done: (result: BatchResult | Error) => void;
  timer: NodeJS.Timeout;
}

export class SphinxBatchWorker implements PoolWorker {
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;
  private readonly ctl: Socket;
  private readonly hyp: Socket;
  private readonly dir: string;
  private readonly log = new TailBuffer();
  private pending: Pending[] = [];
  private next = 0;
  private dead: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(config: SphinxConfig) {
    this.dir = mkdtempSync(join(tmpdir(), 'earshot-sphinx-pool-'));
    const ctlPath = join(this.dir, 'ctl.fifo');
    const hypPath = join(this.dir, 'hyp.fifo');
    execFileSync('mkfifo', ['-m', '600', ctlPath, hypPath]);
    // Node gives a child socketpairs, which PocketSphinx cannot open by name:
    // both streams are FIFOs, opened read-write here so neither open blocks.
    this.ctl = new Socket({ fd: openSync(ctlPath, constants.O_RDWR), readable: false, writable: true });
    this.hyp = new Socket({ fd: openSync(hypPath, constants.O_RDWR), readable: true, writable: false });
    this.child = spawn(config.batchBinary, sphinxBatchArgs(config, this.dir, ctlPath, hypPath), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    yieldToRealTime(this.child);
    this.child.stdout.resume();
    this.child.stderr.on('data', (d: Buffer) => this.log.push(d));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('error', (err) =>
      this.fail(new SpeechProviderError('sphinx', `cannot run ${config.batchBinary}: ${err.message}`, { cause: err })),
    );
    this.child.on('exit', (code, sig) =>
      this.fail(
        new SpeechProviderError(
          'sphinx',
          `${config.batchBinary} exited with ${sig ?? `code ${code}`}: ${this.log.summary()}`,
        ),
      ),
    );
    this.ctl.on('error', (err) => this.fail(err));
    this.hyp.on('error', (err) => this.fail(err));
    createInterface({ input: this.hyp }).on('line', (line) => this.onLine(line));
    // An idle recognizer must not keep the process alive; a pending utterance's deadline timer does.
    this.child.unref();
    for (const s of [this.ctl, this.hyp, this.child.stdout as Socket, this.child.stderr as Socket]) s.unref();
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  get processId(): number | undefined {
    return this.child.pid;
  }

  /** The words of one utterance of 16 kHz PCM (padding included). */
  recognize(pcm16k: Int16Array): Promise<BatchResult> {
    if (this.dead) return Promise.reject(this.dead);
    const id = `u${++this.next}`;
    const file = join(this.dir, `${id}.raw`);
    writeFileSync(file, int16ToBytes(pcm16k));
    return new Promise((resolve, reject) => {
      const deadlineMs = BASE_DEADLINE_MS + (2 * pcm16k.length * 1000) / STT_SAMPLE_RATE;
      this.pending.push({
        id,
        file,
        done: (r) => (r instanceof Error ? reject(r) : resolve(r)),
        timer: setTimeout(
          () =>
            this.fail(
              new SpeechProviderError('sphinx', `no result for an utterance within ${Math.round(deadlineMs)} ms`),
            ),
          deadlineMs,
        ),
      });
      this.ctl.write(`${id}\n`);
    });
  }

  async close(): Promise<void> {
    const running = this.child.exitCode === null && this.child.signalCode === null;
    // Wait for it even when nothing else keeps the process alive (it is unref'd while idle).
    if (running) this.child.ref();
    this.fail(new SpeechProviderError('sphinx', 'recognizer closed'));
    if (running) await this.exited;
  }

  private onLine(line: string): void {
    const parsed = parseHypseg(line);
    if (!parsed) return;
    // Lines come in control-file order; one for another utterance means ours was skipped.
    while (this.pending.length > 0) {
      const p = this.pending.shift()!;
      clearTimeout(p.timer);
      rmSync(p.file, { force: true });
      if (p.id === parsed.id) {
        p.done({ text: parsed.words.join(' '), words: parsed.words });
        return;
      }
      p.done(new SpeechProviderError('sphinx', `the recognizer skipped an utterance: ${this.log.summary()}`));
    }
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) {
      clearTimeout(p.timer);
      p.done(err);
    }
    this.ctl.destroy();
    this.hyp.destroy();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A `-hypseg` line: `id S scale T total A acoustic L lm` then, per segment,
 * `start_frame acoustic lm word`, then the end frame. Fillers (`<s>`,
 * `<sil>`, `[NOISE]`, `++...++`) are not words; `to(3)` is `to`.
 */
export function parseHypseg(line: string): { id: string; words: string[] } | undefined {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 9 || parts[1] !== 'S' || parts[3] !== 'T') return undefined;
  const words: string[] = [];
  for (let i = 9; i + 3 < parts.length; i += 4) {
    const word = parts[i + 3];
    if (!isFiller(word)) words.push(baseWord(word));
  }
  return { id: parts[0], words };
}
