import type { EarshotEvent } from './events.js';
import type { EventName } from '../scenario/events.js';

/**
 * Results are values, serialized as they are into results.jsonl, so field
 * names are snake_case like the scenario files and carry their units.
 */

/** Stable machine keys: a CI dashboard may group by them. Add, never rename. */
export const FAILURE_KINDS = [
  'timeout',
  'judge_no',
  'judge_continue',
  'no_judge',
  'no_content',
  'text_mismatch',
  'missing_function_call',
  'function_args_mismatch',
  'unexpected_event',
  'send_after_timeout',
  'connect_failed',
  'handshake_timeout',
  'bot_disconnected',
  'protocol_error',
  'latency_exceeded',
  'harness_error',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface Failure {
  kind: FailureKind;
  /** Index into the scenario's turns; null for scenario-level failures (connect, handshake). */
  turn_index: number | null;
  /** Index into the turn's expect list; null when the failure is not about one expectation. */
  expectation_index: number | null;
  /** The expected event name, when the failure is about an expectation. */
  event: EventName | null;
  reason: string;
}

export type ScenarioStatus = 'passed' | 'failed' | 'skipped' | 'error';
export type TurnStatus = 'passed' | 'failed' | 'not_run';
export type ExpectationStatus = 'passed' | 'failed' | 'not_run';

export interface ExpectationResult {
  index: number;
  event: EventName;
  status: ExpectationStatus;
  /** ms from the turn's send to the event that satisfied it. */
  matched_after_ms?: number;
  /** Text the check ran on (aggregated segments for text events). */
  text?: string;
  /** Judge's stated reason, when `eval:` decided it. */
  judge_reason?: string;
}

export interface TurnResult {
  index: number;
  status: TurnStatus;
  duration_ms: number;
  /** What the harness sent: the user text, the DTMF keys, or neither (observation-only). */
  input: { user?: string; dtmf?: string; audio?: string };
  expectations: ExpectationResult[];
  /** Per-turn latency metrics; filled by the metrics module when audio timing exists. */
  metrics?: Record<string, number | boolean | null | Record<string, unknown>>;
  /** Notes a reader should see (e.g. "bot audio capture capped at 300 s"). */
  notes?: string[];
}

export interface ScenarioResult {
  /** Scenario `name:` */
  name: string;
  /** Path of the scenario file as given. */
  file: string;
  status: ScenarioStatus;
  /** Wall-clock start, ISO 8601 (for humans); all durations come from the monotonic clock. */
  started_at: string;
  duration_ms: number;
  turns: TurnResult[];
  failures: Failure[];
  /** Set on `error`: what stopped the harness itself. */
  error?: string;
  /** Files written beside results.jsonl for this run, relative to the output dir. */
  artifacts?: { trace?: string; recording?: string; bot_log?: string };
  /** Every event the session observed, in arrival order (for timelines). */
  events?: EarshotEvent[];
  /** Suite bookkeeping: which bot, which repeat. */
  run?: { bot?: string; repeat_index?: number; attempt?: number; shard?: string; url?: string };
}
