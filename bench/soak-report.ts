/**
 * What bench/soak.ts measures and how it prints it: the per-window record,
 * the helpers that summarise samples, and the markdown table that
 * docs/benchmarks.md shows.
 */
import { readFileSync } from 'node:fs';

export function procRssMb(pid: number | undefined): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Least-squares slope of y over x. */
export function slope(points: ReadonlyArray<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const ms = (ns: number): number => ns / 1e6;
/** monitorEventLoopDelay's sampling interval; what it records is that interval plus the delay, so the interval is taken off. */
export const ELD_RESOLUTION_MS = 10;
export const delayMs = (ns: number): number => Math.max(0, ms(ns) - ELD_RESOLUTION_MS);
export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
}

export const r1 = (x: number | null): number | null =>
  x === null || !Number.isFinite(x) ? null : Math.round(x * 10) / 10;
export const r2 = (x: number | null): number | null =>
  x === null || !Number.isFinite(x) ? null : Math.round(x * 100) / 100;

export interface Sample {
  at_min: number;
  rss_mb: number;
  heap_used_mb: number;
  external_mb: number;
}

export interface Window {
  window: number;
  from_min: number;
  to_min: number;
  rss_end_mb: number | null;
  rss_max_mb: number | null;
  heap_used_end_mb: number | null;
  eld_p50_ms: number | null;
  eld_p99_ms: number | null;
  eld_max_ms: number | null;
  wake_late_p50_ms: number | null;
  wake_late_p99_ms: number | null;
  wake_late_max_ms: number | null;
  /** Pacer thread only: every frame's sent − due in the window, and the thread's CPU (% of a core). */
  frame_late_p50_ms: number | null;
  frame_late_p99_ms: number | null;
  frame_late_max_ms: number | null;
  pacer_thread_cpu_pct: number | null;
  frame_late_mean_ms: number | null;
  frames: number;
  turns: number;
  turns_passed: number;
  turn_p50_ms: number | null;
  /** Filled in from the result at the end (latencies are computed when the session ends). */
  v2v_p50_ms: number | null;
  bot_rss_mb: number | null;
  cpu_pressure_pct: number | null;
}

/** The run's totals as bench/soak.ts reports them (its `--json` has these and more). */
export interface SoakTotals {
  turns: number;
  turns_passed: number;
  frames: number;
  peak_rss_mb: number | null;
  rss_after_warmup_mb: number | null;
  rss_end_mb: number | null;
  rss_growth_after_warmup_mb: number | null;
  rss_slope_mb_per_hour: number | null;
  heap_slope_mb_per_hour: number | null;
  frame_late_p50_ms: number | null;
  frame_late_p99_ms: number | null;
  frame_late_max_ms: number | null;
  late_p99_slope_ms_per_hour: number | null;
  eld_p99_slope_ms_per_hour: number | null;
  windows: Window[];
}

/** The table docs/benchmarks.md shows, and the totals under it; `threaded`: the pacer thread's columns. */
export function soakMarkdown(report: SoakTotals, threaded: boolean): string {
  const lateHead = threaded
    ? 'frame late p50 / p99 / max (ms) | pacer thread CPU'
    : 'pacer wake late p50 / p99 / max (ms)';
  const late = (w: Window): string =>
    threaded
      ? `${w.frame_late_p50_ms} / ${w.frame_late_p99_ms} / ${w.frame_late_max_ms} | ${w.pacer_thread_cpu_pct ?? '–'}%`
      : `${w.wake_late_p50_ms} / ${w.wake_late_p99_ms} / ${w.wake_late_max_ms}`;
  const head =
    `| window (min) | RSS end / max (MB) | heap (MB) | event-loop delay p50 / p99 / max (ms) | ${lateHead} | frame late mean (ms) | turns passed | turn p50 (ms) | v2v p50 (ms) | bot RSS (MB) | CPU pressure |\n` +
    `|---|---|---|---|---|${threaded ? '---|' : ''}---|---|---|---|---|---|`;
  const rows = report.windows.map(
    (w) =>
      `| ${w.from_min}–${w.to_min} | ${w.rss_end_mb} / ${w.rss_max_mb} | ${w.heap_used_end_mb} | ${w.eld_p50_ms} / ${w.eld_p99_ms} / ${w.eld_max_ms} | ` +
      `${late(w)} | ${w.frame_late_mean_ms} | ${w.turns_passed}/${w.turns} | ${w.turn_p50_ms ?? '–'} | ${w.v2v_p50_ms ?? '–'} | ${w.bot_rss_mb ?? '–'} | ${w.cpu_pressure_pct ?? '–'}% |`,
  );
  const totals = [
    `turns passed: ${report.turns_passed}/${report.turns}; mic frames: ${report.frames}`,
    `peak RSS ${report.peak_rss_mb} MB; RSS after warm-up ${report.rss_after_warmup_mb} MB, at the end ${report.rss_end_mb} MB: growth ${report.rss_growth_after_warmup_mb} MB (slope ${report.rss_slope_mb_per_hour} MB/h; heap ${report.heap_slope_mb_per_hour} MB/h)`,
    `frame lateness over the run: p50 ${report.frame_late_p50_ms} ms, p99 ${report.frame_late_p99_ms} ms, max ${report.frame_late_max_ms} ms; trend of window p99 ${threaded ? 'frame' : 'wake'} lateness ${report.late_p99_slope_ms_per_hour} ms/h, of event-loop p99 ${report.eld_p99_slope_ms_per_hour} ms/h`,
  ];
  return [head, ...rows, '', ...totals].join('\n');
}
