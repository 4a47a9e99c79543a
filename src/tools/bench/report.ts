import {
  histogram,
  latencyStats,
  renderHistogram,
  turnPassRates,
  type HistogramBucket,
  type LatencyStats,
  type TurnPassRate,
} from '../../metrics/index.js';
import type { ScenarioResult, TurnResult } from '../../results/index.js';
import { LATENCY_METRICS, type LatencyMetric } from '../../scenario/index.js';
import type { SweepRange } from './sweep.js';
import {
  conditionPoints,
  renderConditionCurve,
  type BenchConditionSweep,
  type ConditionSweep,
} from './condition-sweep.js';

/**
 * What `earshot bench` reports, computed from the runs' results (pure, so it
 * is specified on synthetic results): per latency metric the distribution over
 * every turn of every run that measured it, and per turn; pass rates per turn;
 * with a sweep, the yield curve. The JSON written by `--json` is this object.
 */

export interface BenchRun {
  /** 0-based, in start order. */
  run: number;
  /** The barge-in turn's interrupt offset in this run (sweeps only). */
  offset_ms?: number;
  /** The swept condition's level in this run (`--sweep-condition` only). */
  level?: number;
  result: ScenarioResult;
}

export interface MetricSummary {
  /** Over all turns of all runs; null when no turn measured it. */
  stats: LatencyStats | null;
  histogram: HistogramBucket[];
  /** The same per turn index, for the turns that measured it. */
  per_turn: Array<{ turn_index: number; stats: LatencyStats }>;
}

export interface SweepRunPoint {
  run: number;
  status: ScenarioResult['status'];
  /**
   * Whether the bot's audio stopped within the yield window; null when no bot audio was playing as the user started.
   */
  yielded: boolean | null;
  interruption_ms: number | null;
  /** A `bot_interrupted` event arrived in the turn (what a text-mode run can tell). */
  interrupted: boolean;
}

export interface SweepPoint {
  offset_ms: number;
  runs: number;
  /** Runs in which bot audio was playing when the user's speech started. */
  barge_ins: number;
  yielded: number;
  /** yielded / barge_ins; null without a barge-in. */
  yield_rate: number | null;
  /** Runs with a `bot_interrupted` event in the turn. */
  interrupted: number;
  interruption_ms: LatencyStats | null;
  points: SweepRunPoint[];
}

export interface BenchSweep {
  turn_index: number;
  /** The anchor event of the swept `send_after`. */
  event: string;
  range: SweepRange;
  points: SweepPoint[];
}

export interface BenchReport {
  scenario: { name: string; file: string };
  url: string;
  wire: string;
  /** Runs per offset with a sweep, else in all. */
  repeat: number;
  concurrency: number;
  runs: number;
  passed: number;
  failed: number;
  /** Runs that ended in `error` (could not run: connect, harness). */
  errors: number;
  /** Runs whose verdict was `inconclusive` (earshot could not hear the bot reliably). */
  inconclusive: number;
  duration_ms: number;
  metrics: Record<LatencyMetric, MetricSummary>;
  turns: TurnPassRate[];
  sweep?: BenchSweep;
  /** `--sweep-condition`: pass rate and latency per level of a channel condition. */
  condition_sweep?: BenchConditionSweep;
}

export interface BenchHeader {
  url: string;
  wire: string;
  repeat: number;
  concurrency: number;
  duration_ms: number;
  sweep?: { turn_index: number; event: string; range: SweepRange };
  conditionSweep?: ConditionSweep;
}

export function summarizeBench(runs: readonly BenchRun[], header: BenchHeader): BenchReport {
  const first = runs[0]?.result;
  const metrics = Object.fromEntries(LATENCY_METRICS.map((m) => [m, summarizeMetric(runs, m)])) as Record<
    LatencyMetric,
    MetricSummary
  >;
  const report: BenchReport = {
    scenario: { name: first?.name ?? '', file: first?.file ?? '' },
    url: header.url,
    wire: header.wire,
    repeat: header.repeat,
    concurrency: header.concurrency,
    runs: runs.length,
    passed: runs.filter((r) => r.result.status === 'passed').length,
    failed: runs.filter((r) => r.result.status === 'failed').length,
    errors: runs.filter((r) => r.result.status === 'error').length,
    inconclusive: runs.filter((r) => r.result.status === 'inconclusive').length,
    duration_ms: Math.round(header.duration_ms),
    metrics,
    turns: turnPassRates(runs.map((r) => r.result.turns)),
  };
  if (header.sweep) report.sweep = { ...header.sweep, points: sweepPoints(runs, header.sweep.turn_index) };
  if (header.conditionSweep) report.condition_sweep = conditionPoints(runs, header.conditionSweep);
  return report;
}

function summarizeMetric(runs: readonly BenchRun[], metric: LatencyMetric): MetricSummary {
  const all: number[] = [];
  const byTurn = new Map<number, number[]>();
  for (const { result } of runs) {
    for (const t of result.turns) {
      const v = t.metrics?.[metric];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      all.push(v);
      const list = byTurn.get(t.index) ?? [];
      list.push(v);
      byTurn.set(t.index, list);
    }
  }
  const per_turn = [...byTurn.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([turn_index, values]) => ({ turn_index, stats: latencyStats(values)! }));
  return { stats: latencyStats(all), histogram: all.length ? histogram(all).buckets : [], per_turn };
}

function sweepPoints(runs: readonly BenchRun[], turnIndex: number): SweepPoint[] {
  const byOffset = new Map<number, BenchRun[]>();
  for (const r of runs) {
    if (r.offset_ms === undefined) continue;
    byOffset.set(r.offset_ms, [...(byOffset.get(r.offset_ms) ?? []), r]);
  }
  return [...byOffset.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([offset_ms, group]) => {
      const points = group.map((r): SweepRunPoint => {
        const turn = r.result.turns.find((t) => t.index === turnIndex);
        const interruption = turn?.metrics?.interruption_ms;
        return {
          run: r.run,
          status: r.result.status,
          yielded: turn?.metrics?.yielded ?? null,
          interruption_ms: typeof interruption === 'number' ? interruption : null,
          interrupted: turn
            ? expectedAndSeen(turn, 'bot_interrupted') || sawInTurn(r.result, turn, 'bot_interrupted')
            : false,
        };
      });
      const bargeIns = points.filter((p) => p.yielded !== null).length;
      const yielded = points.filter((p) => p.yielded === true).length;
      return {
        offset_ms,
        runs: points.length,
        barge_ins: bargeIns,
        yielded,
        yield_rate: bargeIns ? Math.round((yielded / bargeIns) * 10_000) / 10_000 : null,
        interrupted: points.filter((p) => p.interrupted).length,
        interruption_ms: latencyStats(points.map((p) => p.interruption_ms)),
        points,
      };
    });
}

/** Whether an event of that name arrived between the turn's start and the next turn's start. */
/** The turn's own matcher saw the event: the verdict the run passed on, whatever the event's timestamp. */
function expectedAndSeen(turn: TurnResult, name: string): boolean {
  return turn.expectations.some((e) => e.event === name && e.status === 'passed' && e.matched_after_ms !== undefined);
}

/**
 * An event between this turn's start and the next's. `started_at_ms` is rounded
 * to whole ms while event times are not, so the window opens half a ms early: at
 * offset 0 a bot on loopback can answer within the same millisecond.
 */
function sawInTurn(result: ScenarioResult, turn: TurnResult, name: string): boolean {
  if (turn.status === 'not_run' || turn.started_at_ms === undefined) return false;
  const next = result.turns.find((t) => t.index === turn.index + 1)?.started_at_ms;
  const from = turn.started_at_ms - 0.5;
  return (result.events ?? []).some(
    (e) => e.name === name && e.at_ms >= from && (next === undefined || e.at_ms < next),
  );
}

/** The report as terminal text: the runs, a metric table, histograms, pass rates, the yield curve. */
export function renderBenchReport(report: BenchReport, options: { ascii?: boolean } = {}): string {
  const lines: string[] = [];
  const per = report.sweep
    ? ` × ${report.sweep.points.length} offsets`
    : report.condition_sweep
      ? ` × ${report.condition_sweep.points.length} levels`
      : '';
  lines.push(
    `bench: ${report.scenario.name} × ${report.repeat}${per} (concurrency ${report.concurrency}) ` +
      `against ${report.url} (${report.wire}): ` +
      `${report.passed} passed, ${report.failed} failed, ` +
      `${report.errors} errors${report.inconclusive ? `, ${report.inconclusive} inconclusive` : ''} in ` +
      `${(report.duration_ms / 1000).toFixed(1)} s`,
  );
  lines.push('');
  const head = ['metric', 'count', 'p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'max_ms'];
  const body = LATENCY_METRICS.map((m) => {
    const s = report.metrics[m].stats;
    return s ? [m, String(s.count), ...[s.p50, s.p90, s.p95, s.p99, s.max].map(ms)] : [m, '0', '-', '-', '-', '-', '-'];
  });
  lines.push(...table(head, body, 1), '');
  for (const m of LATENCY_METRICS) {
    const summary = report.metrics[m];
    if (!summary.stats) continue;
    lines.push(`${m}:`);
    // The histogram is redrawn from the buckets so the text and the JSON agree.
    const values = summary.histogram.flatMap((b) => Array<number>(b.count).fill(b.from_ms));
    const edges = [...summary.histogram.map((b) => b.from_ms), summary.histogram[summary.histogram.length - 1].to_ms];
    lines.push(
      ...renderHistogram(values, { edgesMs: edges, width: 30, ascii: options.ascii })
        .split('\n')
        .map((l) => `  ${l}`),
      '',
    );
  }
  lines.push('pass rate per turn:');
  // The inconclusive column only when a turn was (its runs are left out of the pass rate).
  const doubt = report.turns.some((t) => t.inconclusive > 0);
  lines.push(
    ...table(
      ['turn', 'passed', 'failed', ...(doubt ? ['inconclusive'] : []), 'not_run', 'pass_rate'],
      report.turns.map((t) => [
        String(t.turn_index + 1),
        String(t.passed),
        String(t.failed),
        ...(doubt ? [String(t.inconclusive)] : []),
        String(t.not_run),
        `${(t.pass_rate * 100).toFixed(1)}%`,
      ]),
      1,
    ).map((l) => `  ${l}`),
  );
  if (report.sweep) {
    const s = report.sweep;
    lines.push('', `yield curve (turn ${s.turn_index + 1}: send_after ${s.event} + offset):`);
    lines.push(
      ...table(
        ['offset_ms', 'runs', 'barge_ins', 'yielded', 'interrupted', 'interruption p50', 'max'],
        s.points.map((p) => [
          String(p.offset_ms),
          String(p.runs),
          String(p.barge_ins),
          p.barge_ins ? `${p.yielded}/${p.barge_ins}` : '-',
          `${p.interrupted}/${p.runs}`,
          p.interruption_ms ? ms(p.interruption_ms.p50) : '-',
          p.interruption_ms ? ms(p.interruption_ms.max) : '-',
        ]),
        1,
      ).map((l) => `  ${l}`),
    );
  }
  if (report.condition_sweep) lines.push('', ...renderConditionCurve(report.condition_sweep, (h, b) => table(h, b, 1)));
  return lines.join('\n');
}

function ms(v: number): string {
  return v.toFixed(1);
}

/** Fixed-width columns: the first `leftColumns` padded right, the rest left (numbers). */
function table(head: string[], body: string[][], leftColumns: number): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)];
}
