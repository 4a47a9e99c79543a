import { StatsInputError } from './errors.js';

/**
 * A small fixed-width text histogram of latencies, for terminals and CI logs (here with `width: 30`):
 *
 *     800 –  900 ms │████████                       12
 *     900 – 1000 ms │██████████████████████████████ 45
 *
 * Buckets are half-open, [from, to). Without explicit edges, they are chosen on a
 * round step (1, 2, 2.5 or 5 × 10ᵏ ms) so the labels read cleanly. With explicit
 * edges, values outside them are counted on a `< first` and a `≥ last` row,
 * shown only when non-empty.
 */

export interface HistogramOptions {
  /** Ascending bucket edges in ms (at least two): n edges make n − 1 buckets. */
  edgesMs?: readonly number[];
  /** Target number of buckets when the edges are chosen automatically. Default 10. */
  buckets?: number;
  /** Width of the longest bar in characters. Default 40. */
  width?: number;
  /** `#` bars instead of Unicode blocks (for logs that mangle Unicode). */
  ascii?: boolean;
}

export interface HistogramBucket {
  from_ms: number;
  to_ms: number;
  count: number;
}

export interface Histogram {
  buckets: HistogramBucket[];
  /** Values below the first edge / at or above the last (explicit edges only). */
  below: number;
  above: number;
}

export function histogram(values: Iterable<number | null | undefined>, options: HistogramOptions = {}): Histogram {
  const finite: number[] = [];
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v)) finite.push(v);
  const edges = options.edgesMs ? checkEdges(options.edgesMs) : autoEdges(finite, options.buckets ?? 10);
  const buckets = edges.slice(1).map((to, i) => ({ from_ms: edges[i], to_ms: to, count: 0 }));
  let below = 0;
  let above = 0;
  for (const v of finite) {
    if (v < edges[0]) below++;
    else if (v >= edges[edges.length - 1]) above++;
    else buckets[bucketOf(edges, v)].count++;
  }
  return { buckets, below, above };
}

export function renderHistogram(values: Iterable<number | null | undefined>, options: HistogramOptions = {}): string {
  const width = options.width ?? 40;
  if (!(Number.isInteger(width) && width >= 1))
    throw new StatsInputError('renderHistogram', `width must be a positive integer, got ${width}`);
  const h = histogram(values, options);
  const total = h.below + h.above + h.buckets.reduce((s, b) => s + b.count, 0);
  if (total === 0) return '(no values)';
  const decimals = Math.max(...[...h.buckets.flatMap((b) => [b.from_ms, b.to_ms])].map(decimalsOf));
  const num = (x: number): string => x.toFixed(decimals);
  const rows: Array<{ label: string; count: number }> = [];
  if (h.below) rows.push({ label: `< ${num(h.buckets[0].from_ms)} ms`, count: h.below });
  const fromW = Math.max(...h.buckets.map((b) => num(b.from_ms).length));
  const toW = Math.max(...h.buckets.map((b) => num(b.to_ms).length));
  for (const b of h.buckets)
    rows.push({ label: `${num(b.from_ms).padStart(fromW)} – ${num(b.to_ms).padStart(toW)} ms`, count: b.count });
  if (h.above) rows.push({ label: `≥ ${num(h.buckets[h.buckets.length - 1].to_ms)} ms`, count: h.above });
  const labelW = Math.max(...rows.map((r) => r.label.length));
  const peak = Math.max(...rows.map((r) => r.count));
  return rows
    .map(
      (r) =>
        `${r.label.padStart(labelW)} │${bar(r.count / peak, width, options.ascii ?? false).padEnd(width)} ${r.count}`,
    )
    .join('\n');
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

function bar(fraction: number, width: number, ascii: boolean): string {
  if (ascii) return '#'.repeat(Math.round(fraction * width));
  const eighths = Math.round(fraction * width * 8);
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

function bucketOf(edges: readonly number[], v: number): number {
  let lo = 0;
  let hi = edges.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (edges[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function checkEdges(edges: readonly number[]): number[] {
  if (edges.length < 2) throw new StatsInputError('histogram', `edgesMs needs at least two edges, got ${edges.length}`);
  for (let i = 0; i < edges.length; i++) {
    if (!Number.isFinite(edges[i])) throw new StatsInputError('histogram', `edgesMs[${i}] is not a finite number`);
    if (i > 0 && edges[i] <= edges[i - 1]) {
      throw new StatsInputError(
        'histogram',
        `edgesMs must ascend strictly: edgesMs[${i}] = ${edges[i]} after ${edges[i - 1]}`,
      );
    }
  }
  return [...edges];
}

/** Round-step edges from ⌊min⌋ to just past max, about `target` buckets. */
function autoEdges(values: number[], target: number): number[] {
  if (!(Number.isInteger(target) && target >= 1))
    throw new StatsInputError('histogram', `buckets must be a positive integer, got ${target}`);
  if (values.length === 0) return [0, 1];
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const step = niceStep((max - min) / target);
  const first = Math.floor(min / step) * step;
  const count = Math.max(1, Math.floor((max - first) / step) + 1);
  const edges = Array.from({ length: count + 1 }, (_, i) => cleanFloat(first + i * step));
  // Float division can land a maximum on the last edge; buckets are half-open, so it needs one more.
  while (edges[edges.length - 1] <= max) edges.push(cleanFloat(first + edges.length * step));
  return edges;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  const nice = m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10;
  return cleanFloat(nice * power);
}

/** 0.30000000000000004 → 0.3: edges are labels, float noise must not show. */
function cleanFloat(x: number): number {
  return Number.parseFloat(x.toPrecision(12));
}

function decimalsOf(x: number): number {
  const s = String(x);
  const dot = s.indexOf('.');
  return dot < 0 || s.includes('e') ? 0 : Math.min(3, s.length - dot - 1);
}
