import {
  SCENARIO_SEVERITIES,
  SCORECARD_DIMENSIONS,
  type ScenarioSeverity,
  type ScorecardDimension,
} from '../scenario/types.js';
import { round3 } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * The run summary's groups (GAIA's view of a run): pass rates per `category:` and per `severity:`, and the mean score
 * of each scorecard dimension over every GAIA turn and simulation scorecard. Each group is left out of the summary
 * when no result has anything for it, so summaries of runs without them stay as they were.
 */

export interface CategoryGroup {
  /** Result lines with this category (superseded attempts left out). */
  runs: number;
  passed: number;
  /** passed / (runs − skipped − inconclusive); null when no run was conclusive. */
  pass_rate: number | null;
  /** Mean of the GAIA scenario totals (0..10) of these runs; null when none of them has GAIA scores. */
  mean_total: number | null;
}

export interface DimensionGroup {
  /** Mean score 0..10; null when no score was given. */
  mean: number | null;
  /** Scores averaged: GAIA turns where the dimension applied and was scored, plus simulation scorecards. */
  n: number;
}

export interface SeverityGroup {
  runs: number;
  passed: number;
  pass_rate: number | null;
}

export interface SummaryGroups {
  /** Category → its runs, in code-unit order of the category. */
  categories?: Record<string, CategoryGroup>;
  /** In SCORECARD_DIMENSIONS order, only the dimensions that have a score. */
  dimensions?: Partial<Record<ScorecardDimension, DimensionGroup>>;
  /** In SCENARIO_SEVERITIES order (most severe first), only the severities that occur. */
  severities?: Partial<Record<ScenarioSeverity, SeverityGroup>>;
}

interface Tally {
  runs: number;
  passed: number;
  rated: number;
  totals: number[];
}

/** The groups of `results` (already one per identity: `latestAttempts`). */
export function summaryGroups(results: readonly ScenarioResult[]): SummaryGroups {
  const categories = new Map<string, Tally>();
  const severities = new Map<ScenarioSeverity, Tally>();
  const scores = new Map<ScorecardDimension, number[]>();
  for (const r of results) {
    if (r.category !== undefined) count(categories, r.category, r);
    if (r.severity !== undefined) count(severities, r.severity, r);
    for (const [dimension, score] of dimensionScores(r))
      scores.set(dimension, [...(scores.get(dimension) ?? []), score]);
  }
  const groups: SummaryGroups = {};
  if (categories.size > 0) {
    groups.categories = {};
    for (const name of [...categories.keys()].sort()) {
      const t = categories.get(name)!;
      groups.categories[name] = {
        runs: t.runs,
        passed: t.passed,
        pass_rate: rate(t.passed, t.rated),
        mean_total: meanOf(t.totals),
      };
    }
  }
  if (scores.size > 0) {
    groups.dimensions = {};
    for (const d of SCORECARD_DIMENSIONS) {
      const values = scores.get(d);
      if (values) groups.dimensions[d] = { mean: meanOf(values), n: values.length };
    }
  }
  if (severities.size > 0) {
    groups.severities = {};
    for (const s of SCENARIO_SEVERITIES) {
      const t = severities.get(s);
      if (t) groups.severities[s] = { runs: t.runs, passed: t.passed, pass_rate: rate(t.passed, t.rated) };
    }
  }
  return groups;
}

/**
 * Every dimension score a result holds: a GAIA turn's applicable, scored dimensions and a simulation scorecard's
 * scored ones. A null score (the judge gave none) is left out: it says nothing about the bot.
 */
export function dimensionScores(r: ScenarioResult): Array<[ScorecardDimension, number]> {
  const out: Array<[ScorecardDimension, number]> = [];
  for (const turn of r.gaia?.turns ?? [])
    for (const d of turn.dimensions) if (d.applicable && d.score !== null) out.push([d.dimension, d.score]);
  for (const d of r.simulation?.scorecard?.dimensions ?? []) if (d.score !== null) out.push([d.dimension, d.score]);
  return out;
}

function count<K>(map: Map<K, Tally>, key: K, r: ScenarioResult): void {
  const t = map.get(key) ?? { runs: 0, passed: 0, rated: 0, totals: [] };
  t.runs += 1;
  if (r.status === 'passed') t.passed += 1;
  if (r.status !== 'skipped' && r.status !== 'inconclusive') t.rated += 1;
  if (r.gaia) t.totals.push(r.gaia.total);
  map.set(key, t);
}

function meanOf(values: readonly number[]): number | null {
  return values.length === 0 ? null : round3(values.reduce((s, v) => s + v, 0) / values.length);
}

function rate(part: number, whole: number): number | null {
  return whole > 0 ? round3(part / whole) : null;
}
