import { round3 } from './bot-metrics.js';
import { percentile } from './percentiles.js';

/**
 * The error table of `earshot calibrate`: how far earshot's measured latencies
 * are from the reference bot's ground truth, per codec, metric and configured
 * delay. Errors are absolute (|measured − truth|, ms); percentiles by nearest
 * rank, so p95 is an error some run actually had.
 */

export interface CalibrationSample {
  codec: string;
  /** e.g. `voice_to_voice_ms`, `interruption_ms`. */
  metric: string;
  /** The response delay the reference bot was configured with. */
  delay_ms: number;
  /** What earshot measured; null when it measured nothing (counted in `missing`). */
  measured_ms: number | null;
  /** What the bot's own log says; null when the bot logged nothing (counted in `missing`). */
  truth_ms: number | null;
}

export interface CalibrationRow {
  codec: string;
  metric: string;
  delay_ms: number;
  /** Samples with both a measurement and a truth. */
  n: number;
  /** null when n is 0. */
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number | null;
  /** Samples lacking a measurement or a truth: a calibration that loses samples is not accurate. */
  missing: number;
}

export const DEFAULT_CALIBRATION_P95_LIMIT_MS = 10;

/** One row per (codec, metric, delay), sorted by codec, then metric, then delay. */
export function calibrationErrorTable(samples: Iterable<CalibrationSample>): CalibrationRow[] {
  const groups = new Map<
    string,
    { codec: string; metric: string; delay_ms: number; errors: number[]; missing: number }
  >();
  for (const s of samples) {
    const key = JSON.stringify([s.codec, s.metric, s.delay_ms]);
    let g = groups.get(key);
    if (!g) {
      g = { codec: s.codec, metric: s.metric, delay_ms: s.delay_ms, errors: [], missing: 0 };
      groups.set(key, g);
    }
    if (isNum(s.measured_ms) && isNum(s.truth_ms)) g.errors.push(Math.abs(s.measured_ms - s.truth_ms));
    else g.missing++;
  }
  const rows = [...groups.values()].map((g): CalibrationRow => {
    const sorted = g.errors.sort((a, b) => a - b);
    const n = sorted.length;
    return {
      codec: g.codec,
      metric: g.metric,
      delay_ms: g.delay_ms,
      n,
      p50_ms: n ? round3(percentile(sorted, 50)) : null,
      p95_ms: n ? round3(percentile(sorted, 95)) : null,
      max_ms: n ? round3(sorted[n - 1]) : null,
      missing: g.missing,
    };
  });
  return rows.sort((a, b) => cmp(a.codec, b.codec) || cmp(a.metric, b.metric) || a.delay_ms - b.delay_ms);
}

/**
 * Rows that fail calibration: p95 error above `p95LimitMs`, or no usable sample
 * at all (nothing measured proves nothing). `earshot calibrate` exits non-zero
 * when this is non-empty.
 */
export function calibrationFailures(
  rows: readonly CalibrationRow[],
  p95LimitMs = DEFAULT_CALIBRATION_P95_LIMIT_MS,
): CalibrationRow[] {
  return rows.filter((r) => r.p95_ms === null || r.p95_ms > p95LimitMs);
}

/** The table as fixed-width text, one row per line, with a header. */
export function renderCalibrationTable(rows: readonly CalibrationRow[]): string {
  const header = ['codec', 'metric', 'delay_ms', 'n', 'p50_ms', 'p95_ms', 'max_ms', 'missing'];
  const cell = (v: number | null): string => (v === null ? '-' : String(Math.round(v * 10) / 10));
  const body = rows.map((r) => [
    r.codec,
    r.metric,
    String(r.delay_ms),
    String(r.n),
    cell(r.p50_ms),
    cell(r.p95_ms),
    cell(r.max_ms),
    String(r.missing),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function isNum(v: number | null): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
