/**
 * NeMo's RTVI control plane (its "RTVI Message Reference"): the harness seeds a bot's scenario state before the
 * conversation and reads it back after. Each request is a `client-message` `{t, d}` with an `id`; the bot answers a
 * `server-response` `{t, d}` with the same `id`, or an `error-response`. NeMo's bots take them on the protobuf wire;
 * earshot sends them on either.
 */

export const NEMO_CONTROL_TYPES = [
  'update_system_prompt',
  'apply_initialization',
  'get_scenario_summary',
  'reset',
] as const;
export type NemoControlType = (typeof NEMO_CONTROL_TYPES)[number];

export type NemoControlData =
  /** The scenario-start gate: the agent side's prompt and tools; clears the bot's `shared_state`. */
  | {
      t: 'update_system_prompt';
      d: { prompt: string; tools: string /* JSON */; add_suffix: boolean; tool_domain: string };
    }
  /**
   * Seeds `shared_state` (`shared_state_init`: a JSON object as text; a `db_path` in it is resolved bot-side against
   * its eval data root and replaced by the loaded `db`), then replays the side's `initialization_actions`.
   */
  | {
      t: 'apply_initialization';
      d: { domain: string; shared_state_init: string; actions: NemoInitAction[] };
    }
  /** The recorded actions and the DB's hash (and the DB itself with `include_db`). */
  | { t: 'get_scenario_summary'; d: { include_db: boolean } }
  | { t: 'reset'; d?: Record<string, unknown> };

export interface NemoInitAction {
  func_name: string;
  arguments: Record<string, unknown>;
}

/** `apply_initialization`'s answer. */
export interface InitializationResult {
  success: boolean;
  errors: string[];
}

/** `get_scenario_summary`'s answer; an uninitialized bot answers `{actions: [], db_hash: null}`. */
export interface ScenarioSummary {
  actions: Record<string, unknown>[];
  db_hash: string | null;
  db?: Record<string, unknown>;
}

export function isNemoControlType(t: string): t is NemoControlType {
  return (NEMO_CONTROL_TYPES as readonly string[]).includes(t);
}
