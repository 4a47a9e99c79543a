import { SuccessSignal } from '../scenario/nemo/types.js';
import type { ScenarioResult } from './types.js';

/**
 * A NeMo scenario's `metrics.json` as NeMo names its fields, for tooling written against NeMo's output: the verdicts,
 * each signal under its metric key (`is_action_match`, `db_state_match`, ...), the pass rates, `stop_reason`,
 * `agent_turns`, and the bot's summary (`actions`, `db_hash`). earshot's own additions (`reasons`, `status`) ride
 * along under their own names.
 */
export function nemoMetrics(result: ScenarioResult): Record<string, unknown> | null {
  const nemo = result.simulation?.nemo;
  if (!nemo) return null;
  const out: Record<string, unknown> = {
    scenario_name: result.name,
    is_successful: nemo.is_successful,
    is_task_successful: nemo.is_task_successful,
    success_breakdown: nemo.success_breakdown,
  };
  const reasons: Record<string, string> = {};
  for (const s of nemo.signals) {
    out[s.signal] = s.value;
    reasons[s.signal] = s.reason;
    if (s.signal === SuccessSignal.DB_STATE_ASSERTION) out.db_state_assertion_pass_rate = s.pass_rate ?? null;
    if (s.signal === SuccessSignal.NL_ASSERTION) out.nl_assertion_pass_rate = s.pass_rate ?? null;
  }
  if (nemo.judge_score !== undefined) out.judge_score = nemo.judge_score;
  if (nemo.judge_threshold !== undefined) out.judge_threshold = nemo.judge_threshold;
  Object.assign(out, {
    stop_reason: nemo.stop_reason,
    agent_turns: nemo.agent_turns,
    below_min_agent_turns: nemo.below_min_agent_turns,
    min_agent_turns: nemo.min_agent_turns,
  });
  if (nemo.db_hash !== undefined) out.db_hash = nemo.db_hash;
  if (nemo.expected_db_hash !== undefined) out.expected_db_hash = nemo.expected_db_hash;
  if (nemo.actions !== undefined) out.actions = nemo.actions;
  if (nemo.summary_error !== undefined) out.summary_error = nemo.summary_error;
  if (nemo.db_state_assertion_verdicts) out.db_state_assertion_verdicts = nemo.db_state_assertion_verdicts;
  if (nemo.nl_assertion_verdicts) out.nl_assertion_verdicts = nemo.nl_assertion_verdicts;
  if (nemo.labels) out.labels = nemo.labels;
  out.reasons = reasons;
  out.status = result.status;
  return out;
}
