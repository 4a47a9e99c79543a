import { DEFAULT_EXIT_FUNCTIONS, DEFAULT_SCORECARD_PASS, DEFAULT_SCORECARD_WEIGHTS } from './file-fields.js';
import { asRecord, normalizeCall, type Normalizer } from './normalize.js';
import {
  SCENARIO_SEVERITIES,
  SCORECARD_DIMENSIONS,
  type ExpectedCall,
  type Runnable,
  type ScenarioSeverity,
  type ScorecardSpec,
  type SuccessSignals,
} from './types.js';

/**
 * earshot's extensions of the simulation format, from the other two seeds:
 * AMD GAIA's scorecard (weighted dimensions, an expected answer with numeric
 * tolerance, `category`/`severity`) and NVIDIA NeMo's success signals
 * (`clean_exit`, `action_match`, `nl_assertions`). Pipecat files never carry
 * them; the type checks ran against the field tables (file-fields.ts), so
 * what is left here is the meaning.
 */

/** `category:` and `severity:`, on either kind of scenario. */
export function normalizeTags(raw: Record<string, unknown>): Pick<Runnable, 'category' | 'severity'> {
  const tags: Pick<Runnable, 'category' | 'severity'> = {};
  if (typeof raw.category === 'string') tags.category = raw.category.trim();
  if (typeof raw.severity === 'string' && (SCENARIO_SEVERITIES as readonly string[]).includes(raw.severity))
    tags.severity = raw.severity as ScenarioSeverity;
  return tags;
}

export function normalizeScorecard(raw: unknown, n: Normalizer): ScorecardSpec | undefined {
  const card = asRecord(raw);
  if (!card) return undefined;
  const weights = { ...DEFAULT_SCORECARD_WEIGHTS };
  const written = asRecord(card.weights) ?? {};
  for (const dim of SCORECARD_DIMENSIONS) {
    if (typeof written[dim] === 'number') weights[dim] = written[dim] as number;
  }
  if (SCORECARD_DIMENSIONS.every((d) => weights[d] === 0))
    n.error('scorecard.weights', 'every weight is 0: at least one dimension must count');
  const spec: ScorecardSpec = {
    weights,
    pass_threshold: typeof card.pass_threshold === 'number' ? card.pass_threshold : DEFAULT_SCORECARD_PASS,
  };
  // `expected_answer: null` (or empty) is written but reads as not given: the bot must admit it does not know.
  if (typeof card.expected_answer === 'string' && card.expected_answer.trim() !== '')
    spec.expected_answer = card.expected_answer.trim();
  else if (n.wrote('scorecard.expected_answer')) spec.expected_answer = null;
  return spec;
}

const MAP_SIGNALS = ['clean_exit', 'action_match', 'nl_assertions'];

export function normalizeSignals(raw: unknown, n: Normalizer): SuccessSignals | undefined {
  if (Array.isArray(raw)) {
    n.error(
      'success_signals',
      "a list of SuccessSignal members is NeMo's whitelist, read in NeMo's form only: write the caller as " +
        "user_persona: and user_task: (not persona:/goal:), or use earshot's map form (clean_exit:, action_match:, " +
        'nl_assertions:)',
    );
    return undefined;
  }
  const block = asRecord(raw);
  if (!block) return undefined;
  for (const key of Object.keys(block).filter((k) => !MAP_SIGNALS.includes(k))) {
    // Once a warning and a pass with no signal at all (issue 35): a NeMo signal written here must not pass silently.
    n.error(
      `success_signals.${key}`,
      `unknown signal '${key}:' in the map form (it takes ${MAP_SIGNALS.join(', ')}); NeMo's signals ` +
        "(DB_STATE_MATCH, DB_STATE_ASSERTION, JUDGE_PASSED...) are a list in NeMo's form: " +
        'success_signals: [DB_STATE_MATCH, CLEAN_EXIT] with user_persona: and user_task:',
    );
  }
  const signals: SuccessSignals = {};
  const exit = block.clean_exit;
  if (exit === true) signals.clean_exit = { functions: [...DEFAULT_EXIT_FUNCTIONS] };
  else if (asRecord(exit)) {
    const functions = (asRecord(exit)?.functions as unknown[] | undefined) ?? [];
    signals.clean_exit = { functions: functions.filter((f): f is string => typeof f === 'string') };
  }
  const action = block.action_match;
  if (action !== undefined) {
    const listed = Array.isArray(action) ? action : (asRecord(action)?.calls as unknown[] | undefined);
    const where = Array.isArray(action) ? 'success_signals.action_match' : 'success_signals.action_match.calls';
    if (Array.isArray(listed)) {
      const calls: ExpectedCall[] = [];
      listed.forEach((c, i) => {
        if (c === undefined) return;
        const call = normalizeCall(c);
        if (!call.name) n.error(`${where}[${i}]`, "each expected action needs a 'name:'");
        calls.push(call);
      });
      signals.action_match = { calls, exact: !Array.isArray(action) && asRecord(action)?.exact === true };
    }
  }
  if (Array.isArray(block.nl_assertions)) {
    signals.nl_assertions = block.nl_assertions.filter((a): a is string => typeof a === 'string').map((a) => a.trim());
  }
  if (block.clean_exit === false && Object.keys(signals).length === 0) {
    n.error(
      'success_signals',
      'lists no signal that can hold (clean_exit: false is no signal); remove the block or list one',
    );
  }
  return Object.keys(signals).length ? signals : undefined;
}

/** `--category` / `--severity`: which scenarios a run keeps. */
export interface TagFilter {
  /** Keep scenarios whose `category:` is one of these (exact, case-insensitive). */
  categories?: readonly string[];
  /** Keep scenarios at least this severe (`high` keeps critical and high). */
  minSeverity?: ScenarioSeverity;
}

/** Whether a scenario passes the filter; one without the field a filter names is left out. */
export function matchesTags(scenario: Pick<Runnable, 'category' | 'severity'>, filter: TagFilter): boolean {
  if (filter.categories?.length) {
    const wanted = filter.categories.map((c) => c.trim().toLowerCase());
    if (scenario.category === undefined || !wanted.includes(scenario.category.toLowerCase())) return false;
  }
  if (filter.minSeverity !== undefined) {
    if (scenario.severity === undefined) return false;
    // SCENARIO_SEVERITIES runs from the most severe down.
    if (SCENARIO_SEVERITIES.indexOf(scenario.severity) > SCENARIO_SEVERITIES.indexOf(filter.minSeverity)) return false;
  }
  return true;
}
