import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AudioOptionError, checkSampleRate, RecorderError } from './errors.js';
import { int16ToBytes } from './pcm.js';
import { createResampler, type ResamplerFactory, type StreamResampler } from './resample.js';
import { wavHeader } from './wav.js';

/**
 * The call recording: one stereo WAV per scenario run, the user (what earshot
 * sent) on the left, the bot (what it received) on the right, both on the
 * session's one timeline, so a person hears exactly what happened — a barge-in
 * is the two voices overlapping.
 *
 * Each channel streams to its own temporary file as audio comes in (resampled
 * to the recording rate, silence written for gaps), and `close` interleaves
 * them into the WAV, so memory stays flat over an hour-long call. Audio past
 * `maxDurationMs` is dropped and the result says so.
 */
export interface RecorderOptions {
  /** The WAV to write. Its directory must exist; temporary files go next to it. */
  path: string;
  /** Rate of the recording; each channel is resampled to it. */
  sampleRate: number;
  /** Session time of the recording's first sample (usually the session start). */
  originMs: number;
  /** Longest recording kept (default 4 h). */
  maxDurationMs?: number;
  /**
   * A chunk placed within this much of where its channel's audio already
   * reaches continues it seamlessly (send jitter must not click); later than
   * that, silence fills the gap (default 10 ms).
   */
  slackMs?: number;
  resampler?: ResamplerFactory;
}

export type RecordedChannel = 'user' | 'bot';

export interface RecordingInfo {
  path: string;
  sampleRate: number;
  durationMs: number;
  /** Seconds of audio each channel received (silence sent by the user counts; filled gaps do not). */
  userAudioMs: number;
  botAudioMs: number;
  /** Audio past `maxDurationMs` was dropped. */
  truncated: boolean;
  note: string | null;
}

const DEFAULT_MAX_MS = 4 * 3600_000;
const FLUSH_BYTES = 64 * 1024;

class Track {
  private resampler: StreamResampler | null = null;
  private inputRate = 0;
  /** Recording-rate position the next input sample lands on. */
  private nextPos = 0;
  /** Samples written to the file (recording rate). */
  written = 0;
  audioMs = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly rate: number,
    private readonly maxSamples: number,
    private readonly factory: ResamplerFactory,
    private readonly onTruncate: () => void,
  ) {}

  async add(samples: Int16Array, sampleRate: number, pos: number, slack: number): Promise<void> {
    if (sampleRate !== this.inputRate) await this.switchRate(sampleRate);
    const r = this.resampler as StreamResampler;
    let input = samples;
    if (pos < 0) {
      // Audio from before the recording's origin: keep only what falls after it.
      const skip = Math.ceil((-pos * sampleRate) / this.rate);
      input = input.subarray(Math.min(skip, input.length));
      pos = 0;
    }
    if (input.length === 0) return;
    if (pos > this.nextPos + slack) {
      const gap = Math.round(((pos - this.nextPos) * sampleRate) / this.rate);
      await this.write(r.process(new Int16Array(gap)));
      this.nextPos += (gap * this.rate) / sampleRate;
    }
    this.audioMs += (input.length * 1000) / sampleRate;
    this.nextPos += (input.length * this.rate) / sampleRate;
    await this.write(r.process(input));
  }

  async finish(): Promise<void> {
    if (this.resampler) {
      await this.write(this.resampler.flush());
      this.resampler.close();
      this.resampler = null;
    }
    await this.drain();
  }

  async padTo(samples: number): Promise<void> {
    if (samples > this.written) await this.write(new Int16Array(samples - this.written));
    await this.drain();
  }

  private async switchRate(sampleRate: number): Promise<void> {
    if (this.resampler) {
      await this.write(this.resampler.flush());
      this.resampler.close();
      this.nextPos = this.written;
    }
    this.resampler = await this.factory(sampleRate, this.rate);
    this.inputRate = sampleRate;
  }

  private async write(out: Int16Array): Promise<void> {
    const room = this.maxSamples - this.written;
    if (out.length > room) {
      this.onTruncate();
      out = out.subarray(0, Math.max(0, room));
    }
    if (out.length === 0) return;
    this.written += out.length;
    const bytes = int16ToBytes(out);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES) await this.drain();
  }

  private async drain(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const buf = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.file.write(buf);
  }
}

export class CallRecorder {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private truncated = false;
  private closed = false;

  private constructor(
    private readonly opts: Required<Omit<RecorderOptions, 'resampler'>>,
    private readonly tracks: Record<RecordedChannel, Track>,
    private readonly files: { handle: FileHandle; path: string }[],
  ) {}

  static async create(options: RecorderOptions): Promise<CallRecorder> {
    checkSampleRate(options.sampleRate);
    const maxDurationMs = options.maxDurationMs ?? DEFAULT_MAX_MS;
    const slackMs = options.slackMs ?? 10;
    if (!(maxDurationMs > 0)) throw new AudioOptionError('maxDurationMs', maxDurationMs, 'a duration above 0 ms');
    if (!(slackMs >= 0)) throw new AudioOptionError('slackMs', slackMs, 'a duration of 0 ms or more');
    if (!Number.isFinite(options.originMs))
      throw new AudioOptionError('originMs', options.originMs, 'a time on the session clock');
    const opts = {
      path: options.path,
      sampleRate: options.sampleRate,
      originMs: options.originMs,
      maxDurationMs,
      slackMs,
    };
    const files: { handle: FileHandle; path: string }[] = [];
    try {
      for (const ch of ['user', 'bot']) {
        const path = join(dirname(options.path), `.${basename(options.path)}.${ch}.${process.pid}.pcm`);
        files.push({ handle: await open(path, 'w+'), path });
      }
    } catch (err) {
      await Promise.all(
        files.map(async (f) => {
          await f.handle.close();
          return await rm(f.path, { force: true });
        }),
      );
      throw new RecorderError(options.path, err);
    }
    const maxSamples = Math.floor((maxDurationMs * options.sampleRate) / 1000);
    const factory = options.resampler ?? createResampler;
    let rec: CallRecorder | null = null;
    const onTruncate = (): void => {
      if (rec) rec.truncated = true;
    };
    const tracks = {
      user: new Track(files[0].handle, options.sampleRate, maxSamples, factory, onTruncate),
      bot: new Track(files[1].handle, options.sampleRate, maxSamples, factory, onTruncate),
    };
    rec = new CallRecorder(opts, tracks, files);
    return rec;
  }

  /** A frame earshot sent, at the time it was sent (the pacer's `sentMs`). */
  addUser(samples: Int16Array, sampleRate: number, atMs: number): void {
    this.add('user', samples, sampleRate, atMs);
  }

  /** Bot audio, at the time the onset detector placed it (`PlacedChunk.startMs`). */
  addBot(samples: Int16Array, sampleRate: number, atMs: number): void {
    this.add('bot', samples, sampleRate, atMs);
  }

  /** Finishes the WAV; rejects with `RecorderError` if anything could not be written. */
  async close(): Promise<RecordingInfo> {
    if (this.closed) throw new RecorderError(this.opts.path, 'the recorder is already closed');
    this.closed = true;
    await this.chain;
    const { user, bot } = this.tracks;
    try {
      if (this.failure) throw this.failure;
      await user.finish();
      await bot.finish();
      const total = Math.max(user.written, bot.written);
      await user.padTo(total);
      await bot.padTo(total);
      await this.interleave(total);
    } catch (err) {
      await this.cleanup();
      throw err instanceof RecorderError ? err : new RecorderError(this.opts.path, err);
    }
    await this.cleanup();
    const rate = this.opts.sampleRate;
    return {
      path: this.opts.path,
      sampleRate: rate,
      durationMs: (Math.max(user.written, bot.written) * 1000) / rate,
      userAudioMs: user.audioMs,
      botAudioMs: bot.audioMs,
      truncated: this.truncated,
      note: this.truncated ? `recording capped at ${this.opts.maxDurationMs} ms; later audio was not kept` : null,
    };
  }

  /** Drops the recording (the run was cancelled): temporary files are removed, no WAV is written. */
  async discard(): Promise<void> {
    this.closed = true;
    await this.chain;
    await this.cleanup();
  }

  private add(channel: RecordedChannel, samples: Int16Array, sampleRate: number, atMs: number): void {
    if (this.closed) return;
    checkSampleRate(sampleRate);
    const copy = samples.slice();
    const pos = ((atMs - this.opts.originMs) * this.opts.sampleRate) / 1000;
    const slack = (this.opts.slackMs * this.opts.sampleRate) / 1000;
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await this.tracks[channel].add(copy, sampleRate, pos, slack);
      } catch (err) {
        this.failure = err;
      }
    });
  }

  private async interleave(total: number): Promise<void> {
    const [u, b] = this.files;
    const tmp = `${this.opts.path}.${process.pid}.partial`;
    const out = await open(tmp, 'w');
    let ok = false;
    try {
      await out.write(wavHeader(this.opts.sampleRate, 2, total * 4));
      const block = 32 * 1024;
      const lb = Buffer.alloc(block * 2);
      const rb = Buffer.alloc(block * 2);
      const ob = Buffer.alloc(block * 4);
      for (let at = 0; at < total; at += block) {
        const n = Math.min(block, total - at);
        await u.handle.read(lb, 0, n * 2, at * 2);
        await b.handle.read(rb, 0, n * 2, at * 2);
        for (let i = 0; i < n; i++) {
          ob.writeInt16LE(lb.readInt16LE(i * 2), i * 4);
          ob.writeInt16LE(rb.readInt16LE(i * 2), i * 4 + 2);
        }
        await out.write(ob, 0, n * 4);
      }
      ok = true;
    } finally {
      await out.close();
      if (!ok) await rm(tmp, { force: true });
    }
    await rename(tmp, this.opts.path);
  }

  private async cleanup(): Promise<void> {
    for (const f of this.files) {
      await f.handle.close().catch(() => undefined);
      await rm(f.path, { force: true });
    }
  }
}
