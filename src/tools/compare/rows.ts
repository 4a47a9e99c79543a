import { assertNever } from '../../core/never.js';
import type {
  ChangeVerdict,
  CompareReport,
  MetricComparison,
  RateComparison,
  RateSide,
  ScenarioComparison,
} from './compare.js';
import { DEFAULT_SCORE_THRESHOLD_POINTS, type ScoreComparison } from './scores.js';

/**
 * The report flattened into table rows, one per pass rate and per metric, as
 * every output (list, markdown, GitHub, HTML) shows them; plus the words and
 * numbers they share, so the outputs cannot disagree about a figure.
 */

export interface CompareRow {
  scenario: ScenarioComparison;
  /** 0-based turn index; null for the scenario's own pass rate. */
  turn: number | null;
  /** `pass rate`, a metric name, or a GAIA score (`gaia.correctness`, …, `gaia.total`). */
  what: string;
  base: string;
  new: string;
  /** The shift with its 95 % interval. */
  change: string;
  /** The p-value and its test, when a test ran. */
  p: string;
  verdict: ChangeVerdict;
}

/**
 * Every row of every scenario, scenarios in report order. A turn's pass rate is
 * listed only when it says more than the scenario's (it moved, or the turn has a
 * verdict of its own), so a one-turn scenario does not show the same rate twice.
 */
export function compareRows(report: CompareReport): CompareRow[] {
  const rows: CompareRow[] = [];
  for (const s of report.scenarios) {
    rows.push(rateRow(s, null, s.pass_rate));
    for (const t of s.turns) {
      const r = t.pass_rate;
      if (r.verdict === 'regressed' || r.verdict === 'improved' || r.base.rate !== r.new.rate)
        rows.push(rateRow(s, t.index, r));
      for (const m of t.metrics) rows.push(metricRow(s, t.index, m));
      for (const x of t.scores) rows.push(scoreRow(s, t.index, x));
    }
  }
  return rows;
}

/** Rows that need a reader's eye first: anything but unchanged or too few, worst first. */
export function notableRows(rows: readonly CompareRow[]): CompareRow[] {
  return rows
    .filter((r) => r.verdict === 'regressed' || r.verdict === 'improved' || r.verdict === 'changed')
    .sort((a, b) => rank(a.verdict) - rank(b.verdict));
}

function rank(v: ChangeVerdict): number {
  return v === 'regressed' ? 0 : v === 'improved' ? 1 : 2;
}

function rateRow(scenario: ScenarioComparison, turn: number | null, r: RateComparison): CompareRow {
  const d = r.difference;
  return {
    scenario,
    turn,
    what: 'pass rate',
    base: rateText(r.base),
    new: rateText(r.new),
    change: d ? `${signed(d.difference * 100, 1)} pp [${signed(d.low * 100, 1)}, ${signed(d.high * 100, 1)}]` : '–',
    p: '',
    verdict: r.verdict,
  };
}

function metricRow(scenario: ScenarioComparison, turn: number, m: MetricComparison): CompareRow {
  const change =
    m.shift_ms === null
      ? '–'
      : `${signed(m.shift_ms, 0)} ms${m.shift_pct === null ? '' : ` (${signed(m.shift_pct, 1)}%)`}` +
        `${m.ci95 ? ` [${signed(m.ci95.low, 0)}, ${signed(m.ci95.high, 0)}]` : ''}`;
  return {
    scenario,
    turn,
    what: m.metric,
    base: sampleText(m.base),
    new: sampleText(m.new),
    change,
    p: m.p_value === null ? '' : `${pValue(m.p_value)}${m.test ? ` (${m.test})` : ''}`,
    verdict: m.verdict,
  };
}

function scoreRow(scenario: ScenarioComparison, turn: number, x: ScoreComparison): CompareRow {
  const side = (v: { n: number; mean: number | null }): string =>
    v.mean === null ? '– (n 0)' : `${v.mean.toFixed(2)} (n ${v.n})`;
  return {
    scenario,
    turn,
    what: `gaia.${x.score}`,
    base: side(x.base),
    new: side(x.new),
    change:
      x.shift === null
        ? '–'
        : `${signed(x.shift, 2)} pts${x.ci95 ? ` [${signed(x.ci95.low, 2)}, ${signed(x.ci95.high, 2)}]` : ''}`,
    p: x.p_value === null ? '' : `${pValue(x.p_value)}${x.test ? ` (${x.test})` : ''}`,
    verdict: x.verdict,
  };
}

/** `9/10 (90%, 60–98%)`, or `–` without trials. */
export function rateText(side: RateSide): string {
  if (side.rate === null || side.low === null || side.high === null) return '–';
  return `${side.passed}/${side.trials} (${percent(side.rate)}%, ${percent(side.low)}–${percent(side.high)}%)`;
}

function sampleText(side: { n: number; median: number | null }): string {
  return side.median === null ? `– (n 0)` : `${Math.round(side.median)} ms (n ${side.n})`;
}

function percent(rate: number): string {
  return String(Math.round(rate * 100));
}

/** `+12.3` / `−4.0` / `±0`: the sign always shown, a real minus sign. */
export function signed(value: number, digits: number): string {
  const text = Math.abs(value).toFixed(digits);
  if (Number(text) === 0) return `±${text}`;
  return `${value > 0 ? '+' : '−'}${text}`;
}

/** `0.0123`, `< 0.0001`. */
export function pValue(p: number): string {
  return p < 0.0001 ? '< 0.0001' : p.toFixed(4);
}

/** How a verdict reads in a table. */
export function verdictWord(verdict: ChangeVerdict): string {
  switch (verdict) {
    case 'regressed':
      return 'REGRESSED';
    case 'improved':
      return 'improved';
    case 'changed':
      return 'changed';
    case 'unchanged':
      return 'unchanged';
    case 'too_few':
      return 'too few';
    default:
      return assertNever(verdict, 'compare verdict');
  }
}

/** Where a row sits: `turn 2` (1-based, as every earshot report numbers turns) or `scenario`. */
export function turnLabel(turn: number | null): string {
  return turn === null ? 'scenario' : `turn ${turn + 1}`;
}

/** The one-line headline every output starts with. */
export function headline(report: CompareReport): string {
  const c = report.counts;
  const parts = [`${c.regressed} regressed`, `${c.improved} improved`];
  if (c.changed) parts.push(`${c.changed} changed`);
  parts.push(`${c.unchanged} unchanged`);
  if (c.too_few) parts.push(`${c.too_few} with too few runs`);
  return `${report.scenarios.length} scenario${report.scenarios.length === 1 ? '' : 's'} compared: ${parts.join(', ')}`;
}

/** The rule the verdicts follow, in words. */
export function ruleText(report: CompareReport): string {
  const s = report.settings;
  const scored = report.scenarios.some((x) => x.turns.some((t) => t.scores.length > 0));
  return (
    `a latency regression is a Mann–Whitney p < ${s.alpha} and a median shift beyond ${s.threshold_pct}% and ` +
    `${s.threshold_ms} ms; a pass-rate regression, a 95% interval of the change wholly below 0` +
    (scored
      ? `; a GAIA score regression, a Mann–Whitney p < ${s.alpha} and a mean drop beyond ` +
        `${s.threshold_points ?? DEFAULT_SCORE_THRESHOLD_POINTS} point(s) of 10`
      : '')
  );
}
