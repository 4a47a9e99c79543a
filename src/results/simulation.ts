import type { ScorecardDimension } from '../scenario/types.js';
import type { NemoOutcome } from './nemo.js';

/**
 * What a simulation run adds to its `ScenarioResult`: the conversation as it
 * happened, how it ended, and every score with its evidence. Serialized as it
 * is into results.jsonl, so snake_case with units in the names.
 */

/** How a simulated call ended (Pipecat's names). */
export const SIMULATION_END_REASONS = [
  'end_call',
  'bot',
  'max_turns',
  'max_duration',
  'silence',
  'error',
  /** The bot called an exit tool (NeMo's `<exit>`: `EndConversationTool`, a transfer tool) and finished its reply. */
  'bot_exit',
] as const;
export type SimulationEndReason = (typeof SIMULATION_END_REASONS)[number];

/** One line of the conversation, in order, each stamped with its time on the session clock (ms since session start). */
export type SimulationEntry =
  | {
      kind: 'caller';
      at_ms: number;
      text: string;
      /** The session turn that carried it (its timing and latency metrics). */
      turn_index: number;
    }
  | { kind: 'bot'; at_ms: number; text: string }
  | {
      kind: 'call';
      at_ms: number;
      name?: string;
      tool_call_id?: string;
      args?: Record<string, unknown>;
      cancelled?: boolean;
    }
  | { kind: 'end_call'; at_ms: number; success: boolean; reason: string };

/** A judge's answer on one question; `none` when it gave no usable answer (judge trouble, not bot trouble). */
export type SimulationVerdict = 'yes' | 'no' | 'none';

export interface SimulationTurnVerdict {
  /** 1-based index of the bot's reply in the conversation. */
  turn: number;
  verdict: SimulationVerdict;
  reason: string;
}

export interface SimulationMetricScore {
  name: string;
  kind: 'judged' | 'measured';
  /**
   * Judged: share of replies the judge said yes to; measured: 1 inside the range, 0 outside. Null: nothing to score.
   */
  score: number | null;
  passed: boolean;
  reason: string;
  min_score?: number;
  /** Measured: the value (turns, seconds, words, calls). */
  value?: number | null;
  min_value?: number;
  max_value?: number;
  verdicts?: SimulationTurnVerdict[];
  /** Why it failed, Pipecat's keys: judge_no, judge_no_verdict, out_of_range, function_calls. */
  failure_kind?: 'judge_no' | 'judge_no_verdict' | 'out_of_range' | 'function_calls';
}

export interface ScorecardDimensionScore {
  dimension: ScorecardDimension;
  /** Normalized weight (the weights sum to 1). */
  weight: number;
  /** 0..10 after earshot's caps; null when the judge gave none (counts as 0 in the total). */
  score: number | null;
  /** What the judge said, before a cap. */
  judge_score: number | null;
  reason: string;
  /** A deterministic cap that lowered the judge's score (numeric tolerance), with why. */
  cap?: { max: number; reason: string };
}

export interface ScorecardResult {
  dimensions: ScorecardDimensionScore[];
  /** Weighted total, 0..10. */
  total: number;
  pass_threshold: number;
  passed: boolean;
  expected_answer?: string | null;
}

export interface SignalResult {
  signal: 'clean_exit' | 'action_match' | 'nl_assertions';
  passed: boolean;
  reason: string;
  /** nl_assertions: each claim's verdict. */
  assertions?: Array<{ claim: string; verdict: SimulationVerdict; reason: string }>;
}

export interface SimulationResult {
  ended_by: SimulationEndReason;
  /** In words: what ended the call (the persona's reason, the cap reached, the error). */
  end_detail: string;
  /** The caller's turns (a reply that only hung up is not one). */
  persona_turns: number;
  /** From the first line to the hang-up, seconds. */
  duration_s: number;
  transcript: SimulationEntry[];
  /** The persona's own view when it hung up; advisory, the judge decides. */
  end_call?: { success: boolean; reason: string };
  /** The `success:` criterion's verdict over the whole conversation. */
  success: { criterion: string; verdict: SimulationVerdict; reason: string };
  metrics: SimulationMetricScore[];
  scorecard?: ScorecardResult;
  signals?: SignalResult[];
  /** A NeMo scenario's six signals and composite verdict (nemo.ts); the goal gate does not apply to it. */
  nemo?: NemoOutcome;
  /** The run's verdict: completed, goal met, every gated metric, the scorecard and every signal held. */
  passed: boolean;
  /** The LLM that played the caller, safe to log. */
  simulator: string;
}
