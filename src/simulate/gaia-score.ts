import { isJudgeError, readJsonObject, type JudgeError } from '../judge/index.js';
import { failure } from '../results/failure.js';
import type { Failure, GaiaAutoZero, GaiaDimensionScore, GaiaTurnScore } from '../results/index.js';
import { SCORECARD_DIMENSIONS, type GaiaScoring, type GaiaTurn, type ScorecardDimension } from '../scenario/index.js';
import { earshotAutoZero, expectedNumberCheck, factNumberCheck, type NumberCheck } from './gaia-checks.js';
import {
  GAIA_AUTO_ZERO_RULES,
  GAIA_TURN_SYSTEM_PROMPT,
  gaiaTurnPrompt,
  type GaiaJudgeRule,
  type GaiaTurnView,
} from './gaia-prompts.js';
import { readScoresFrom, type JudgeScores } from './scorecard.js';
import { ask, reasonOf, verdictOf, type RunJudge } from './transcript.js';

/**
 * A GAIA turn's score: one judge call per turn (after the call, in order), then earshot's own rules over the judge's
 * scores: the numbers (gaia-checks.ts), `expected_answer: null` needing an admission, lazy refusal only where calls
 * are visible, the judge's automatic zero, the re-ask cap on context retention, and tool selection and efficiency
 * not applicable (weight renormalized over the rest) where the wire cannot show calls. The turn passes with no
 * automatic zero, a yes on its success criteria (when it has some) and a weighted total at the threshold.
 */

/** The dimensions that need the bot's function calls to be judged. */
export const CALL_DIMENSIONS: ReadonlySet<ScorecardDimension> = new Set(['tool_selection', 'efficiency']);

/** The judge's answer about one turn, read. */
export interface GaiaJudgeAnswer {
  scores: JudgeScores;
  success: { verdict: 'yes' | 'no'; reason: string } | null;
  autoZero: { rule: GaiaJudgeRule; reason: string } | null;
  reasked: boolean;
  raw: string;
}

/** A judge answer earshot cannot use: the run's `judge_no_verdict`. */
export interface GaiaNoVerdict {
  noVerdict: string;
  raw: string;
}

export function isNoVerdict(x: GaiaJudgeAnswer | GaiaNoVerdict | JudgeError): x is GaiaNoVerdict {
  return typeof (x as GaiaNoVerdict).noVerdict === 'string';
}

/** Asks the judge about one turn. */
export async function judgeGaiaTurn(
  judge: RunJudge,
  view: GaiaTurnView,
): Promise<GaiaJudgeAnswer | GaiaNoVerdict | JudgeError> {
  const answer = await ask(judge, GAIA_TURN_SYSTEM_PROMPT, gaiaTurnPrompt(view));
  if (isJudgeError(answer)) return answer;
  return readGaiaAnswer(answer, view.turn.success_criteria !== undefined);
}

/**
 * The judge's JSON, or why it is unusable: no JSON object, no score for correctness, or no yes/no on success
 * criteria the turn has. A missing score of another dimension counts as 0, as in the scorecard.
 */
export function readGaiaAnswer(raw: string, needsSuccess: boolean): GaiaJudgeAnswer | GaiaNoVerdict {
  const obj = readJsonObject(raw);
  if (!obj) return { noVerdict: 'the judge answered no JSON object', raw };
  if (typeof obj.scores !== 'object' || obj.scores === null)
    return { noVerdict: 'the judge answered no "scores" object', raw };
  const scores = readScoresFrom(obj);
  if (scores.correctness?.score == null) return { noVerdict: 'the judge gave no correctness score', raw };
  let success: GaiaJudgeAnswer['success'] = null;
  if (needsSuccess) {
    const given =
      typeof obj.success === 'object' && obj.success !== null ? (obj.success as Record<string, unknown>) : {};
    const verdict = verdictOf(given.verdict ?? obj.success);
    if (verdict === 'none') return { noVerdict: 'the judge gave no yes/no on the success criteria', raw };
    success = { verdict, reason: reasonOf(given.reason) };
  }
  let autoZero: GaiaJudgeAnswer['autoZero'] = null;
  const az = obj.auto_zero;
  if (typeof az === 'object' && az !== null) {
    const rule = (az as Record<string, unknown>).rule;
    if (typeof rule === 'string' && (GAIA_AUTO_ZERO_RULES as readonly string[]).includes(rule))
      autoZero = { rule: rule as GaiaJudgeRule, reason: reasonOf((az as Record<string, unknown>).reason) };
  } else if (typeof az === 'string' && (GAIA_AUTO_ZERO_RULES as readonly string[]).includes(az)) {
    autoZero = { rule: az as GaiaJudgeRule, reason: '(no reason given)' };
  }
  return { scores, success, autoZero, reasked: obj.reasked === true, raw };
}

export interface GaiaTurnPlay {
  turn: GaiaTurn;
  userMessage: string;
  source: GaiaTurnScore['user_message_source'];
  reply: string;
  calls: GaiaTurnScore['calls'];
  callsVisible: boolean;
}

/** The turn's score from the judge's answer and earshot's rules. */
export function scoreGaiaTurn(play: GaiaTurnPlay, answer: GaiaJudgeAnswer, scoring: GaiaScoring): GaiaTurnScore {
  const { turn, reply, calls, callsVisible } = play;
  const truth = turn.ground_truth;
  const numbers =
    typeof truth?.expected_answer === 'string'
      ? expectedNumberCheck(truth.expected_answer, reply)
      : truth && truth.expected_answer === undefined && truth.facts.length
        ? factNumberCheck(truth.facts, reply)
        : undefined;
  const autoZero = earshotAutoZero(truth, reply, calls, callsVisible, numbers) ?? judgeAutoZero(play, answer, numbers);
  const applicable = (d: ScorecardDimension): boolean => callsVisible || !CALL_DIMENSIONS.has(d);
  const sum = SCORECARD_DIMENSIONS.filter(applicable).reduce((s, d) => s + scoring.weights[d], 0);
  const dimensions = SCORECARD_DIMENSIONS.map((dimension): GaiaDimensionScore => {
    const given = answer.scores[dimension] ?? { score: null, reason: 'the judge gave no score' };
    if (!applicable(dimension)) {
      return {
        dimension,
        applicable: false,
        weight: 0,
        score: null,
        judge_score: given.score,
        reason: 'not applicable: the wire does not show the bot’s function calls',
      };
    }
    const row: GaiaDimensionScore = {
      dimension,
      applicable: true,
      weight: sum > 0 ? scoring.weights[dimension] / sum : 0,
      score: given.score,
      judge_score: given.score,
      reason: given.reason,
    };
    if (dimension === 'correctness') {
      const cap = autoZero ? { max: 0, reason: `automatic zero (${autoZero.rule}): ${autoZero.reason}` } : numbers;
      if (cap) capRow(row, cap);
    }
    if (dimension === 'context_retention' && answer.reasked)
      capRow(row, { max: 4, reason: 'the bot asked again for something an earlier turn established' });
    return row;
  });
  const total = Math.round(dimensions.reduce((t, d) => t + d.weight * (d.score ?? 0), 0) * 100) / 100;
  const score: GaiaTurnScore = {
    turn: turn.turn,
    objective: turn.objective,
    user_message: play.userMessage,
    user_message_source: play.source,
    reply,
    calls,
    dimensions,
    total,
    passed: false,
  };
  if (truth?.expected_answer !== undefined) score.expected_answer = truth.expected_answer;
  if (truth?.facts.length) score.facts = truth.facts;
  if (turn.success_criteria !== undefined) score.success_criteria = turn.success_criteria;
  if (answer.success) score.success = answer.success;
  if (autoZero) score.auto_zero = autoZero;
  score.passed = !autoZero && answer.success?.verdict !== 'no' && total >= scoring.pass_threshold;
  return score;
}

/**
 * The judge's automatic zero, where earshot does not decide the rule itself: a wrong number is earshot's whenever
 * it checked numbers; a lazy refusal counts only where calls are visible and none was made; with
 * `expected_answer: null` the admission rule decides.
 */
function judgeAutoZero(
  play: GaiaTurnPlay,
  answer: GaiaJudgeAnswer,
  numbers: NumberCheck | undefined,
): GaiaAutoZero | undefined {
  const az = answer.autoZero;
  if (!az || play.turn.ground_truth?.expected_answer === null) return undefined;
  if (az.rule === 'wrong_number' && numbers) return undefined;
  if (az.rule === 'lazy_refusal' && (!play.callsVisible || play.calls.length > 0)) return undefined;
  return { rule: az.rule, by: 'judge', reason: az.reason };
}

function capRow(row: GaiaDimensionScore, cap: { max: number; reason: string }): void {
  row.cap = cap;
  if (row.score !== null && row.score > cap.max) row.score = cap.max;
}

/** The turn's failures (all on `turn_index`): an automatic zero, a no on the criteria, a total under the threshold. */
export function gaiaTurnFailures(score: GaiaTurnScore, turnIndex: number, threshold: number): Failure[] {
  const site = { turn_index: turnIndex };
  const out: Failure[] = [];
  if (score.auto_zero)
    out.push(
      failure('correctness_zero', `turn ${score.turn}: ${score.auto_zero.rule}: ${score.auto_zero.reason}`, site),
    );
  if (score.success?.verdict === 'no')
    out.push(failure('judge_no', `turn ${score.turn}: success criteria not met: ${score.success.reason}`, site));
  if (score.total < threshold)
    out.push(failure('scorecard_below_threshold', `turn ${score.turn}: total ${score.total} < ${threshold}`, site));
  return out;
}

/** The scenario's total (mean of the turn totals, 2 decimals) and verdict (every turn passed). */
export function gaiaTotals(turns: readonly GaiaTurnScore[]): { total: number; passed: boolean } {
  if (!turns.length) return { total: 0, passed: false };
  const total = Math.round((turns.reduce((s, t) => s + t.total, 0) / turns.length) * 100) / 100;
  return { total, passed: turns.every((t) => t.passed) };
}
