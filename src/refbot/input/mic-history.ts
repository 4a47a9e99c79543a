/**
 * The last minute (by default) of what the virtual microphone played: the
 * samples, to cut utterances for the recognizer and to find voiced edges with
 * the energy gate, and per frame where it came from and when it played, to
 * turn a microphone sample index into an incoming-stream index and a time.
 * Older frames are dropped, so memory stays flat however long a call lasts.
 */
import type { MicFrame } from './virtual-mic.js';

export class MicHistory {
  private frames: MicFrame[] = [];
  private head = 0;
  private retained = 0;
  private readonly maxSamples: number;

  constructor(
    readonly sampleRate: number,
    keepMs = 60_000,
  ) {
    this.maxSamples = Math.round((keepMs * sampleRate) / 1000);
  }

  /** One past the last microphone sample recorded. */
  get end(): number {
    const last = this.frames[this.frames.length - 1];
    return last ? last.micStart + last.samples.length : 0;
  }

  /** The first microphone sample still retained. */
  get start(): number {
    return this.frames[this.head]?.micStart ?? this.end;
  }

  append(frame: MicFrame): void {
    // Silence frames share one buffer and uploads are views of a message: keep a copy of neither's backing store alive.
    this.frames.push({ ...frame, samples: frame.inStart === null ? frame.samples : frame.samples.slice() });
    this.retained += frame.samples.length;
    while (this.retained - this.frames[this.head].samples.length >= this.maxSamples) {
      this.retained -= this.frames[this.head].samples.length;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.head = 0;
    }
  }

  /** Microphone samples `[from, to)`, clipped to what is retained. */
  slice(from: number, to: number): { samples: Int16Array; from: number } {
    const lo = Math.max(from, this.start);
    const hi = Math.min(to, this.end);
    const out = new Int16Array(Math.max(0, hi - lo));
    if (hi <= lo) return { samples: out, from: lo };
    for (let i = this.indexOf(lo); i < this.frames.length; i++) {
      const f = this.frames[i];
      if (f.micStart >= hi) break;
      const a = Math.max(lo, f.micStart);
      const b = Math.min(hi, f.micStart + f.samples.length);
      out.set(f.samples.subarray(a - f.micStart, b - f.micStart), a - lo);
    }
    return { samples: out, from: lo };
  }

  /**
   * Where microphone sample `s` came from, or null when it is not retained.
   * With `edge: 'end'`, `s` is an end instant (one past a last sample): it is
   * looked up through sample s − 1 and reported one past it.
   */
  locate(
    s: number,
    edge: 'start' | 'end' = 'start',
  ): { inIndex: number | null; atMs: number; arrivedMs: number | null } | null {
    const probe = edge === 'end' ? s - 1 : s;
    if (probe < this.start || probe >= this.end) return null;
    const f = this.frames[this.indexOf(probe)];
    const offset = probe - f.micStart + (edge === 'end' ? 1 : 0);
    return {
      inIndex: f.inStart === null ? null : f.inStart + offset,
      atMs: f.playedMs + (offset * 1000) / this.sampleRate,
      arrivedMs: f.arrivedMs,
    };
  }

  /** Index in `frames` of the frame holding microphone sample `s` (s within the retained range). */
  private indexOf(s: number): number {
    let lo = this.head;
    let hi = this.frames.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.frames[mid].micStart <= s) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
