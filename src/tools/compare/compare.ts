import { assertNever } from '../../core/never.js';
import {
  DEFAULT_RESAMPLES,
  median,
  newcombeDifference,
  wilsonInterval,
  type DifferenceInterval,
  type MannWhitneyMethod,
} from '../../metrics/index.js';
import { LATENCY_METRICS, type LatencyMetric } from '../../scenario/index.js';
import { ratedRuns, type RunSamples, type ScenarioSamples } from './samples.js';
import { compareTurnScores, type ScoreComparison } from './scores.js';
import { shiftTest } from './shift.js';

/**
 * `earshot compare`: a baseline against a new run, per scenario and turn. Pure:
 * the same samples and settings give the same report (the bootstrap is seeded).
 *
 * Verdicts (`ChangeVerdict`):
 * - a **latency metric** is `regressed` when the Mann–Whitney p-value is below
 *   `alpha` AND the median shift (new − base) exceeds every threshold: more than
 *   `threshold_ms` AND more than `threshold_pct` % of the baseline median. Both,
 *   because each alone misfires: 10 % of a 40 ms metric is scheduler noise, and
 *   50 ms of a 3 s voice-to-voice is nothing a caller hears. `improved` is the
 *   same downwards. `bot_speech_ms` (how long the bot talks) has no better
 *   direction: a significant shift is `changed`, never a regression.
 * - a **pass rate** is `regressed` when the 95 % interval of (new − base) rate
 *   (Newcombe's hybrid score interval, from the two Wilson intervals) lies wholly
 *   below 0; `improved` when wholly above.
 * - `too_few`: one side has no sample, or so few that no shift could reach
 *   significance (the exact test's smallest p-value, 2 / C(n_a + n_b, n_a), is
 *   not below alpha: 4 runs a side is the least at alpha 0.05).
 * - a scenario takes the worst verdict of its parts; the report regresses when
 *   any scenario does.
 */

export type ChangeVerdict = 'regressed' | 'improved' | 'changed' | 'unchanged' | 'too_few';

export interface CompareSettings {
  /** Relative threshold, % of the baseline median. Default 10. */
  threshold_pct: number;
  /** Absolute threshold, ms. Default 50. */
  threshold_ms: number;
  /** Significance level of the Mann–Whitney test. Default 0.05. */
  alpha: number;
  /** Bootstrap rounds. Default 2000. */
  resamples: number;
  /** Bootstrap seed. Default 1. */
  seed: number;
  /** GAIA scores: points of 0..10 a mean must drop by to regress. Default 1 (scores.ts). */
  threshold_points?: number;
}

export const DEFAULT_COMPARE_SETTINGS: Readonly<CompareSettings> = Object.freeze({
  threshold_pct: 10,
  threshold_ms: 50,
  alpha: 0.05,
  resamples: DEFAULT_RESAMPLES,
  seed: 1,
});

/** Metrics whose shift is reported but is neither better nor worse. */
export const NEUTRAL_METRICS: readonly LatencyMetric[] = ['bot_speech_ms'];

export interface RateSide {
  passed: number;
  /** Runs (scenarios: all but skipped) or turns (passed + failed) that were rated. */
  trials: number;
  /** passed / trials, with its Wilson 95 % interval; null without trials. */
  rate: number | null;
  low: number | null;
  high: number | null;
}

export interface RateComparison {
  base: RateSide;
  new: RateSide;
  /** 95 % interval of new − base; null when a side has no trials. */
  difference: DifferenceInterval | null;
  verdict: ChangeVerdict;
}

export interface MetricSide {
  n: number;
  median: number | null;
}

export interface MetricComparison {
  metric: LatencyMetric;
  base: MetricSide;
  new: MetricSide;
  /** median(new) − median(base), ms. */
  shift_ms: number | null;
  /** shift / |median(base)| × 100; null when the baseline median is 0 or missing. */
  shift_pct: number | null;
  /** Bootstrap 95 % interval of the median shift. */
  ci95: { low: number; high: number } | null;
  /** Two-sided Mann–Whitney p-value. */
  p_value: number | null;
  test: MannWhitneyMethod | null;
  verdict: ChangeVerdict;
}

export interface TurnComparison {
  index: number;
  pass_rate: RateComparison;
  /** The metrics measured on at least one side, in LATENCY_METRICS order. */
  metrics: MetricComparison[];
  /** GAIA scores (each dimension, then the total) scored on at least one side. */
  scores: ScoreComparison[];
  verdict: ChangeVerdict;
}

export interface ScenarioComparison {
  name: string;
  file: string;
  bot?: string;
  /** How the two sides were paired: same file (and bot), or by name when the files differ (another checkout). */
  matched_by: 'file' | 'name';
  base_runs: number;
  new_runs: number;
  pass_rate: RateComparison;
  turns: TurnComparison[];
  verdict: ChangeVerdict;
}

export interface ScenarioRef {
  name: string;
  file: string;
  bot?: string;
}

export interface CompareReport {
  version: 1;
  base: { source: string; results: number };
  new: { source: string; results: number };
  settings: CompareSettings;
  /** No scenario regressed: what the exit status follows. */
  ok: boolean;
  counts: Record<ChangeVerdict, number>;
  scenarios: ScenarioComparison[];
  only_in_base: ScenarioRef[];
  only_in_new: ScenarioRef[];
  warnings: string[];
}

export function compareRuns(
  base: RunSamples,
  next: RunSamples,
  settings: CompareSettings = DEFAULT_COMPARE_SETTINGS,
): CompareReport {
  const pairs = pairScenarios(base.scenarios, next.scenarios);
  const scenarios = pairs.matched.map(({ base: b, next: n, by }) => compareScenario(b, n, by, settings));
  const counts: Record<ChangeVerdict, number> = { regressed: 0, improved: 0, changed: 0, unchanged: 0, too_few: 0 };
  for (const s of scenarios) counts[s.verdict] += 1;
  return {
    version: 1,
    base: { source: base.source, results: base.results },
    new: { source: next.source, results: next.results },
    settings: { ...settings },
    ok: counts.regressed === 0,
    counts,
    scenarios,
    only_in_base: pairs.onlyBase.map(ref),
    only_in_new: pairs.onlyNew.map(ref),
    warnings: [...base.warnings, ...next.warnings],
  };
}

function ref(s: ScenarioSamples): ScenarioRef {
  return { name: s.name, file: s.file, ...(s.bot ? { bot: s.bot } : {}) };
}

/**
 * Same (file, bot) first; what is left is paired by (name, bot) where that is
 * unique on both sides — the same suite run from another checkout path.
 */
function pairScenarios(
  base: readonly ScenarioSamples[],
  next: readonly ScenarioSamples[],
): {
  matched: Array<{ base: ScenarioSamples; next: ScenarioSamples; by: 'file' | 'name' }>;
  onlyBase: ScenarioSamples[];
  onlyNew: ScenarioSamples[];
} {
  const byKey = new Map(next.map((s) => [s.key, s]));
  const matched: Array<{ base: ScenarioSamples; next: ScenarioSamples; by: 'file' | 'name' }> = [];
  const leftBase: ScenarioSamples[] = [];
  for (const b of base) {
    const n = byKey.get(b.key);
    if (n) {
      matched.push({ base: b, next: n, by: 'file' });
      byKey.delete(b.key);
    } else leftBase.push(b);
  }
  const nameKey = (s: ScenarioSamples): string => JSON.stringify([s.name, s.bot ?? '']);
  const unique = (list: readonly ScenarioSamples[]): Map<string, ScenarioSamples> => {
    const seen = new Map<string, ScenarioSamples | null>();
    for (const s of list) seen.set(nameKey(s), seen.has(nameKey(s)) ? null : s);
    return new Map([...seen].filter((e): e is [string, ScenarioSamples] => e[1] !== null));
  };
  const leftNew = [...byKey.values()];
  const newByName = unique(leftNew);
  const baseByName = unique(leftBase);
  const onlyBase: ScenarioSamples[] = [];
  for (const b of leftBase) {
    const n = baseByName.has(nameKey(b)) ? newByName.get(nameKey(b)) : undefined;
    if (n) {
      matched.push({ base: b, next: n, by: 'name' });
      newByName.delete(nameKey(b));
    } else onlyBase.push(b);
  }
  const paired = new Set(matched.map((m) => m.next));
  return { matched, onlyBase, onlyNew: leftNew.filter((n) => !paired.has(n)) };
}

function compareScenario(
  base: ScenarioSamples,
  next: ScenarioSamples,
  by: 'file' | 'name',
  settings: CompareSettings,
): ScenarioComparison {
  const passRate = compareRates(
    { passed: base.runs.passed, trials: ratedRuns(base.runs) },
    { passed: next.runs.passed, trials: ratedRuns(next.runs) },
  );
  const indices = [...new Set([...base.turns, ...next.turns].map((t) => t.index))].sort((a, b) => a - b);
  const turns = indices.map((index): TurnComparison => {
    const b = base.turns.find((t) => t.index === index);
    const n = next.turns.find((t) => t.index === index);
    const rate = compareRates(
      { passed: b?.passed ?? 0, trials: (b?.passed ?? 0) + (b?.failed ?? 0) },
      { passed: n?.passed ?? 0, trials: (n?.passed ?? 0) + (n?.failed ?? 0) },
    );
    const metrics = LATENCY_METRICS.flatMap((metric) => {
      const x = b?.metrics[metric] ?? [];
      const y = n?.metrics[metric] ?? [];
      return x.length === 0 && y.length === 0 ? [] : [compareMetric(metric, x, y, settings)];
    });
    const scores = compareTurnScores(b?.scores, n?.scores, settings);
    const verdicts = [rate.verdict, ...metrics.map((m) => m.verdict), ...scores.map((x) => x.verdict)];
    return { index, pass_rate: rate, metrics, scores, verdict: worst(verdicts) };
  });
  const out: ScenarioComparison = {
    name: next.name,
    file: next.file,
    matched_by: by,
    base_runs: allRuns(base.runs),
    new_runs: allRuns(next.runs),
    pass_rate: passRate,
    turns,
    verdict: worst([passRate.verdict, ...turns.map((t) => t.verdict)]),
  };
  if (next.bot) out.bot = next.bot;
  return out;
}

function allRuns(c: ScenarioSamples['runs']): number {
  return c.passed + c.failed + c.error + c.skipped + c.inconclusive;
}

function side(passed: number, trials: number): RateSide {
  if (trials === 0) return { passed, trials, rate: null, low: null, high: null };
  const w = wilsonInterval(passed, trials);
  return { passed, trials, rate: w.rate, low: w.low, high: w.high };
}

export function compareRates(
  base: { passed: number; trials: number },
  next: { passed: number; trials: number },
): RateComparison {
  const result: RateComparison = {
    base: side(base.passed, base.trials),
    new: side(next.passed, next.trials),
    difference: null,
    verdict: 'too_few',
  };
  if (base.trials === 0 || next.trials === 0) return result;
  const d = newcombeDifference(
    { successes: base.passed, trials: base.trials },
    { successes: next.passed, trials: next.trials },
  );
  result.difference = d;
  result.verdict = d.high < 0 ? 'regressed' : d.low > 0 ? 'improved' : 'unchanged';
  return result;
}

export function compareMetric(
  metric: LatencyMetric,
  base: readonly number[],
  next: readonly number[],
  settings: CompareSettings,
): MetricComparison {
  const out: MetricComparison = {
    metric,
    base: { n: base.length, median: base.length ? median(base) : null },
    new: { n: next.length, median: next.length ? median(next) : null },
    shift_ms: null,
    shift_pct: null,
    ci95: null,
    p_value: null,
    test: null,
    verdict: 'too_few',
  };
  const measured = shiftTest(base, next, median, settings);
  if (!measured) return out;
  const { shift } = measured;
  const baseMedian = median(base);
  out.shift_ms = shift;
  out.shift_pct = baseMedian === 0 ? null : (shift / Math.abs(baseMedian)) * 100;
  out.ci95 = measured.ci95;
  out.p_value = measured.p_value;
  out.test = measured.test;
  if (!measured.decisive) return out;
  const beyond =
    Math.abs(shift) > settings.threshold_ms && Math.abs(shift) > (settings.threshold_pct / 100) * Math.abs(baseMedian);
  if (measured.p_value >= settings.alpha || !beyond) out.verdict = 'unchanged';
  else if (NEUTRAL_METRICS.includes(metric)) out.verdict = 'changed';
  else out.verdict = shift > 0 ? 'regressed' : 'improved';
  return out;
}

/** How much a verdict weighs when parts are summed up into one: a regression anywhere is the scenario's verdict. */
export function severity(verdict: ChangeVerdict): number {
  switch (verdict) {
    case 'regressed':
      return 4;
    case 'improved':
      return 3;
    case 'changed':
      return 2;
    case 'unchanged':
      return 1;
    case 'too_few':
      return 0;
    default:
      return assertNever(verdict, 'compare verdict');
  }
}

function worst(verdicts: readonly ChangeVerdict[]): ChangeVerdict {
  let out: ChangeVerdict = 'too_few';
  for (const v of verdicts) if (severity(v) > severity(out)) out = v;
  return out;
}
