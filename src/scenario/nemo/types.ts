/**
 * NVIDIA NeMo's voice-agent scenario model (`../shared/anchors/nemo-authoring-scenarios.md`), as earshot runs it.
 * A NeMo scenario (a TypeScript class registered with `registerEvalScenario`, or the YAML form) compiles into a
 * `Simulation` carrying this `nemo` block: the simulated caller plays the user side, the bot is the agent side, and the
 * six success signals decide the verdict. Data records keep NeMo's snake_case keys (so tau2-style data pastes in);
 * class members are camelCase.
 */

/** Who a side is. `behavior_config` / `voice_config` are labels only (NeMo renders neither). */
export interface Persona {
  role: string;
  name?: string;
  background?: string;
  personality?: string;
  language?: string;
  accent?: string;
  behavior_config?: Record<string, unknown>;
  voice_config?: Record<string, unknown>;
}

/** One objective per side. */
export interface Task {
  goal: string;
  background?: string;
}

/** A numbered, ordered script and always-apply rules. */
export interface Actions {
  instructions?: string[];
  guidelines?: string[];
}

export interface Resources {
  /** Tool class name → constructor arguments. */
  tools?: Record<string, Record<string, unknown>>;
  documents?: string[];
  information?: string[];
  /** Structured `### heading` blocks: heading → lines. */
  info_sections?: Record<string, string[]>;
}

/** The four properties of one side. */
export interface SideSpec {
  persona?: Persona;
  task?: Task;
  actions?: Actions;
  resources?: Resources;
}

/** NeMo's `SuccessSignal` members; each value is the signal's metric key. */
export const SuccessSignal = {
  ACTION_MATCH: 'is_action_match',
  DB_STATE_MATCH: 'db_state_match',
  DB_STATE_ASSERTION: 'db_state_assertion',
  NL_ASSERTION: 'nl_assertion',
  JUDGE_PASSED: 'judge_passed',
  CLEAN_EXIT: 'clean_exit',
} as const;
export type SuccessSignal = (typeof SuccessSignal)[keyof typeof SuccessSignal];
export const SUCCESS_SIGNALS: readonly SuccessSignal[] = Object.values(SuccessSignal);
/** The member names (`ACTION_MATCH`…), as the YAML form writes them. */
export type SuccessSignalName = keyof typeof SuccessSignal;

/** NeMo's `--min-agent-turns` default (its authoring guide and scoring page): a shorter run is a failed start. */
export const DEFAULT_MIN_AGENT_TURNS = 3;
/** NeMo's judge score a JUDGE_PASSED run needs (`--judge-threshold`). */
export const DEFAULT_JUDGE_THRESHOLD = 0.9;

/**
 * NeMo's exit tools: the bot calling one is NeMo's `<exit>` (CLEAN_EXIT, and the driver's `bot_exit`). The legacy
 * map form's `clean_exit` keeps its own defaults (file-fields.ts `DEFAULT_EXIT_FUNCTIONS`).
 */
export const NEMO_EXIT_FUNCTIONS: readonly string[] = [
  'EndConversationTool',
  'TransferToAgentTool',
  'TransferToHumanAgentsTool',
  'transfer_to_human_agents',
];

export type NemoSide = 'user' | 'agent';

/** A predicate over the bot's end-state DB (`DB_STATE_ASSERTION`). */
export interface DbStateAssertion {
  side: NemoSide;
  /** A predicate registered for the scenario's domain (or `default`). */
  func_name: string;
  arguments: Record<string, unknown>;
  /** What the predicate must return (deep equality). */
  assert_value: unknown;
  message?: string;
}

/** A bot-side function replayed to seed fixture state before the conversation. */
export interface InitializationAction {
  side: NemoSide;
  func_name: string;
  arguments: Record<string, unknown>;
}

export interface NemoNormalization {
  ignore_capitalization: boolean;
  ignore_punctuation: boolean;
  clean_text: boolean;
  /** The list-of-dicts comparator requires an exact bijection. */
  disallow_extra_items: boolean;
}

/** The `nemo` block of a simulation compiled from a NeMo scenario. */
export interface NemoSpec {
  /** The registry key, `<domain>__<id>` by convention (also the simulation's `name`). */
  name: string;
  /** Keys the bot's tool registry and fixtures (`tool_domain`); default `default`. */
  domain: string;
  description?: string;
  user: SideSpec;
  agent: SideSpec;
  /** The whitelist gating the composite verdict; non-empty. */
  success_signals: SuccessSignal[];
  reference_answer?: unknown;
  expected_scenario_db?: Record<string, unknown>;
  db_state_assertions?: DbStateAssertion[];
  nl_assertions?: string[];
  initialization_actions?: InitializationAction[];
  /** `setup_shared_state(state, side)`'s result per side, JSON-serializable (sent as `shared_state_init`). */
  shared_state_init: { user: Record<string, unknown>; agent: Record<string, unknown> };
  normalization: NemoNormalization;
  /** Where ACTION_MATCH's predicted actions come from: the bot's `get_scenario_summary` (NeMo), or its calls. */
  action_source: 'summary' | 'calls';
  /** Seconds; the simulation's `max_duration_s` (`--duration` caps it). */
  max_duration_s: number;
  /** `noise_config` as written (earshot maps it onto `conditions.noise` in audio runs). */
  noise_config?: { snr_db: number; type?: string; path?: string };
  /** True when the scenario overrides `computeIsSuccessful` (the verdict then calls `compute`). */
  custom_verdict: boolean;
  /** The override itself (class form only; absent in results and `validate --json`). */
  compute?: (signals: Partial<Record<SuccessSignal, boolean | null>>) => boolean | 'N/A';
}
