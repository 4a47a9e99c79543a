import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { int16ToBytes } from '../../audio/index.js';
import { baseWord, isFiller, parseSphinxLine, type SphinxSegment } from './sphinx-output.js';
import { sphinxArgs, yieldToRealTime, type SphinxConfig } from './sphinx-config.js';
import { STT_SAMPLE_RATE } from './types.js';

/**
 * One long-lived `pocketsphinx_continuous -infile <fifo>` that transcribes
 * request after request without reloading its model.
 *
 * The program segments its input itself (energy VAD) and prints a hypothesis
 * only when an utterance ends, with word times counted from the start of the
 * stream. A request's audio may hold no speech at all and then prints nothing,
 * so silence alone cannot tell that a request is finished. Each request is
 * therefore followed by a short burst of noise at a known stream time (the
 * sentinel): the segmenter always closes it as its own utterance, and once an
 * utterance starting at the sentinel is printed, everything before it has been.
 * Utterances are attributed to requests by their start time.
 *
 * If the sentinel never shows up (deadline) or the process dies, pending
 * requests answer `undefined` and the caller runs them one-shot; the next
 * request starts a fresh process.
 */

/** Silence between a request's audio and its sentinel: longer than the segmenter's 0.5 s end-of-speech wait. */
const GAP_SEC = 1.0;
const SENTINEL_SEC = 0.25;
const TAIL_SEC = 1.0;
/** pocketsphinx reads 2048 samples per fread and blocks until it has them. */
const READ_BLOCK = 2048;
/** An utterance's `<s>` may start this much before the speech the segmenter heard. */
const LEAD_SEC = 0.4;

interface RunningStream {
  child: ChildProcessByStdio<null, Readable, null>;
  /** Write end of the FIFO PocketSphinx reads. */
  audio: Socket;
  dir: string;
}

interface StreamRequest {
  startSec: number;
  sentinelSec: number;
  texts: string[];
  words: SphinxSegment[];
  done: (result: { text: string; words: SphinxSegment[] } | undefined) => void;
  timer: NodeJS.Timeout;
}

export class SphinxStream {
  private running: RunningStream | undefined;
  private offsetSamples = 0;
  private pending: StreamRequest[] = [];
  /** Request the utterance being printed belongs to (null: none, drop it). */
  private current: StreamRequest | null = null;
  /** Hypothesis printed, waiting for its first segment to be attributed. */
  private utteranceText: string | undefined;
  private readonly sentinel: Int16Array;

  constructor(private readonly config: SphinxConfig) {
    this.sentinel = noiseBurst(Math.round(SENTINEL_SEC * STT_SAMPLE_RATE));
  }

  /** The recognizer process, while one runs (for diagnostics). */
  get processId(): number | undefined {
    return this.running?.child.pid;
  }

  /**
   * The request's hypotheses and words (times from the start of `pcm16k`), or
   * undefined when the stream failed and the caller should run it one-shot.
   */
  recognize(pcm16k: Int16Array, signal?: AbortSignal): Promise<{ text: string; words: SphinxSegment[] } | undefined> {
    signal?.throwIfAborted();
    const { audio } = this.ensureProcess();
    const audioSec = pcm16k.length / STT_SAMPLE_RATE;
    const gapSamples = Math.round(GAP_SEC * STT_SAMPLE_RATE);
    const startSample = this.offsetSamples;
    const sentinelSample = startSample + pcm16k.length + gapSamples;
    let total = pcm16k.length + gapSamples + this.sentinel.length + Math.round(TAIL_SEC * STT_SAMPLE_RATE);
    total = Math.ceil(total / READ_BLOCK) * READ_BLOCK;
    const block = new Int16Array(total);
    block.set(pcm16k, 0);
    block.set(this.sentinel, pcm16k.length + gapSamples);
    this.offsetSamples += total;

    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        // The audio is already in the pipe; its utterances are dropped when they arrive.
        request.done = () => undefined;
        reject(signal?.reason);
      };
      const request: StreamRequest = {
        startSec: startSample / STT_SAMPLE_RATE,
        sentinelSec: sentinelSample / STT_SAMPLE_RATE,
        texts: [],
        words: [],
        done: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        timer: setTimeout(() => this.fail(), 10_000 + 2 * audioSec * 1000),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.push(request);
      audio.write(int16ToBytes(block));
    });
  }

  async close(): Promise<void> {
    const running = this.running;
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
      running.child.ref(); // wait for it even when nothing else keeps the process alive
      this.fail(); // kills it
      await exited;
      return;
    }
    this.fail();
  }

  private ensureProcess(): RunningStream {
    if (this.running) return this.running;
    // Node gives a child socketpairs, not pipes, for stdio, and PocketSphinx
    // cannot open /dev/stdin on a socket: the audio goes through a FIFO.
    const dir = mkdtempSync(join(tmpdir(), 'earshot-sphinx-stream-'));
    const fifo = join(dir, 'audio.fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    // Its log would grow by kilobytes per utterance for as long as it lives; a
    // failure here only sends requests to the one-shot path, which reports it.
    const args = [...sphinxArgs(this.config, fifo), '-logfn', '/dev/null'];
    const child = spawn(this.config.binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    yieldToRealTime(child);
    // Read-write so the open cannot block waiting for the reader; writes then queue in the pipe.
    const audio = new Socket({ fd: openSync(fifo, constants.O_RDWR), readable: false, writable: true });
    const running: RunningStream = { child, audio, dir };
    this.running = running;
    this.offsetSamples = 0;
    audio.on('error', () => this.fail(running));
    child.on('error', () => this.fail(running));
    child.on('exit', () => this.fail(running));
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    // An idle recognizer must not keep the process alive; a pending request's deadline timer does.
    child.unref();
    (child.stdout as Socket).unref();
    audio.unref();
    return running;
  }

  private onLine(line: string): void {
    const parsed = parseSphinxLine(line);
    if (parsed.kind === 'hypothesis') {
      // An empty line is the hypothesis of a noise-only utterance (the sentinel's).
      this.utteranceText = parsed.text;
      this.current = null;
      return;
    }
    if (this.utteranceText !== undefined) {
      // First segment of an utterance: its start says whose it is.
      this.settleUpTo(parsed.start_sec);
      const head = this.pending[0];
      this.current = head && parsed.start_sec >= head.startSec - LEAD_SEC ? head : null;
      if (this.current && this.utteranceText) this.current.texts.push(this.utteranceText);
      this.utteranceText = undefined;
    }
    const owner = this.current;
    if (owner && !isFiller(parsed.word)) {
      owner.words.push({
        word: baseWord(parsed.word),
        start_sec: parsed.start_sec - owner.startSec,
        end_sec: parsed.end_sec - owner.startSec,
        confidence: parsed.confidence,
      });
    }
  }

  /** Completes every request whose sentinel starts before `sec`. */
  private settleUpTo(sec: number): void {
    while (this.pending.length && sec >= this.pending[0].sentinelSec - LEAD_SEC) {
      const request = this.pending.shift()!;
      clearTimeout(request.timer);
      request.done({ text: request.texts.join(' ').trim(), words: request.words });
    }
  }

  /** Gives up on the process: pending requests go one-shot, the next one respawns. */
  private fail(which?: RunningStream): void {
    if (which && which !== this.running) return;
    const running = this.running;
    this.running = undefined;
    this.current = null;
    this.utteranceText = undefined;
    const requests = this.pending;
    this.pending = [];
    for (const r of requests) {
      clearTimeout(r.timer);
      r.done(undefined);
    }
    if (!running) return;
    running.audio.destroy();
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
    rmSync(running.dir, { recursive: true, force: true });
  }
}

/** Deterministic white noise at about -10 dBFS: loud enough for any noise floor, never speech. */
function noiseBurst(samples: number): Int16Array {
  const out = new Int16Array(samples);
  let state = 0x2545f491;
  for (let i = 0; i < samples; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = ((state / 0xffffffff) * 2 - 1) * 10000;
  }
  return out;
}
