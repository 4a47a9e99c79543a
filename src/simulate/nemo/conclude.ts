import { isJudgeError, type JudgeError } from '../../judge/index.js';
import type { ScenarioResult } from '../../results/index.js';
import type { NemoOutcome, NemoSignalValue } from '../../results/nemo.js';
import { NEMO_EXIT_FUNCTIONS, SuccessSignal, type NemoSpec } from '../../scenario/nemo/types.js';
import type { ConcludeInput } from '../conclude-types.js';
import { startConclusion } from '../conclusion.js';
import { actionMatch, predictedActions } from './action-match.js';
import { cleanExit, stopReason } from './clean-exit.js';
import { dbStateAssertion, dbStateMatch } from './db-state.js';
import { judgePassed } from './judge-passed.js';
import { nlAssertion } from './nl.js';
import { DEFAULT_NEMO_SETTINGS, type SummaryPull } from './types.js';
import { nemoVerdict } from './verdict.js';

/**
 * A NeMo scenario's verdict, in place of the goal gate: the six signals computed where their data exist (the judge
 * ones only with a judge), the whitelist's strict AND (nemo/verdict.ts), NeMo's outcome block (`metrics.json`). The
 * result passes on `is_successful: true`, fails on false with one `signal_failed` per failed whitelisted signal, and
 * is `inconclusive` on `'N/A'` (no whitelisted signal produced a value): left out of pass rates. A run that never
 * completed (a failed seeding, a harness error) is an error and is scored not at all.
 */

const JUDGED: ReadonlySet<SuccessSignal> = new Set([SuccessSignal.NL_ASSERTION, SuccessSignal.JUDGE_PASSED]);

export async function concludeNemo(input: ConcludeInput & { nemo: NemoSpec }): Promise<ScenarioResult> {
  const { simulation: sim, played, log, nemo } = input;
  const settings = input.nemoSettings ?? DEFAULT_NEMO_SETTINGS;
  const pull: SummaryPull = played.summary ?? { error: 'the driver pulled no summary' };
  const { block, failures, fail, finish, erroredEarly } = startConclusion(input);
  const errored = erroredEarly();
  if (errored) return errored;

  const whitelisted = (s: SuccessSignal): boolean => nemo.success_signals.includes(s);
  const missingJudge = nemo.success_signals.filter((s) => JUDGED.has(s));
  if (!input.judge && missingJudge.length) {
    block.success.reason = `no judge for ${missingJudge.join(', ')}: ${input.noJudgeReason ?? 'none configured'}`;
    return finish('error', block.success.reason);
  }
  const signals: NemoSignalValue[] = [];
  const outcome: Partial<NemoOutcome> = {};
  const flags = { ...nemo.normalization };
  if (settings.strictMatch) flags.disallow_extra_items = true;
  if (nemo.reference_answer !== undefined) {
    const predicted = predictedActions(nemo.action_source, pull.summary?.actions, played.transcript);
    signals.push(actionMatch(nemo.reference_answer, predicted, flags, pull.error));
  }
  if (nemo.expected_scenario_db) {
    const m = dbStateMatch(nemo.expected_scenario_db, pull);
    outcome.expected_db_hash = m.expectedHash;
    signals.push(m.value);
  }
  if (nemo.db_state_assertions?.length) {
    const a = dbStateAssertion(nemo.domain, nemo.db_state_assertions, pull);
    outcome.db_state_assertion_verdicts = a.verdicts;
    signals.push(a.value);
  }
  // A judge that cannot answer fails the run when its signal decides, and is a trace note otherwise.
  const judgeTrouble = (signal: SuccessSignal, err: JudgeError): boolean => {
    if (whitelisted(signal)) {
      fail('harness_error', `${signal}: ${err.message}`);
      return true;
    }
    log(`signal: ${signal} not computed: ${err.message}`);
    return false;
  };
  const modality = sim.judge.modality;
  // Without a judge only excluded judge signals get here (a whitelisted one made the run an error above).
  if (!input.judge && nemo.nl_assertions?.length)
    log(`signal: nl_assertion not computed: no judge (${input.noJudgeReason ?? 'none configured'})`);
  if (input.judge && nemo.nl_assertions?.length) {
    const nl = await nlAssertion(input.judge, nemo.nl_assertions, played.transcript, modality);
    if (isJudgeError(nl)) {
      if (judgeTrouble(SuccessSignal.NL_ASSERTION, nl)) return finish('error', nl.message);
    } else {
      outcome.nl_assertion_verdicts = nl.verdicts;
      signals.push(nl.value);
    }
  }
  // Unlike the other signals, JUDGE_PASSED is computed only when whitelisted: one judge call saved per scenario.
  if (input.judge && whitelisted(SuccessSignal.JUDGE_PASSED)) {
    const task = nemo.agent.task?.goal ?? sim.success;
    const j = await judgePassed(
      input.judge,
      { transcript: played.transcript, modality, task, reference: nemo.reference_answer },
      settings.judgeThreshold,
    );
    if (isJudgeError(j)) {
      if (judgeTrouble(SuccessSignal.JUDGE_PASSED, j)) return finish('error', j.message);
    } else {
      outcome.judge_score = j.score;
      outcome.judge_threshold = settings.judgeThreshold;
      signals.push(j.value);
    }
  }
  signals.push(cleanExit(NEMO_EXIT_FUNCTIONS, played.transcript, played.endedBy, played.endDetail));

  const agentTurns = played.transcript.filter((e) => e.kind === 'bot').length;
  let verdict: ReturnType<typeof nemoVerdict>;
  try {
    verdict = nemoVerdict({ nemo, signals, agentTurns, minAgentTurns: settings.minAgentTurns });
  } catch (err) {
    const why = `computeIsSuccessful raised: ${err instanceof Error ? err.message : String(err)}`;
    fail('harness_error', why);
    return finish('error', why);
  }
  block.nemo = {
    ...outcome,
    ...verdict,
    signals,
    stop_reason: stopReason(played.endedBy),
    agent_turns: agentTurns,
    min_agent_turns: settings.minAgentTurns,
    ...(pull.summary ? { db_hash: pull.summary.db_hash, actions: pull.summary.actions } : {}),
    ...(pull.error !== undefined ? { summary_error: pull.error } : {}),
    ...labels(nemo),
  };
  for (const s of signals)
    log(
      `signal: ${s.signal} = ${s.value === null ? 'N/A' : s.value}${whitelisted(s.signal) ? '' : ' (excluded)'}: ` +
        s.reason,
    );
  log(`nemo: is_successful ${verdict.is_successful}, is_task_successful ${verdict.is_task_successful}`);

  for (const s of signals)
    if (whitelisted(s.signal) && s.value === false) fail('signal_failed', `${s.signal}: ${s.reason}`);
  if (verdict.below_min_agent_turns)
    fail(
      'too_few_agent_turns',
      `${agentTurns} agent turn(s), below --min-agent-turns ${settings.minAgentTurns}: the scenario never got going`,
    );
  if (verdict.is_successful === false && failures.length === 0)
    fail('signal_failed', `computeIsSuccessful returned false (${describe(verdict.success_breakdown)})`);
  const summary = describe(verdict.success_breakdown);
  block.success = {
    criterion: sim.success,
    verdict: verdict.is_successful === 'N/A' ? 'none' : verdict.is_successful ? 'yes' : 'no',
    reason: verdict.is_successful === 'N/A' ? `no whitelisted signal produced a value (${summary})` : summary,
  };
  block.passed = verdict.is_successful === true && failures.length === 0;
  if (block.passed) return finish('passed');
  return finish(verdict.is_successful === 'N/A' && failures.length === 0 ? 'inconclusive' : 'failed');
}

function describe(b: NemoOutcome['success_breakdown']): string {
  const part = (label: string, list: readonly string[]): string[] =>
    list.length ? [`${label} ${list.join(', ')}`] : [];
  return (
    [...part('passed', b.passed), ...part('failed', b.failed), ...part('N/A', b.not_applicable)].join('; ') ||
    'no signals'
  );
}

function labels(nemo: NemoSpec): Pick<NemoOutcome, 'labels'> {
  const out: Record<string, unknown> = {};
  for (const side of ['user', 'agent'] as const) {
    const p = nemo[side].persona;
    if (p?.behavior_config) out[`${side}_behavior_config`] = p.behavior_config;
    if (p?.voice_config) out[`${side}_voice_config`] = p.voice_config;
  }
  return Object.keys(out).length ? { labels: out } : {};
}
