/**
 * Where received audio sits on the session clock.
 *
 * Audio arrives in chunks; a listener plays them back to back. So a chunk's
 * first sample is heard when the previous chunk ends, unless the chunk arrives
 * later than that (the sender paused): then it is heard on arrival. This class
 * keeps that mapping for one stream: a sample counter anchored to the arrival
 * time of the chunk that opened each continuous run, re-anchored after gaps.
 */
export interface Anchor {
  /** First stream sample of this run. */
  sample: number;
  /** Session time of that sample. */
  atMs: number;
}

export class ChunkTimeline {
  private readonly anchors: Anchor[] = [];
  private next = 0;

  /**
   * @param sampleRate samples per second of the stream
   * @param gapMs a chunk arriving more than this after the run's expected end starts a new run
   */
  constructor(
    readonly sampleRate: number,
    readonly gapMs: number,
  ) {}

  /** Stream samples so far. */
  get samples(): number {
    return this.next;
  }

  /** Session time at which the next sample would be heard if the run continued; null before any audio. */
  get endMs(): number | null {
    return this.anchors.length ? this.timeOf(this.next) : null;
  }

  /**
   * How far the run would have to be extended to reach `arrivalMs`, if that is
   * a gap (more than `gapMs`); 0 if a chunk arriving then continues the run.
   */
  gapBefore(arrivalMs: number): number {
    const end = this.endMs;
    if (end === null) return 0;
    return arrivalMs - end > this.gapMs ? arrivalMs - end : 0;
  }

  /**
   * Appends `count` samples arriving at `arrivalMs`, starting a new run if they
   * come after a gap (or when `newRun` says so); returns the session time of their first sample.
   */
  append(count: number, arrivalMs: number, newRun = false): number {
    if (newRun || this.anchors.length === 0 || this.gapBefore(arrivalMs) > 0)
      this.anchors.push({ sample: this.next, atMs: arrivalMs });
    const at = this.timeOf(this.next);
    this.next += count;
    return at;
  }

  /** Extends the current run with `count` samples (silence standing in for a gap). */
  extend(count: number): void {
    this.next += count;
  }

  /** Session time of stream sample `sample` (fractional ms). */
  timeOf(sample: number): number {
    let a = this.anchors[this.anchors.length - 1];
    for (let i = this.anchors.length - 1; i > 0 && a.sample > sample; i--) a = this.anchors[i - 1];
    return a.atMs + ((sample - a.sample) * 1000) / this.sampleRate;
  }

  /** Drops anchors no longer needed for samples at or after `sample` (keeps memory flat on long calls). */
  forgetBefore(sample: number): void {
    while (this.anchors.length > 1 && this.anchors[1].sample <= sample) this.anchors.shift();
  }
}

/** The last `capacity` samples of a stream, addressed by stream sample index. */
export class SampleRing {
  private readonly buf: Int16Array;
  private end = 0;

  constructor(readonly capacity: number) {
    this.buf = new Int16Array(capacity);
  }

  /** Oldest sample index still held. */
  get start(): number {
    return Math.max(0, this.end - this.capacity);
  }

  get endSample(): number {
    return this.end;
  }

  append(samples: Int16Array): void {
    let src = samples;
    if (src.length > this.capacity) {
      this.end += src.length - this.capacity;
      src = src.subarray(src.length - this.capacity);
    }
    const at = this.end % this.capacity;
    const first = Math.min(src.length, this.capacity - at);
    this.buf.set(src.subarray(0, first), at);
    if (first < src.length) this.buf.set(src.subarray(first), 0);
    this.end += src.length;
  }

  appendSilence(count: number): void {
    let n = Math.min(count, this.capacity);
    this.end += count - n;
    while (n > 0) {
      const at = this.end % this.capacity;
      const k = Math.min(n, this.capacity - at);
      this.buf.fill(0, at, at + k);
      this.end += k;
      n -= k;
    }
  }

  /** A copy of stream samples [from, to), clamped to what is held; `from` of the copy is returned with it. */
  slice(from: number, to: number): { from: number; samples: Int16Array } {
    const a = Math.max(from, this.start);
    const b = Math.min(to, this.end);
    const out = new Int16Array(Math.max(0, b - a));
    for (let s = a, i = 0; s < b; s++, i++) out[i] = this.buf[s % this.capacity];
    return { from: a, samples: out };
  }
}
