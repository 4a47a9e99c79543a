/**
 * A fixed-size histogram of non-negative durations in ms: 10 µs buckets up to
 * 10 ms, 1 ms buckets up to 1 s, one overflow bucket; exact count, sum, min and
 * max. An hour of frames costs the same 8 KB as a second, and percentiles are
 * exact to the bucket (10 µs where the pacer's targets live).
 */
const FINE_MS = 0.01;
const FINE_LIMIT_MS = 10;
const COARSE_MS = 1;
const COARSE_LIMIT_MS = 1000;
const FINE_BUCKETS = Math.round(FINE_LIMIT_MS / FINE_MS);
const COARSE_BUCKETS = Math.round((COARSE_LIMIT_MS - FINE_LIMIT_MS) / COARSE_MS);
const BUCKETS = FINE_BUCKETS + COARSE_BUCKETS + 1;

export interface DurationSummary {
  count: number;
  meanMs: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  minMs: number | null;
}

export class DurationHistogram {
  private readonly buckets = new Uint32Array(BUCKETS);
  private n = 0;
  private sum = 0;
  private min = Infinity;
  private max = -Infinity;

  /** Negative values (a frame sent a hair before its deadline) count as 0 in buckets; min keeps the true value. */
  record(ms: number): void {
    this.n++;
    this.sum += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
    this.buckets[bucketOf(ms)]++;
  }

  merge(other: DurationHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.buckets[i] += other.buckets[i];
    this.n += other.n;
    this.sum += other.sum;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  get count(): number {
    return this.n;
  }

  get maxMs(): number | null {
    return this.n ? this.max : null;
  }

  /** The upper edge of the bucket holding the p-th quantile (0..1), capped at the exact max. */
  quantile(p: number): number | null {
    if (this.n === 0) return null;
    const rank = Math.max(1, Math.ceil(p * this.n));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.buckets[i];
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, upperEdge(i)));
    }
    return this.max;
  }

  summary(): DurationSummary {
    return {
      count: this.n,
      meanMs: this.n ? this.sum / this.n : null,
      p50Ms: this.quantile(0.5),
      p90Ms: this.quantile(0.9),
      p99Ms: this.quantile(0.99),
      maxMs: this.n ? this.max : null,
      minMs: this.n ? this.min : null,
    };
  }
}

function bucketOf(ms: number): number {
  if (!(ms > 0)) return 0;
  if (ms < FINE_LIMIT_MS) return Math.floor(ms / FINE_MS);
  if (ms < COARSE_LIMIT_MS) return FINE_BUCKETS + Math.floor((ms - FINE_LIMIT_MS) / COARSE_MS);
  return BUCKETS - 1;
}

function upperEdge(bucket: number): number {
  if (bucket < FINE_BUCKETS) return (bucket + 1) * FINE_MS;
  if (bucket < BUCKETS - 1) return FINE_LIMIT_MS + (bucket - FINE_BUCKETS + 1) * COARSE_MS;
  return Infinity;
}
