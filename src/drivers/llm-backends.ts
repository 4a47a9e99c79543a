import { dirname } from 'node:path';
import { FactoryError, loadFactory } from '../core/code-hooks.js';
import type { Redactor } from '../core/redact.js';
import { resolveJudgeService, type JudgeBackend } from '../judge/index.js';
import {
  ScenarioError,
  unrunnableFactories,
  type LlmConfig,
  type Scenario,
  type Simulation,
} from '../scenario/index.js';

/**
 * A backend a `factory:` module builds, when the block names one; undefined for a service block. Shared by the
 * simulated caller, the GAIA turn writer and their judges: `block` names the field in errors, `file` is the
 * scenario the factory path is relative to.
 */
export async function factoryBackend(
  config: LlmConfig,
  block: string,
  file: string,
  allowCode: boolean,
  env: NodeJS.ProcessEnv,
): Promise<JudgeBackend | undefined> {
  if (typeof config.factory !== 'string') return undefined;
  const fn = await loadFactory(config.factory, { allowCode, baseDir: dirname(file) });
  let made: unknown;
  try {
    made = await fn(config, env);
  } catch (err) {
    throw new FactoryError(config.factory, `threw: ${(err as Error).message}`, { cause: err });
  }
  const backend = made as Partial<JudgeBackend> | null;
  if (!backend || typeof backend !== 'object' || typeof backend.complete !== 'function') {
    throw new FactoryError(
      config.factory,
      `${block}: must return an object with a complete(messages, ctx, request) method (a chat backend)`,
    );
  }
  return {
    service: backend.service ?? 'factory',
    model: backend.model ?? config.factory,
    endpoint: backend.endpoint ?? config.factory,
    secrets: backend.secrets ?? [],
    identity: backend.identity ?? { factory: config.factory },
    complete: backend.complete.bind(backend),
  };
}

/** What a run's models are built from: the file's blocks, the command line's overrides, the environment. */
export interface ModelSetup {
  /** The file's `simulator:` block (a simulation's, or a GAIA file's caller model). */
  simulator: LlmConfig;
  /** `--simulator`: replaces `simulator:` (and with it a Python simulator factory). */
  simulatorOverride?: LlmConfig | null;
  /** `--judge`: replaces `judge.eval:` (and with it a Python judge factory). */
  judgeOverride?: LlmConfig | null;
  allowCode: boolean;
  env: NodeJS.ProcessEnv;
  /** Learns the judge's secrets, so its keys are masked everywhere. */
  redactor: Redactor;
}

export interface CallerAndJudge {
  /** The caller's model block in force (the override, else the file's). */
  callerConfig: LlmConfig;
  /** The caller's backend when its block is a `factory:` and a caller plays; a service block is built by its user. */
  callerBackend?: JudgeBackend;
  judge: JudgeBackend;
}

/**
 * The caller's model and the judge of a simulation or a GAIA file, each a service or an allowed `factory:`. A
 * Python factory that no override replaces is the run's error (ScenarioError), thrown before any bot is contacted.
 * `needsCaller` false skips the caller (a GAIA file whose turns are all written, or a writer given by a test);
 * `judge` given (tests) is used instead of building one, its secrets still masked.
 */
export async function resolveCallerAndJudge(
  runnable: Scenario | Simulation,
  setup: ModelSetup,
  opts: { needsCaller: boolean; judge?: JudgeBackend },
): Promise<CallerAndJudge> {
  const replaced = [...(setup.simulatorOverride ? ['simulator'] : []), ...(setup.judgeOverride ? ['judge.eval'] : [])];
  const python = unrunnableFactories(runnable, replaced);
  if (python.length) throw new ScenarioError(runnable.file, python);
  const { allowCode, env } = setup;
  const callerConfig = setup.simulatorOverride ?? setup.simulator;
  const callerBackend = opts.needsCaller
    ? await factoryBackend(callerConfig, 'simulator', runnable.file, allowCode, env)
    : undefined;
  const judgeConfig = setup.judgeOverride ?? runnable.judge.eval;
  const judge =
    opts.judge ??
    (await factoryBackend(judgeConfig, 'judge.eval', runnable.file, allowCode, env)) ??
    resolveJudgeService(judgeConfig, env);
  for (const secret of judge.secrets) setup.redactor.add(secret);
  return { callerConfig, ...(callerBackend ? { callerBackend } : {}), judge };
}
