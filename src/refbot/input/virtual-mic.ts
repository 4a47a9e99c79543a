/**
 * The bot's virtual microphone: incoming audio messages in, a real-time
 * stream of 20 ms frames out, as a live microphone would deliver them to the
 * VAD.
 *
 * Clients send audio two ways. earshot (and Pipecat's current harness) stream
 * the microphone themselves: one 20–40 ms message per tick, silence included.
 * Such a "live" message is played the moment it arrives, adding no latency.
 * Older clients upload each utterance in a few large messages and send
 * nothing between utterances; those are queued and played out at real-time
 * pace, and once an upload has played the microphone fills the pause with
 * silence, so the VAD can end the turn. A live stream is not padded while it
 * flows: a late frame (a stalled client, a busy machine) is played when it
 * comes, with nothing invented in between, since silence there would cut the
 * user's sentence in two. Only when a live stream has stopped for
 * `liveIdleMs` does the microphone fill in silence (from where it stopped).
 * A live message that arrives while an upload is still playing waits its
 * turn behind it: order is never changed.
 *
 * Every frame says where its samples sit in the connection's incoming stream
 * (`inStart`; null for generated silence) and when it was played, so a sample
 * the VAD reports can be traced back to the message and the instant it came
 * from (see ../truth.ts).
 */
import type { Clock } from '../../core/clock.js';
import type { TimerDriver } from '../../core/timers.js';

export interface MicFrame {
  samples: Int16Array;
  /** Index of `samples[0]` on the microphone's own timeline (what the VAD counts). */
  micStart: number;
  /** Index of `samples[0]` in the connection's incoming audio stream; null for generated silence. */
  inStart: number | null;
  /** When the frame was played (its first sample's play time), on the clock. */
  playedMs: number;
  /** When the message that carried it arrived; null for generated silence. */
  arrivedMs: number | null;
}

export interface VirtualMicOptions {
  sampleRate: number;
  clock: Clock;
  timers: TimerDriver;
  onFrame: (frame: MicFrame) => void;
  frameMs?: number;
  /**
   * A message carrying at most this much audio is live: played on arrival. Default 40 ms (Pipecat's harness sends 40 ms
   * frames).
   */
  liveMaxMs?: number;
  /** A live stream silent this long has stopped: silence is generated from where it stopped. Default 1000 ms. */
  liveIdleMs?: number;
}

interface Pending {
  pcm: Int16Array;
  inStart: number;
  arrivedMs: number;
  offset: number;
}

export class VirtualMic {
  readonly sampleRate: number;
  private readonly clock: Clock;
  private readonly timers: TimerDriver;
  private readonly onFrame: (frame: MicFrame) => void;
  private readonly frameSamples: number;
  private readonly frameMs: number;
  private readonly liveMaxSamples: number;
  private readonly liveIdleMs: number;
  /** The last audio played was live (the client streams); else an upload (the client pauses between utterances). */
  private lastWasLive = false;
  private readonly queue: Pending[] = [];
  private micSamples = 0;
  private inSamples = 0;
  /** Play time of the end of the last frame delivered. */
  private lastEndMs = -Infinity;
  /** Due time of the next frame of queued (uploaded) audio; null when nothing is queued. */
  private pacedNextMs: number | null = null;
  private generatingSilence = false;
  private cancelWake: (() => void) | null = null;
  private closed = false;
  private readonly silenceFrame: Int16Array;

  constructor(options: VirtualMicOptions) {
    this.sampleRate = options.sampleRate;
    this.clock = options.clock;
    this.timers = options.timers;
    this.onFrame = options.onFrame;
    this.frameMs = options.frameMs ?? 20;
    this.frameSamples = Math.round((this.frameMs * this.sampleRate) / 1000);
    this.liveMaxSamples = Math.round(((options.liveMaxMs ?? 40) * this.sampleRate) / 1000);
    this.liveIdleMs = options.liveIdleMs ?? 1000;
    this.silenceFrame = new Int16Array(this.frameSamples);
  }

  /** Samples received so far (the incoming stream's length). */
  get samplesIn(): number {
    return this.inSamples;
  }

  /** Samples delivered so far (the microphone timeline's length). */
  get samplesOut(): number {
    return this.micSamples;
  }

  /** One incoming message's audio (mono, at `sampleRate`), with its arrival time. */
  push(pcm: Int16Array, arrivedMs: number = this.clock.now()): void {
    if (this.closed || pcm.length === 0) return;
    const inStart = this.inSamples;
    this.inSamples += pcm.length;
    if (pcm.length <= this.liveMaxSamples && this.queue.length === 0) {
      // Live: played as it arrived, its frames back to back from that instant.
      this.generatingSilence = false;
      this.lastWasLive = true;
      for (let offset = 0; offset < pcm.length; offset += this.frameSamples) {
        const samples = pcm.subarray(offset, Math.min(pcm.length, offset + this.frameSamples));
        this.deliver(samples, inStart + offset, arrivedMs + (offset * 1000) / this.sampleRate, arrivedMs);
      }
      this.arm();
      return;
    }
    this.queue.push({ pcm, inStart, arrivedMs, offset: 0 });
    if (this.pacedNextMs === null) this.pacedNextMs = this.clock.now();
    this.wake();
  }

  /** Stops the timers; later pushes are ignored. */
  close(): void {
    this.closed = true;
    this.cancelWake?.();
    this.cancelWake = null;
    this.queue.length = 0;
  }

  private deliver(samples: Int16Array, inStart: number | null, playedMs: number, arrivedMs: number | null): void {
    const frame: MicFrame = { samples, micStart: this.micSamples, inStart, playedMs, arrivedMs };
    this.micSamples += samples.length;
    this.lastEndMs = playedMs + (samples.length * 1000) / this.sampleRate;
    this.onFrame(frame);
  }

  private wake(): void {
    if (this.closed) return;
    this.cancelWake?.();
    this.cancelWake = null;
    const now = this.clock.now();
    // Queued uploads: every frame that is due (a late wake-up catches up; speech is never dropped).
    while (this.pacedNextMs !== null && this.pacedNextMs <= now) {
      const head = this.queue[0];
      const end = Math.min(head.pcm.length, head.offset + this.frameSamples);
      const samples = head.pcm.subarray(head.offset, end);
      this.generatingSilence = false;
      this.lastWasLive = false;
      this.deliver(samples, head.inStart + head.offset, this.pacedNextMs, head.arrivedMs);
      this.pacedNextMs += (samples.length * 1000) / this.sampleRate;
      head.offset = end;
      if (end >= head.pcm.length) this.queue.shift();
      if (this.queue.length === 0) {
        this.pacedNextMs = null;
        break;
      }
      // A live message queued behind an upload keeps the upload's pace.
    }
    if (this.queue.length === 0 && (this.generatingSilence || now >= this.lastEndMs + this.idleMs())) {
      // Silence from where the audio stopped, up to now: the VAD's end-of-turn wait starts at the real end.
      this.generatingSilence = true;
      if (!Number.isFinite(this.lastEndMs)) this.lastEndMs = now;
      while (this.lastEndMs <= now) this.deliver(this.silenceFrame, null, this.lastEndMs, null);
    }
    this.arm();
  }

  private idleMs(): number {
    return this.lastWasLive ? this.liveIdleMs : 0;
  }

  private arm(): void {
    if (this.closed) return;
    this.cancelWake?.();
    const next =
      this.pacedNextMs !== null
        ? this.pacedNextMs
        : this.generatingSilence
          ? this.lastEndMs
          : this.lastEndMs + this.idleMs();
    this.cancelWake = this.timers.at(next, () => {
      this.cancelWake = null;
      this.wake();
    });
  }
}
