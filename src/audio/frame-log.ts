import { DurationHistogram, type DurationSummary } from '../core/histogram.js';

/** One frame as it went out: when it was due and when it was handed to the sink. */
export interface FrameRecord {
  index: number;
  dueMs: number;
  sentMs: number;
  speech: boolean;
}

const CHUNK = 4096;

/**
 * Every sent frame's due and send time, exactly, for the first `capacity`
 * frames; after that only the lateness histogram and counters grow, so a
 * 60-minute call holds a bounded amount of memory (the default 30,000 records,
 * ten minutes at 20 ms, take 0.5 MB per stream). Storage grows in chunks, so a
 * short call pays for what it uses.
 */
export class FrameLog {
  private readonly due: Float64Array[] = [];
  private readonly sent: Float64Array[] = [];
  private readonly index: Uint32Array[] = [];
  private readonly speech: Uint8Array[] = [];
  private kept = 0;
  private total = 0;
  readonly lateness = new DurationHistogram();

  constructor(readonly capacity: number) {}

  add(index: number, dueMs: number, sentMs: number, speech: boolean): void {
    this.total++;
    this.lateness.record(sentMs - dueMs);
    if (this.kept >= this.capacity) return;
    const c = Math.floor(this.kept / CHUNK);
    const i = this.kept % CHUNK;
    if (i === 0) {
      this.due.push(new Float64Array(CHUNK));
      this.sent.push(new Float64Array(CHUNK));
      this.index.push(new Uint32Array(CHUNK));
      this.speech.push(new Uint8Array(CHUNK));
    }
    this.due[c][i] = dueMs;
    this.sent[c][i] = sentMs;
    this.index[c][i] = index;
    this.speech[c][i] = speech ? 1 : 0;
    this.kept++;
  }

  /** Frames sent, kept or not. */
  get count(): number {
    return this.total;
  }

  /** Frames with an exact record. */
  get keptCount(): number {
    return this.kept;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  record(k: number): FrameRecord | undefined {
    if (k < 0 || k >= this.kept) return undefined;
    const c = Math.floor(k / CHUNK);
    const i = k % CHUNK;
    return { index: this.index[c][i], dueMs: this.due[c][i], sentMs: this.sent[c][i], speech: this.speech[c][i] === 1 };
  }

  records(): FrameRecord[] {
    const out: FrameRecord[] = [];
    for (let k = 0; k < this.kept; k++) out.push(this.record(k) as FrameRecord);
    return out;
  }

  latenessSummary(): DurationSummary {
    return this.lateness.summary();
  }
}
