import { dirname } from 'node:path';
import type { SourceLocation } from '../diagnostics.js';
import { normalizeJudge, normalizeLlm, normalizeUser, Normalizer } from '../normalize.js';
import { NOISE_KINDS, type ScenarioConditions } from '../condition-types.js';
import type { Simulation, UserConfig } from '../types.js';
import { ScenarioDefinitionError } from './errors.js';
import { renderUserPrompt } from './prompt.js';
import { hasCustomVerdict, type EvalScenario } from './scenario.js';
import type { NemoSide, NemoSpec, SideSpec } from './types.js';

/**
 * A NeMo scenario as earshot runs it: a `Simulation` (so loading, the runner, the simulation driver, results and
 * reporters are shared) whose `nemo` block carries NeMo's contract. The caller's persona is the rendered user side,
 * its goal the user task; `success` (what a Pipecat judge would weigh) is the agent task. The rest is filled as a
 * Pipecat simulation with no blocks gets it (simulation.ts): text caller and judge, the default simulator model
 * (`--simulator` / `--judge` replace them).
 */

/** A simulation's caller turns are capped; NeMo caps by time only, so this is generous. */
const NEMO_MAX_TURNS = 50;

export function compileNemo(scenario: EvalScenario, where: SourceLocation): Simulation {
  const name = scenario.name ?? '';
  const fail = (reason: string): never => {
    throw new ScenarioDefinitionError(name || '<unnamed>', where, reason);
  };
  const state = (side: NemoSide): Record<string, unknown> => {
    const seeded: Record<string, unknown> = {};
    try {
      scenario.setupSharedState(seeded, side);
    } catch (err) {
      fail(`setupSharedState(state, '${side}') threw: ${(err as Error)?.message ?? String(err)}`);
    }
    const problem = jsonProblem(seeded, 'state');
    if (problem) fail(`setupSharedState(state, '${side}') left ${problem}: shared_state_init is sent as JSON`);
    return seeded;
  };
  const user: SideSpec = clean({
    persona: scenario.userPersona,
    task: scenario.userTask,
    actions: scenario.userActions,
    resources: scenario.userResources,
  });
  const agent: SideSpec = clean({
    persona: scenario.agentPersona,
    task: scenario.agentTask,
    actions: scenario.agentActions,
    resources: scenario.agentResources,
  });
  const userState = state('user');
  if (Object.keys(userState).length)
    fail(
      `setupSharedState(state, 'user') seeded ${Object.keys(userState).join(', ')}: earshot's simulated caller is ` +
        'an LLM persona, not a bot, so it holds no state',
    );
  for (const [what, value] of [
    ['referenceAnswer', scenario.referenceAnswer],
    ['expectedScenarioDb', scenario.expectedScenarioDb],
  ] as const) {
    const problem = value === undefined ? undefined : jsonProblem(value, what);
    if (problem) fail(`${what} holds ${problem}: it must be JSON data`);
  }
  const nemo: NemoSpec = {
    name,
    domain: scenario.domain,
    ...(scenario.description !== undefined ? { description: scenario.description } : {}),
    user,
    agent,
    success_signals: [...new Set(scenario.successSignals)],
    ...(scenario.referenceAnswer !== undefined ? { reference_answer: scenario.referenceAnswer } : {}),
    ...(scenario.expectedScenarioDb !== undefined ? { expected_scenario_db: scenario.expectedScenarioDb } : {}),
    ...(scenario.dbStateAssertions?.length ? { db_state_assertions: [...scenario.dbStateAssertions] } : {}),
    ...(scenario.nlAssertions?.length ? { nl_assertions: [...scenario.nlAssertions] } : {}),
    ...(scenario.initializationActions?.length ? { initialization_actions: [...scenario.initializationActions] } : {}),
    shared_state_init: { user: userState, agent: state('agent') },
    normalization: {
      ignore_capitalization: scenario.ignoreCapitalization === true,
      ignore_punctuation: scenario.ignorePunctuation === true,
      clean_text: scenario.cleanText === true,
      disallow_extra_items: scenario.disallowExtraItems === true,
    },
    action_source: scenario.actionSource === 'calls' ? 'calls' : 'summary',
    max_duration_s: scenario.maxDuration,
    ...(scenario.noiseConfig ? { noise_config: scenario.noiseConfig } : {}),
    custom_verdict: hasCustomVerdict(scenario),
  };
  if (nemo.custom_verdict) nemo.compute = (signals) => scenario.computeIsSuccessful(signals);
  return simulationOf(nemo, where);
}

/**
 * The `Simulation` around a `NemoSpec` (the class form and the YAML form both end here). `blocks` are the YAML form's
 * own `user:` / `judge:` / `simulator:` values; absent, Pipecat's defaults.
 */
export function simulationOf(
  nemo: NemoSpec,
  where: SourceLocation,
  blocks: Partial<Pick<Simulation, 'user' | 'judge' | 'simulator'>> = {},
): Simulation {
  const n = new Normalizer(where.file, dirname(where.file), false, { diagnostics: [], locations: {}, textStart: {} });
  const user: UserConfig = blocks.user ?? normalizeUser(undefined, n);
  const goal = nemo.user.task?.goal ?? '';
  const conditions = noiseCondition(nemo, user);
  return {
    kind: 'simulation',
    name: nemo.name,
    file: where.file,
    root: dirname(where.file),
    includes: [],
    warnings: [],
    locations: { '': where },
    file_name: nemo.name,
    index: 0,
    persona: renderUserPrompt(nemo.user),
    goal,
    success: nemo.agent.task?.goal ?? `The agent helps the caller with their goal: ${goal}`,
    simulator: blocks.simulator ?? normalizeLlm(undefined, 'simulator', n),
    user,
    judge: blocks.judge ?? normalizeJudge(undefined, n),
    metrics: [],
    max_turns: NEMO_MAX_TURNS,
    max_duration_s: nemo.max_duration_s,
    max_silence_s: 30,
    runs: 1,
    pass_threshold: 1,
    trigger_disconnect: false,
    requires_code: false,
    code_hooks: [],
    ...(conditions ? { conditions } : {}),
    nemo,
  };
}

/** NeMo's `noise_config` is the caller's channel noise: only where the caller speaks audio. */
function noiseCondition(nemo: NemoSpec, user: UserConfig): ScenarioConditions | undefined {
  const noise = nemo.noise_config;
  if (!noise || user.modality !== 'audio') return undefined;
  const type = noise.path
    ? 'wav'
    : (NOISE_KINDS as readonly string[]).includes(noise.type ?? '')
      ? noise.type
      : 'white';
  return { noise: { type: type as 'white', snr_db: noise.snr_db, ...(noise.path ? { path: noise.path } : {}) } };
}

/** Drops empty properties so a side's block holds only what the scenario said. */
function clean(side: SideSpec): SideSpec {
  const out: SideSpec = {};
  for (const [k, v] of Object.entries(side) as [keyof SideSpec, SideSpec[keyof SideSpec]][]) {
    if (v !== undefined && v !== null && Object.keys(v).length > 0) Object.assign(out, { [k]: v });
  }
  return out;
}

/** Why a value does not survive JSON (a function, a cycle, a non-finite number, a class instance), if it does not. */
function jsonProblem(value: unknown, path: string, seen = new Set<unknown>()): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} = ${value}`;
  if (typeof value !== 'object') return `${path}, a ${typeof value}`;
  if (seen.has(value)) return `${path}, a cycle`;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = jsonProblem(value[i], `${path}[${i}]`, seen);
      if (p) return p;
    }
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `${path}, a ${proto?.constructor?.name ?? 'class'} object`;
    for (const [k, v] of Object.entries(value)) {
      const p = v === undefined ? undefined : jsonProblem(v, `${path}.${k}`, seen);
      if (p) return p;
    }
  }
  seen.delete(value);
  return undefined;
}
