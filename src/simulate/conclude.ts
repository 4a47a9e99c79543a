import { isJudgeError } from '../judge/index.js';
import type { FailureKind, ScenarioResult, SimulationEndReason, SimulationMetricScore } from '../results/index.js';
import { judgeRun } from './judge-run.js';
import { measureMetric, replyLatencies, scoreJudgedMetric, type RunFacts } from './score.js';
import { judgeScorecard, scoreCard } from './scorecard.js';
import { concludeNemo } from './nemo/conclude.js';
import type { ConcludeInput } from './conclude-types.js';
import { startConclusion } from './conclusion.js';
import { actionMatch, cleanExit, nlAssertions } from './signals.js';

/**
 * A simulation run's verdict, once the call is over: measured metrics from the
 * run, then the judge over the whole transcript (the goal and every judged
 * metric in one call, then earshot's scorecard and claims), then the signals.
 * A run passes when it completed, the goal was met, no gated metric fell
 * short, and the scorecard and every listed signal held. A run a backstop cut
 * short (`max_turns`, `max_duration`, `silence`) has not succeeded, whatever
 * the transcript says; one that ended in `error` is neither a success nor a
 * failure, and is judged not at all.
 */

export type { ConcludeInput, PlayedCall } from './conclude-types.js';

const CUT_SHORT: ReadonlySet<SimulationEndReason> = new Set(['max_turns', 'max_duration', 'silence']);
const METRIC_FAILURE: Record<NonNullable<SimulationMetricScore['failure_kind']>, FailureKind> = {
  judge_no: 'judge_no',
  judge_no_verdict: 'judge_no_verdict',
  out_of_range: 'out_of_range',
  function_calls: 'function_calls_mismatch',
};

export async function concludeSimulation(input: ConcludeInput): Promise<ScenarioResult> {
  const { simulation: sim, played, result, log } = input;
  // NeMo's six signals and whitelist decide, not the goal gate (nemo/conclude.ts).
  if (sim.nemo) return concludeNemo({ ...input, nemo: sim.nemo });
  const modality = sim.judge.modality;
  const { block, failures, fail, finish, erroredEarly } = startConclusion(input);
  // A run that never completed says nothing about the bot: no judge is asked.
  const errored = erroredEarly();
  if (errored) return errored;

  const facts: RunFacts = {
    transcript: played.transcript,
    personaTurns: played.personaTurns,
    durationS: played.durationS,
    latency: replyLatencies(result, played.transcript, modality === 'audio'),
  };
  const measured = new Map(
    sim.metrics.filter((m) => m.measure !== undefined).map((m) => [m.name, measureMetric(m, facts)]),
  );
  for (const [name, m] of measured)
    log(
      `measure: ${name} = ${m.score === null ? 'unscored' : m.score.toFixed(2)}` +
        `${m.passed ? '' : ' (failed)'}: ${m.reason}`,
    );

  if (!input.judge) {
    block.metrics = [...measured.values()];
    block.success.reason = `no judge: ${input.noJudgeReason ?? 'none configured'}`;
    return finish('error', block.success.reason);
  }
  const criteria = sim.metrics.flatMap((m) =>
    m.criterion !== undefined ? [{ name: m.name, criterion: m.criterion }] : [],
  );
  const verdicts = await judgeRun(input.judge, {
    transcript: played.transcript,
    modality,
    success: sim.success,
    criteria,
  });
  if (isJudgeError(verdicts)) {
    fail('harness_error', verdicts.message);
    block.metrics = [...measured.values()];
    block.success.reason = verdicts.message;
    return finish('error', verdicts.message);
  }
  block.success = { criterion: sim.success, ...verdicts.goal };
  block.metrics = sim.metrics.map((m) => measured.get(m.name) ?? scoreJudgedMetric(m, verdicts.turns[m.name] ?? []));
  for (const m of block.metrics) {
    if (m.kind !== 'judged') continue;
    for (const v of m.verdicts ?? []) log(`judge: reply ${v.turn} ${m.name} ${v.verdict}: ${v.reason}`);
    log(
      `judge: ${m.name} = ${m.score === null ? 'unscored' : m.score.toFixed(2)}` +
        `${m.passed ? '' : ` (below ${m.min_score})`}: ${m.reason}`,
    );
  }
  if (verdicts.goal.verdict === 'none') {
    log(`judge: no verdict on the goal: ${verdicts.goal.reason}`);
    fail('judge_no_verdict', `the judge gave no verdict on the goal: ${verdicts.goal.reason}`);
    return finish('error', `the judge gave no verdict on the goal: ${verdicts.goal.reason}`);
  }
  log(`judge: goal ${verdicts.goal.verdict === 'yes' ? 'achieved' : 'not achieved'}: ${verdicts.goal.reason}`);

  if (sim.scorecard) {
    const judged = await judgeScorecard(input.judge, played.transcript, modality, sim.goal, sim.scorecard);
    if (isJudgeError(judged)) {
      fail('harness_error', judged.message);
      return finish('error', judged.message);
    }
    block.scorecard = scoreCard(sim.scorecard, judged.scores, played.transcript);
    for (const d of block.scorecard.dimensions)
      log(
        `scorecard: ${d.dimension} ${d.score ?? '-'}/10` +
          `${d.cap && d.judge_score !== d.score ? ` (judge ${d.judge_score}, capped: ${d.cap.reason})` : ''}` +
          `: ${d.reason}`,
      );
    log(`scorecard: total ${block.scorecard.total.toFixed(2)}/10, pass at ${block.scorecard.pass_threshold}`);
  }

  const signals = sim.success_signals;
  if (signals) {
    block.signals = [];
    if (signals.clean_exit)
      block.signals.push(
        cleanExit(signals.clean_exit.functions, played.transcript, {
          endedBy: played.endedBy,
          ...(played.closeCode !== undefined ? { closeCode: played.closeCode } : {}),
        }),
      );
    if (signals.action_match) block.signals.push(actionMatch(signals.action_match, played.transcript));
    if (signals.nl_assertions) {
      const claims = await nlAssertions(input.judge, signals.nl_assertions, played.transcript, modality);
      if (isJudgeError(claims)) {
        fail('harness_error', claims.message);
        return finish('error', claims.message);
      }
      block.signals.push(claims);
    }
    for (const s of block.signals) log(`signal: ${s.signal} ${s.passed ? 'holds' : 'fails'}: ${s.reason}`);
  }

  // The first failure is the one a report shows: the cut, the goal, then metrics, scorecard, signals.
  if (CUT_SHORT.has(played.endedBy))
    fail(
      'cut_short',
      `the call was cut short (${played.endedBy}: ${played.endDetail}); a run a backstop ends has not succeeded`,
    );
  if (block.success.verdict !== 'yes') fail('goal_not_met', `goal not met: ${block.success.reason}`);
  for (const m of block.metrics) {
    if (!m.passed && m.failure_kind)
      fail(
        METRIC_FAILURE[m.failure_kind],
        `${m.name}${m.score === null ? '' : ` ${m.score.toFixed(2)}`}` +
          `${m.min_score !== undefined ? ` below ${m.min_score.toFixed(2)}` : ''}: ${m.reason}`,
      );
  }
  if (block.scorecard && !block.scorecard.passed)
    fail(
      'scorecard_below_threshold',
      `scorecard ${block.scorecard.total.toFixed(2)} below ${block.scorecard.pass_threshold}`,
    );
  for (const s of block.signals ?? []) if (!s.passed) fail('signal_failed', `${s.signal}: ${s.reason}`);
  block.passed = failures.length === 0;
  return finish(block.passed ? 'passed' : 'failed');
}
