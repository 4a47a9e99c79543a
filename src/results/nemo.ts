import type { SuccessSignal } from '../scenario/nemo/types.js';

/**
 * What a NeMo scenario adds to its simulation result, under NeMo's own names (`metrics.json`): every signal earshot
 * could compute with its value and reason, the whitelist's breakdown, and the composite verdict.
 */

export interface NemoSignalValue {
  signal: SuccessSignal;
  /** null: not applicable (no data for it in this run, e.g. a judge with no usable answer). */
  value: boolean | null;
  reason: string;
  /** Pass-rate signals (`db_state_assertion`, `nl_assertion`): the rate before binarizing at 1.0. */
  pass_rate?: number;
}

export interface NemoAssertionVerdict {
  /** The DB assertion's `func_name` / `message`, or the NL claim. */
  what: string;
  passed: boolean;
  reason: string;
  /** NL claims: the judge's verdict. */
  verdict?: 'yes' | 'no' | 'none';
  /** DB assertions: what the predicate returned, and an error it raised. */
  actual?: unknown;
  error?: string;
}

export interface NemoOutcome {
  /** The composite verdict: strict AND over the whitelisted signals with a value (or the scenario's override). */
  is_successful: boolean | 'N/A';
  /** The same without `clean_exit`. */
  is_task_successful: boolean | 'N/A';
  success_breakdown: {
    passed: SuccessSignal[];
    failed: SuccessSignal[];
    not_applicable: SuccessSignal[];
    /** Computed, outside the whitelist: kept, never deciding. */
    excluded: SuccessSignal[];
  };
  /** Every signal computed, whitelisted or not. */
  signals: NemoSignalValue[];
  db_state_assertion_verdicts?: NemoAssertionVerdict[];
  nl_assertion_verdicts?: NemoAssertionVerdict[];
  /** JUDGE_PASSED's score (0..1) and the threshold it was held to. */
  judge_score?: number | null;
  judge_threshold?: number;
  /** `[EXIT]` when the bot called an exit tool, `[TIMEOUT]` at max_duration, else the simulation's `ended_by`. */
  stop_reason: string;
  /** The bot's replies in the transcript. */
  agent_turns: number;
  /** Below `--min-agent-turns`: a failure in the composite rate, left out of per-signal rates. */
  below_min_agent_turns: boolean;
  min_agent_turns: number;
  /** From `get_scenario_summary`; absent when the bot gave none (`summary_error` says why). */
  db_hash?: string | null;
  expected_db_hash?: string;
  actions?: Record<string, unknown>[];
  summary_error?: string;
  /** The personas' `behavior_config` / `voice_config`, for slicing. */
  labels?: Record<string, unknown>;
}
