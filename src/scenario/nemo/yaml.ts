import { asRecord, type Normalizer } from '../normalize.js';
import { normalizeSimulation, type SimulationBody } from '../simulation.js';
import { compileNemo } from './compile.js';
import { definitionProblems } from './definition.js';
import { ScenarioDefinitionError } from './errors.js';
import { EvalScenario } from './scenario.js';
import {
  SuccessSignal,
  type Actions,
  type DbStateAssertion,
  type InitializationAction,
  type NemoSide,
  type Persona,
  type Resources,
  type SuccessSignalName,
  type Task,
} from './types.js';

/**
 * NeMo's scenario form in YAML: a simulation entry with `user_persona:` / `user_task:` and `success_signals:` as a
 * list of member names. It is read into the same `EvalScenario` model the TypeScript form uses and compiled by the
 * same code, so the same content gives the same `nemo` block, and the same definition errors (located at the keys).
 * The Pipecat keys it shares (`user:`, `judge:`, `simulator:`, `conditions:`...) keep their meaning.
 */
export function normalizeNemoSimulation(raw: Record<string, unknown>, n: Normalizer, fileName: string): SimulationBody {
  const { success_signals: signals, ...rest } = raw;
  const body = normalizeSimulation({ ...rest, persona: '', goal: '', success: '' }, n);
  const id = typeof raw.name === 'string' ? raw.name : '';
  const name = id.startsWith(`${fileName}/`) ? id.slice(fileName.length + 1) : id;
  const scenario = new YamlScenario(raw, name, whitelist(signals, n));
  for (const problem of definitionProblems(scenario)) n.error(pathOf(problem), inYamlWords(problem));
  if (n.check.diagnostics.some((d) => d.severity === 'error')) return body;
  let compiled: ReturnType<typeof compileNemo>;
  try {
    compiled = compileNemo(scenario, { file: n.file, line: 1, col: 1 });
  } catch (err) {
    n.error('', inYamlWords(err instanceof ScenarioDefinitionError ? err.reason : String(err)));
    return body;
  }
  const nemo = compiled.nemo as NonNullable<SimulationBody['nemo']>;
  return {
    ...body,
    persona: compiled.persona,
    goal: compiled.goal,
    success: compiled.success,
    max_duration_s: nemo.max_duration_s,
    nemo,
  };
}

function whitelist(value: unknown, n: Normalizer): SuccessSignal[] {
  if (Array.isArray(value))
    return value
      .filter((v): v is SuccessSignalName => typeof v === 'string' && Object.hasOwn(SuccessSignal, v))
      .map((v) => SuccessSignal[v]);
  if (asRecord(value))
    n.error(
      'success_signals',
      "NeMo's form takes success_signals as a list of SuccessSignal members ([DB_STATE_MATCH, CLEAN_EXIT]), " +
        "not earshot's map form",
    );
  return [];
}

/** The YAML's fields behind the class model (getters return the data as written). */
class YamlScenario extends EvalScenario {
  readonly successSignals: readonly SuccessSignal[];
  readonly #raw: Record<string, unknown>;
  constructor(raw: Record<string, unknown>, name: string, signals: SuccessSignal[]) {
    super();
    this.#raw = raw;
    this.name = name;
    this.successSignals = signals;
    if (typeof raw.domain === 'string') this.domain = raw.domain;
    if (typeof raw.description === 'string') this.description = raw.description;
    if (typeof raw.max_duration === 'number') this.maxDuration = raw.max_duration;
    if (raw.reference_answer !== undefined) this.referenceAnswer = raw.reference_answer;
    if (asRecord(raw.expected_user_db)) this.expectedUserDb = asRecord(raw.expected_user_db);
    if (Array.isArray(raw.db_state_assertions))
      this.dbStateAssertions = raw.db_state_assertions.filter(Boolean).map((a: DbStateAssertion) => ({
        ...a,
        arguments: a.arguments ?? {},
      }));
    if (Array.isArray(raw.nl_assertions)) this.nlAssertions = raw.nl_assertions.filter((a) => typeof a === 'string');
    if (Array.isArray(raw.initialization_actions))
      this.initializationActions = raw.initialization_actions.filter(Boolean).map((a: InitializationAction) => ({
        ...a,
        arguments: a.arguments ?? {},
      }));
    this.ignoreCapitalization = raw.ignore_capitalization === true;
    this.ignorePunctuation = raw.ignore_punctuation === true;
    this.cleanText = raw.clean_text === true;
    this.disallowExtraItems = raw.disallow_extra_items === true;
    const noise = asRecord(raw.noise_config);
    if (noise && typeof noise.snr_db === 'number') this.noiseConfig = noise as unknown as EvalScenario['noiseConfig'];
    if (raw.action_source === 'calls') this.actionSource = 'calls';
  }
  override get expectedScenarioDb(): Record<string, unknown> | undefined {
    return asRecord(this.#raw.expected_scenario_db);
  }
  override get userPersona(): Persona | undefined {
    return asRecord(this.#raw.user_persona) as Persona | undefined;
  }
  override get userTask(): Task | undefined {
    return asRecord(this.#raw.user_task) as Task | undefined;
  }
  override get userActions(): Actions {
    return (asRecord(this.#raw.user_actions) ?? {}) as Actions;
  }
  override get userResources(): Resources {
    return (asRecord(this.#raw.user_resources) ?? {}) as Resources;
  }
  override get agentPersona(): Persona | undefined {
    return asRecord(this.#raw.agent_persona) as Persona | undefined;
  }
  override get agentTask(): Task | undefined {
    return asRecord(this.#raw.agent_task) as Task | undefined;
  }
  override get agentActions(): Actions {
    return (asRecord(this.#raw.agent_actions) ?? {}) as Actions;
  }
  override get agentResources(): Resources {
    return (asRecord(this.#raw.agent_resources) ?? {}) as Resources;
  }
  override setupSharedState(state: Record<string, unknown>, side: NemoSide): void {
    Object.assign(state, asRecord(asRecord(this.#raw.shared_state_init)?.[side]) ?? {});
  }
}

/** The class member a problem names → the YAML key, so the error points at what the author wrote. */
const MEMBERS: readonly [string, string][] = [
  ['referenceAnswer', 'reference_answer'],
  ['expectedScenarioDb', 'expected_scenario_db'],
  ['expectedUserDb', 'expected_user_db'],
  ['dbStateAssertions', 'db_state_assertions'],
  ['nlAssertions', 'nl_assertions'],
  ['initializationActions', 'initialization_actions'],
  ['userResources', 'user_resources'],
  ['userPersona', 'user_persona'],
  ['userTask', 'user_task'],
  ['successSignals', 'success_signals'],
  ['maxDuration', 'max_duration'],
  ["setupSharedState(state, 'user')", 'shared_state_init.user'],
  ["setupSharedState(state, 'agent')", 'shared_state_init.agent'],
  ['registerDbStatePredicate', 'registerDbStatePredicate (a scenario module)'],
];

function inYamlWords(message: string): string {
  return MEMBERS.reduce((m, [member, key]) => m.split(member).join(key), message)
    .replace(/`name` \(`<domain>__<id>`\); a domain base class is declared `abstract` and is not registered/, 'name')
    .replace(/SuccessSignal\.(\w+)/g, '$1');
}

function pathOf(problem: string): string {
  if (/^(ACTION_MATCH|DB_STATE_MATCH|DB_STATE_ASSERTION|NL_ASSERTION) is whitelisted/.test(problem))
    return 'success_signals';
  const hit = MEMBERS.find(([member]) => problem.startsWith(member));
  if (!hit) return '';
  const index = /^\w+\[(\d+)\]/.exec(problem);
  return index ? `${hit[1]}[${index[1]}]` : hit[1].split(' ')[0];
}
