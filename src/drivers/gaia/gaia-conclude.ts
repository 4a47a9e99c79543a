import { errorMessage } from '../../core/errors.js';
import { isJudgeError } from '../../judge/index.js';
import { failure } from '../../results/failure.js';
import type { Failure, GaiaCallSeen, GaiaResult, GaiaTurnScore, ScenarioResult } from '../../results/index.js';
import { withPipecatFields } from '../../results/pipecat.js';
import type { GaiaSpec, Scenario } from '../../scenario/index.js';
import {
  gaiaTotals,
  gaiaTurnFailures,
  isNoVerdict,
  judgeGaiaTurn,
  scoreGaiaTurn,
  type RunJudge,
} from '../../simulate/index.js';

/** One turn as the driver played it. */
export interface PlayedTurn {
  /** The scenario turn (GAIA turn `index + 1`). */
  index: number;
  userMessage: string;
  source: GaiaTurnScore['user_message_source'];
  reply: string;
  calls: GaiaCallSeen[];
}

export interface GaiaConclusion {
  scenario: Scenario;
  gaia: GaiaSpec;
  result: ScenarioResult;
  played: readonly PlayedTurn[];
  /** Filled with the judge's raw answers, in order (for the trace file). */
  judgeAnswers: GaiaJudgeRecord[];
  callsVisible: boolean;
  documentsVia?: GaiaResult['documents_via'];
  judge: RunJudge | null;
  /** The caller's model, when one wrote a turn. */
  simulator?: string;
  log: (line: string) => void;
}

/** The judge's raw answers, per GAIA turn, for the trace file (runner/artifacts.ts). */
export interface GaiaJudgeRecord {
  turn: number;
  raw: string;
}

/**
 * The verdict over a played GAIA scenario. A run that errored or never started is not judged (it says nothing
 * about the bot). Otherwise the judge scores each played turn, in order, with the turns before it as context; a
 * judge that cannot answer, or answers nothing usable (`judge_no_verdict`), makes the run an error. Each turn's
 * failures go on the turn; the scenario passes when every turn does.
 */
export async function concludeGaia(c: GaiaConclusion): Promise<ScenarioResult> {
  const { result, gaia, log } = c;
  if (result.status === 'error' || result.failures.some((f) => f.turn_index === null)) return result;
  if (!c.judge) return errorOut(result, 'no judge to score the GAIA turns', log);
  const block: GaiaResult = {
    id: gaia.id,
    persona: gaia.persona.name,
    documents: gaia.documents.map((d) => ({ corpus_doc: d.corpus_doc, path: d.written_path })),
    weights: { ...gaia.scoring.weights },
    pass_threshold: gaia.scoring.pass_threshold,
    calls_visible: c.callsVisible,
    total: 0,
    passed: false,
    turns: [],
  };
  if (gaia.display_name !== undefined) block.display_name = gaia.display_name;
  if (gaia.expected_outcome !== undefined) block.expected_outcome = gaia.expected_outcome;
  if (c.simulator !== undefined) block.simulator = c.simulator;
  if (c.documentsVia !== undefined) block.documents_via = c.documentsVia;
  const raws = c.judgeAnswers;
  const failures: Failure[] = [...result.failures];
  const turns = result.turns.map((t) => ({ ...t }));
  for (const p of c.played) {
    const turn = gaia.turns[p.index];
    const answer = await judgeGaiaTurn(c.judge, {
      turn,
      earlier: block.turns.map((t) => ({ turn: t.turn, user_message: t.user_message, reply: t.reply })),
      userMessage: p.userMessage,
      reply: p.reply,
      calls: p.calls,
      callsVisible: c.callsVisible,
      modality: c.scenario.judge.modality,
    });
    if (isJudgeError(answer)) {
      return errorOut(
        { ...result, turns, failures, gaia: block },
        `judging GAIA turn ${turn.turn}: ${errorMessage(answer)}`,
        log,
      );
    }
    raws.push({ turn: turn.turn, raw: answer.raw });
    if (isNoVerdict(answer)) {
      const reason = `turn ${turn.turn}: ${answer.noVerdict}`;
      log(`judge: ${reason}`);
      const f = failure('judge_no_verdict', reason, { turn_index: p.index });
      turns[p.index] = { ...turns[p.index], status: 'failed' };
      return finish({ ...result, turns, failures: [...failures, f], gaia: block, error: reason }, 'error', log);
    }
    const score = scoreGaiaTurn(
      {
        turn,
        userMessage: p.userMessage,
        source: p.source,
        reply: p.reply,
        calls: p.calls,
        callsVisible: c.callsVisible,
      },
      answer,
      gaia.scoring,
    );
    block.turns.push(score);
    logTurn(score, log);
    const mine = gaiaTurnFailures(score, p.index, gaia.scoring.pass_threshold);
    failures.push(...mine);
    if (mine.length && turns[p.index]) turns[p.index] = { ...turns[p.index], status: 'failed' };
  }
  const totals = gaiaTotals(block.turns);
  block.total = totals.total;
  // Every turn played and passed: a scenario cut short has not passed.
  block.passed = totals.passed && block.turns.length === gaia.turns.length;
  log(`gaia: total ${block.total.toFixed(2)}/10 over ${block.turns.length} turn(s), pass at ${block.pass_threshold}`);
  return finish({ ...result, turns, failures, gaia: block }, failures.length ? 'failed' : 'passed', log);
}

function logTurn(score: GaiaTurnScore, log: (line: string) => void): void {
  for (const d of score.dimensions) {
    const value = d.applicable ? `${d.score ?? '-'}/10` : 'n/a';
    const capped = d.cap && d.judge_score !== d.score ? ` (judge ${d.judge_score}, capped: ${d.cap.reason})` : '';
    log(`judge: turn ${score.turn} ${d.dimension} ${value}${capped}: ${d.reason}`);
  }
  if (score.success) log(`judge: turn ${score.turn} success ${score.success.verdict}: ${score.success.reason}`);
  if (score.auto_zero)
    log(
      `judge: turn ${score.turn} automatic zero (${score.auto_zero.rule}, by ${score.auto_zero.by}): ` +
        score.auto_zero.reason,
    );
  log(`gaia: turn ${score.turn} total ${score.total.toFixed(2)}: ${score.passed ? 'PASSED' : 'FAILED'}`);
}

function errorOut(result: ScenarioResult, reason: string, log: (line: string) => void): ScenarioResult {
  log(`error: ${reason}`);
  return finish(
    { ...result, failures: [...result.failures, failure('harness_error', reason)], error: reason },
    'error',
    log,
  );
}

function finish(result: ScenarioResult, status: ScenarioResult['status'], log: (line: string) => void): ScenarioResult {
  log(`gaia: ${status.toUpperCase()} (${result.failures.length} failure(s))`);
  return withPipecatFields({ ...result, status });
}
