import { DEFAULT_JUDGE_THRESHOLD, DEFAULT_MIN_AGENT_TURNS } from '../../scenario/nemo/types.js';

/**
 * What the NeMo verdict needs from the bot's side, typed here (simulate/ does not import protocol/): the bot's
 * `get_scenario_summary` answer as the driver pulled it, and the run's NeMo settings from the command line.
 */

/** The bot's recorded actions and its DB's hash (and the DB itself when `include_db` was asked). */
export interface BotSummary {
  actions: Record<string, unknown>[];
  db_hash: string | null;
  db?: Record<string, unknown>;
}

/** The driver's pull at the end of the call: the summary, or why there is none. */
export interface SummaryPull {
  summary?: BotSummary;
  /** Why no summary came (the bot refused, never answered, had already hung up). */
  error?: string;
  /** The DB from a second `include_db` pull after a hash mismatch (diagnostic only: the diff in the reason). */
  diffDb?: Record<string, unknown>;
}

/** `--min-agent-turns`, `--strict-match`, `--judge-threshold` as the verdict applies them. */
export interface NemoVerdictSettings {
  /** Default 3; 0 turns the filter off. */
  minAgentTurns: number;
  /** Forces `disallow_extra_items` on every scenario. */
  strictMatch: boolean;
  /** JUDGE_PASSED holds at a score at or above this (default 0.9). */
  judgeThreshold: number;
}

export const DEFAULT_NEMO_SETTINGS: NemoVerdictSettings = {
  minAgentTurns: DEFAULT_MIN_AGENT_TURNS,
  strictMatch: false,
  judgeThreshold: DEFAULT_JUDGE_THRESHOLD,
};

/** Reads a summary answer's `d`; a malformed one is an error text, never a crash. */
export function readBotSummary(d: unknown): BotSummary | string {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return 'the summary is not a JSON object';
  const o = d as Record<string, unknown>;
  if (!Array.isArray(o.actions)) return 'the summary has no `actions` list';
  const actions = o.actions.filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null);
  if (actions.length !== o.actions.length) return 'the summary has an action that is not a JSON object';
  if (o.db_hash !== null && o.db_hash !== undefined && typeof o.db_hash !== 'string')
    return 'the summary `db_hash` is neither text nor null';
  const summary: BotSummary = { actions, db_hash: typeof o.db_hash === 'string' ? o.db_hash : null };
  if (typeof o.db === 'object' && o.db !== null && !Array.isArray(o.db)) summary.db = o.db as Record<string, unknown>;
  return summary;
}
