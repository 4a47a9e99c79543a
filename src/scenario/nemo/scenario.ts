import type {
  Actions,
  DbStateAssertion,
  InitializationAction,
  NemoSide,
  NemoSpec,
  Persona,
  Resources,
  SuccessSignal,
  Task,
} from './types.js';

/**
 * NeMo's `Scenario` class in TypeScript (the anchor, "Authoring Scenarios"): subclass it, set `name` and
 * `successSignals`, override the per-side getters that differ, and register it with `registerEvalScenario`
 * (registry.ts). A domain base is an `abstract class XBase extends EvalScenario` without `name`; it is never
 * registered. Optional members are `declare`d (nothing is defined on the instance), so a subclass sets them as
 * fields; the per-side properties and `expectedScenarioDb` are getters, as in NeMo. Members are camelCase; data
 * records (personas, assertions) keep NeMo's snake_case keys so tau2-style data
 * pastes in. `compileNemo` (compile.ts) turns an instance into a `Simulation` with its `nemo` block.
 */

/** What `computeIsSuccessful` sees: each signal's metric key → its value (null: computed to nothing). */
export type SignalValues = Partial<Record<SuccessSignal, boolean | null>>;

/** NeMo's `NoiseConfig`: background noise on the caller's channel (audio runs only). */
export type NoiseConfig = NonNullable<NemoSpec['noise_config']>;

/**
 * Marks the classes and the base verdict, by `Symbol.for` rather than `instanceof`: a scenario module may import
 * earshot's `dist/` copy while the runner runs from `src/` (or tsx loads a second copy), and both must agree.
 */
const SCENARIO_BRAND = Symbol.for('earshot.nemo.EvalScenario');
const BASE_VERDICT = Symbol.for('earshot.nemo.baseVerdict');

export abstract class EvalScenario {
  /** The registry key, `<domain>__<id>` by convention (`--domain` filters on the text before `__`). */
  declare name?: string;
  /** Keys the bot's tool registry and fixtures (`tool_domain`); may differ from the name prefix. */
  domain = 'default';
  declare description?: string;
  /** Seconds; `--duration` caps it. */
  maxDuration = 300;
  /**
   * The whitelist gating the composite verdict: required on every concrete scenario (a field, or a getter when it
   * derives from the data, NeMo's `cached_property` pattern). Empty is a definition error.
   */
  abstract readonly successSignals: readonly SuccessSignal[];
  /** Drives ACTION_MATCH: the expected action (a dict) or action list. */
  declare referenceAnswer?: unknown;
  /** NeMo's user-side gold DB: earshot's caller is no bot, so setting it is a definition error. */
  declare expectedUserDb?: Record<string, unknown>;
  declare dbStateAssertions?: readonly DbStateAssertion[];
  declare nlAssertions?: readonly string[];
  declare initializationActions?: readonly InitializationAction[];
  ignoreCapitalization = false;
  ignorePunctuation = false;
  cleanText = false;
  /** The list-of-dicts comparator requires an exact bijection (`--strict-match` forces it). */
  disallowExtraItems = false;
  declare noiseConfig?: NoiseConfig;
  /** Where ACTION_MATCH's predicted actions come from: the bot's scenario summary (NeMo), or its reported calls. */
  actionSource: 'summary' | 'calls' = 'summary';

  /**
   * Drives DB_STATE_MATCH: the gold end-state DB, compared by canonical SHA-256. A getter, as NeMo's
   * `cached_property` (override it with `override get expectedScenarioDb()`).
   */
  get expectedScenarioDb(): Record<string, unknown> | undefined {
    return undefined;
  }
  get userPersona(): Persona | undefined {
    return undefined;
  }
  get userTask(): Task | undefined {
    return undefined;
  }
  get userActions(): Actions {
    return {};
  }
  get userResources(): Resources {
    return {};
  }
  get agentPersona(): Persona | undefined {
    return undefined;
  }
  get agentTask(): Task | undefined {
    return undefined;
  }
  get agentActions(): Actions {
    return {};
  }
  get agentResources(): Resources {
    return {};
  }

  /**
   * Seeds the side's `shared_state` (sent as `apply_initialization`'s `shared_state_init`); called once per side.
   * Typically `if (side === 'agent') state.db_path = `${this.domain}/db.json``.
   */
  setupSharedState(_state: Record<string, unknown>, _side: NemoSide): void {
    // Nothing to seed by default.
  }

  /** NeMo's default verdict: a strict AND over the whitelisted signals that produced a value; none → `'N/A'`. */
  computeIsSuccessful(signals: SignalValues): boolean | 'N/A' {
    return strictAnd(this.successSignals, signals);
  }
}

Object.defineProperty(EvalScenario.prototype, SCENARIO_BRAND, { value: true });
Object.defineProperty(EvalScenario.prototype.computeIsSuccessful, BASE_VERDICT, { value: true });

/** The default verdict, shared with the YAML form (which cannot override it). */
export function strictAnd(whitelist: readonly SuccessSignal[], signals: SignalValues): boolean | 'N/A' {
  const values = whitelist.map((s) => signals[s]).filter((v): v is boolean => v !== null && v !== undefined);
  return values.length === 0 ? 'N/A' : values.every(Boolean);
}

/** A class built on (any copy of) `EvalScenario`. */
export type EvalScenarioClass = abstract new () => EvalScenario;

export function isEvalScenarioClass(value: unknown): value is EvalScenarioClass {
  if (typeof value !== 'function') return false;
  const proto = (value as { prototype?: Record<symbol, unknown> }).prototype;
  return proto !== undefined && proto !== null && proto[SCENARIO_BRAND] === true;
}

/** Whether the scenario overrides `computeIsSuccessful` (the verdict then calls it). */
export function hasCustomVerdict(scenario: EvalScenario): boolean {
  const fn = scenario.computeIsSuccessful as unknown as Record<symbol, unknown>;
  return fn[BASE_VERDICT] !== true;
}
