import type { MannWhitneyMethod } from '../../metrics/index.js';
import type { GaiaTurnScore } from '../../results/index.js';
import { SCORECARD_DIMENSIONS, type ScorecardDimension } from '../../scenario/index.js';
import { shiftTest } from './shift.js';

/**
 * GAIA scores in `earshot compare`: per turn, every run's score on each of the seven dimensions (where it applied and
 * the judge gave one) and the turn's weighted total, compared like latencies (Mann–Whitney on the samples, a seeded
 * bootstrap interval of the shift) but on 0..10 points, where lower is worse. The shift is of the means: scores are
 * few whole numbers, and a median moves in steps of a whole point or not at all.
 */

/** A dimension, or `total` (the turn's weighted total). */
export type ScoreName = ScorecardDimension | 'total';
export const SCORE_NAMES: readonly ScoreName[] = [...SCORECARD_DIMENSIONS, 'total'];

/** A score shift smaller than this many points (of 0..10) is never a regression, however significant. */
export const DEFAULT_SCORE_THRESHOLD_POINTS = 1;

/** compare.ts's verdicts that a score can have (a score shift always has a better direction). */
export type ScoreVerdict = 'regressed' | 'improved' | 'unchanged' | 'too_few';

/** The part of `CompareSettings` scores use (kept apart so this file does not import compare.ts: no cycle). */
export interface ScoreSettings {
  alpha: number;
  resamples: number;
  seed: number;
  /** Points of 0..10 a mean must move by to be a regression; default DEFAULT_SCORE_THRESHOLD_POINTS. */
  threshold_points?: number;
}

export interface ScoreSide {
  n: number;
  mean: number | null;
}

export interface ScoreComparison {
  score: ScoreName;
  base: ScoreSide;
  new: ScoreSide;
  /** mean(new) − mean(base), points. */
  shift: number | null;
  /** Bootstrap 95 % interval of the shift of the means. */
  ci95: { low: number; high: number } | null;
  /** Two-sided Mann–Whitney p-value. */
  p_value: number | null;
  test: MannWhitneyMethod | null;
  verdict: ScoreVerdict;
}

/** Adds one GAIA turn's scores to a turn's samples; a dimension that did not apply or was not scored adds none. */
export function addScoreSamples(into: Partial<Record<ScoreName, number[]>>, turn: GaiaTurnScore): void {
  const push = (name: ScoreName, value: number): void => {
    if (!Number.isFinite(value)) return;
    // One array per score, grown in place (biome forbids the `(into[name] ??= []).push` form).
    const samples = into[name] ?? [];
    samples.push(value);
    into[name] = samples;
  };
  for (const d of turn.dimensions) if (d.applicable && d.score !== null) push(d.dimension, d.score);
  push('total', turn.total);
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

export function compareScore(
  score: ScoreName,
  base: readonly number[],
  next: readonly number[],
  settings: ScoreSettings,
): ScoreComparison {
  const out: ScoreComparison = {
    score,
    base: { n: base.length, mean: base.length ? mean(base) : null },
    new: { n: next.length, mean: next.length ? mean(next) : null },
    shift: null,
    ci95: null,
    p_value: null,
    test: null,
    verdict: 'too_few',
  };
  const measured = shiftTest(base, next, mean, settings);
  if (!measured) return out;
  const { shift } = measured;
  out.shift = shift;
  out.ci95 = measured.ci95;
  out.p_value = measured.p_value;
  out.test = measured.test;
  if (!measured.decisive) return out;
  const threshold = settings.threshold_points ?? DEFAULT_SCORE_THRESHOLD_POINTS;
  if (measured.p_value >= settings.alpha || Math.abs(shift) <= threshold) out.verdict = 'unchanged';
  else out.verdict = shift < 0 ? 'regressed' : 'improved';
  return out;
}

/** Every score measured on either side of one turn, in SCORE_NAMES order. */
export function compareTurnScores(
  base: Partial<Record<ScoreName, number[]>> | undefined,
  next: Partial<Record<ScoreName, number[]>> | undefined,
  settings: ScoreSettings,
): ScoreComparison[] {
  return SCORE_NAMES.flatMap((name) => {
    const x = base?.[name] ?? [];
    const y = next?.[name] ?? [];
    return x.length === 0 && y.length === 0 ? [] : [compareScore(name, x, y, settings)];
  });
}
