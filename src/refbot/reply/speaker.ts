/**
 * The bot's voice on the wire: queued audio goes out in 20 ms frames at real
 * time, each frame when its first sample is due to play. Frames are scheduled
 * from the instant playback started (start + k × 20 ms), so nothing drifts;
 * after a late wake-up the overdue frames go out back to back. When the queue
 * runs dry the speaker is idle, and the next audio starts at once.
 *
 * `stop()` empties the queue between two frames: the bot falls silent at the
 * end of the frame already sent (at most 20 ms of audio), which is what a
 * barge-in needs.
 */
import type { Clock } from '../../core/clock.js';
import type { TimerDriver } from '../../core/timers.js';

export interface SentFrame {
  /** Index of the frame's first sample in the connection's outgoing audio stream. */
  outStart: number;
  samples: number;
  /** When it was handed to the socket. */
  sentMs: number;
}

export interface Segment {
  pcm: Int16Array;
  /** Called just before the segment's first frame is sent (to send `bot-tts-text` in step with the audio). */
  onStart?: (frame: { outStart: number; atMs: number }) => void;
  /** Called after each of its frames is sent, with the frame's offset inside the segment. */
  onFrame?: (frame: SentFrame, segmentOffset: number) => void;
  /** Called once its last frame is sent. */
  onDone?: (last: SentFrame) => void;
}

export interface SpeakerOptions {
  clock: Clock;
  timers: TimerDriver;
  sampleRate: number;
  /** Puts one frame on the wire (or nowhere, when the wire carries no bot audio). */
  send: (frame: Int16Array) => void;
  frameMs?: number;
}

interface Queued extends Segment {
  offset: number;
}

export class Speaker {
  readonly sampleRate: number;
  readonly frameSamples: number;
  private readonly queue: Queued[] = [];
  private nextDueMs: number | null = null;
  private cancelTick: (() => void) | null = null;
  private sent = 0;
  private last: SentFrame | null = null;
  private closed = false;
  private ticking = false;

  constructor(private readonly options: SpeakerOptions) {
    this.sampleRate = options.sampleRate;
    this.frameSamples = Math.round(((options.frameMs ?? 20) * options.sampleRate) / 1000);
  }

  /** Samples sent so far on this connection (the outgoing stream's length). */
  get samplesOut(): number {
    return this.sent;
  }

  /** The last frame sent, if any. */
  get lastFrame(): SentFrame | null {
    return this.last;
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** Queues a segment; playback starts now if the speaker was idle. */
  play(segment: Segment): void {
    if (this.closed) return;
    this.queue.push({ ...segment, offset: 0 });
    if (this.nextDueMs === null) {
      this.nextDueMs = this.options.clock.now();
      // Queued from inside a tick's callback: that tick's loop sends it.
      if (!this.ticking) this.tick();
    }
  }

  /** Sends a segment's frames all at once, unpaced (the `audio-burst` fault). */
  burst(segment: Segment): void {
    if (this.closed) return;
    segment.onStart?.({ outStart: this.sent, atMs: this.options.clock.now() });
    let frame: SentFrame | null = null;
    for (let offset = 0; offset < segment.pcm.length; offset += this.frameSamples) {
      frame = this.sendFrame(segment.pcm.subarray(offset, Math.min(segment.pcm.length, offset + this.frameSamples)));
      segment.onFrame?.(frame, offset);
    }
    if (frame) segment.onDone?.(frame);
  }

  /** Drops everything queued; returns the last frame that went out (the audio ends with it). */
  stop(): SentFrame | null {
    this.queue.length = 0;
    this.nextDueMs = null;
    this.cancelTick?.();
    this.cancelTick = null;
    return this.last;
  }

  close(): void {
    this.stop();
    this.closed = true;
  }

  private tick(): void {
    this.cancelTick = null;
    this.ticking = true;
    try {
      this.sendDue();
    } finally {
      this.ticking = false;
    }
    if (this.nextDueMs !== null && !this.closed) {
      const due = this.nextDueMs;
      this.cancelTick = this.options.timers.at(due, () => this.tick());
    }
  }

  private sendDue(): void {
    const now = this.options.clock.now();
    while (this.nextDueMs !== null && this.nextDueMs <= now) {
      const seg = this.queue[0];
      if (seg.offset === 0) seg.onStart?.({ outStart: this.sent, atMs: now });
      // onStart may have stopped the speaker (a fault closing the connection).
      if (this.queue[0] !== seg) return;
      const end = Math.min(seg.pcm.length, seg.offset + this.frameSamples);
      const offset = seg.offset;
      const frame = this.sendFrame(seg.pcm.subarray(offset, end));
      seg.offset = end;
      this.nextDueMs += (frame.samples * 1000) / this.sampleRate;
      if (end >= seg.pcm.length) this.queue.shift();
      if (this.queue.length === 0) this.nextDueMs = null;
      seg.onFrame?.(frame, offset);
      if (end >= seg.pcm.length) seg.onDone?.(frame);
    }
  }

  private sendFrame(pcm: Int16Array): SentFrame {
    const frame: SentFrame = { outStart: this.sent, samples: pcm.length, sentMs: this.options.clock.now() };
    this.options.send(pcm);
    this.sent += pcm.length;
    this.last = frame;
    return frame;
  }
}
