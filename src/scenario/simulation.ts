import { asRecord, normalizeCall, normalizeJudge, normalizeLlm, normalizeUser, type Normalizer } from './normalize.js';
import { normalizeScorecard, normalizeSignals } from './simulation-extensions.js';
import type { Simulation, SimulationMetric } from './types.js';
import { normalizeConditionFields } from './conditions.js';

/**
 * Simulations (Pipecat's `simulation.py`, both of its published shapes: the
 * first with weighted metrics and `pass_threshold`, the newest with
 * `min_score`, measured metrics and `max_silence_s`, where every run must pass
 * and `weight`/`pass_threshold` are gone: still read, with a deprecation
 * warning), plus earshot's `scorecard:` and `success_signals:`
 * (simulation-extensions.ts). The simulated caller that runs them is
 * `drivers/simulation/simulation-driver.ts`.
 */

export type SimulationBody = Omit<
  Simulation,
  'file' | 'root' | 'includes' | 'warnings' | 'locations' | 'requires_code' | 'code_hooks' | 'file_name' | 'index'
>;

export function normalizeSimulation(raw: Record<string, unknown>, n: Normalizer): SimulationBody {
  const user = normalizeUser(raw.user, n);
  if (user.modality === 'audio' && !user.speech && !n.hasErrorAt('user.speech')) {
    const where = n.check.locations['user.modality'] ? 'user.modality' : 'user';
    const message = "needs a 'user.speech:' block: every persona turn is synthesized";
    n.error(where, where === 'user.modality' ? `audio ${message}` : `user.modality: audio ${message}`);
  }
  const judge = normalizeJudge(raw.judge, n);
  const simulator = normalizeLlm(raw.simulator, 'simulator', n);
  const metrics: SimulationMetric[] = [];
  const names = new Set<string>();
  (Array.isArray(raw.metrics) ? raw.metrics : []).forEach((m, i) => {
    const metric = asRecord(m);
    if (!metric) return;
    const normalized = normalizeMetric(metric, `metrics[${i}]`, n);
    if (!normalized) return;
    if (names.has(normalized.name)) n.error(`metrics[${i}].name`, `metric '${normalized.name}' is listed twice`);
    names.add(normalized.name);
    metrics.push(normalized);
  });
  if (n.wrote('pass_threshold')) {
    n.deprecated(
      'pass_threshold',
      "'pass_threshold:' is gone from Pipecat's newest format, where every run must pass; still applied here",
    );
  }
  const num = (key: string, fallback: number): number =>
    typeof raw[key] === 'number' ? (raw[key] as number) : fallback;
  const text = (key: string): string => (typeof raw[key] === 'string' ? (raw[key] as string).trim() : '');
  return {
    kind: 'simulation',
    name: text('name'),
    persona: text('persona'),
    goal: text('goal'),
    success: text('success'),
    simulator,
    user,
    judge,
    metrics,
    max_turns: num('max_turns', 20),
    max_duration_s: num('max_duration_s', 300),
    max_silence_s: num('max_silence_s', 30),
    runs: num('runs', 1),
    pass_threshold: num('pass_threshold', 1),
    trigger_disconnect: raw.trigger_disconnect === true,
    ...normalizeConditionFields(raw, '', n, user),
    ...optional('scorecard', normalizeScorecard(raw.scorecard, n)),
    ...optional('success_signals', normalizeSignals(raw.success_signals, n)),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function normalizeMetric(raw: Record<string, unknown>, p: string, n: Normalizer): SimulationMetric | undefined {
  const has = (key: string): boolean => n.check.locations[`${p}.${key}`] !== undefined && raw[key] !== undefined;
  const criterion = typeof raw.criterion === 'string' ? raw.criterion : undefined;
  const measure = typeof raw.measure === 'string' ? (raw.measure as SimulationMetric['measure']) : undefined;
  if ((criterion === undefined) === (measure === undefined)) {
    if (!n.hasErrorAt(`${p}.criterion`) && !n.hasErrorAt(`${p}.measure`)) {
      n.error(p, "a metric is judged ('criterion:') or measured ('measure:'), exactly one of the two");
    }
    return undefined;
  }
  const name = typeof raw.name === 'string' ? raw.name : measure;
  if (!name) {
    if (!n.hasErrorAt(`${p}.name`)) n.error(p, "a judged metric needs a 'name:'");
    return undefined;
  }
  const metric: SimulationMetric = { name, weight: typeof raw.weight === 'number' ? raw.weight : 1 };
  if (n.wrote(`${p}.weight`)) {
    n.deprecated(
      `${p}.weight`,
      "'weight:' is gone from Pipecat's newest format (a metric scores the share of passing turns; min_score gates it)",
    );
  }
  if (criterion !== undefined) {
    metric.criterion = criterion;
    for (const key of ['min_value', 'max_value', 'calls']) {
      if (has(key)) n.error(`${p}.${key}`, `'${key}:' belongs to a measured metric; this one is judged ('criterion:')`);
    }
    if (typeof raw.min_score === 'number') metric.min_score = raw.min_score;
    return metric;
  }
  metric.measure = measure;
  if (has('min_score'))
    n.error(`${p}.min_score`, "a measured metric takes a range ('min_value:'/'max_value:'), not 'min_score:'");
  if (measure === 'function_calls') {
    if (has('min_value') || has('max_value')) {
      n.error(
        has('min_value') ? `${p}.min_value` : `${p}.max_value`,
        "function_calls compares the bot's calls with 'calls:', not a range",
      );
    }
    if (!Array.isArray(raw.calls)) {
      if (!n.hasErrorAt(`${p}.calls`))
        n.error(p, "measure: function_calls needs a 'calls:' list, the calls the bot should make ([] for none)");
      return undefined;
    }
    metric.calls = [];
    raw.calls.forEach((c, j) => {
      if (c === undefined) return;
      const call = normalizeCall(c);
      if (!call.name) n.error(`${p}.calls[${j}]`, "each expected call needs a 'name:'");
      metric.calls?.push(call);
    });
    return metric;
  }
  if (has('calls')) n.error(`${p}.calls`, "'calls:' belongs to 'measure: function_calls'; this measure takes a range");
  const min = typeof raw.min_value === 'number' ? raw.min_value : undefined;
  const max = typeof raw.max_value === 'number' ? raw.max_value : undefined;
  if (min === undefined && max === undefined) {
    if (!n.hasErrorAt(`${p}.min_value`) && !n.hasErrorAt(`${p}.max_value`))
      n.error(p, `measure: ${measure} needs a 'min_value:' or a 'max_value:'`);
    return undefined;
  }
  if (min !== undefined && max !== undefined && min > max)
    n.error(`${p}.min_value`, `min_value (${min}) is above max_value (${max})`);
  if (min !== undefined) metric.min_value = min;
  if (max !== undefined) metric.max_value = max;
  return metric;
}
