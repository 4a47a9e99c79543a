import { Redactor } from '../../core/redact.js';
import { retryPolicy } from '../../judge/index.js';
import { resolvePersona, type LlmConfig, type Simulation } from '../../scenario/index.js';
import { createSimulator } from '../../simulate/index.js';
import { resolveCallerAndJudge } from '../llm-backends.js';
import {
  resolveSessionConfig,
  type SessionConfig,
  type SessionOptions,
  type SessionOutcome,
} from '../../session/index.js';
import { driveSession } from '../run.js';
import { SimulationDriver } from './simulation-driver.js';

/**
 * Builds a simulation's driver from its file: the caller's model from
 * `simulator:` (or `--simulator`), the judge from `judge.eval:` (or
 * `--judge`), each an Ollama or OpenAI-compatible service, or a `factory:`
 * module behind `--allow-code` that returns a backend (`complete(messages,
 * ctx, request)`, the judge's `JudgeBackend`). Problems with either block are
 * thrown here, before any bot is contacted.
 */
export interface SimulationSetup {
  env?: NodeJS.ProcessEnv;
  /** Share it with the session (`SessionOptions.redactor`) so the services' keys are masked everywhere. */
  redactor?: Redactor;
  /** Load `factory:` modules (`--allow-code`). */
  allowCode?: boolean;
  /** `--simulator` (parseSimulatorOverride): replaces every simulation's `simulator:` block. */
  simulatorOverride?: LlmConfig;
  /** `--judge`: replaces `judge.eval:` (and with it a Python judge factory). */
  judgeOverride?: LlmConfig;
  /** Backoff jitter in [0, 1); seed it for reproducible runs. */
  random?: () => number;
  /** Per attempt of each model call, the caller's and the judge's (default 60 000). */
  requestTimeoutMs?: number;
  maxAttempts?: number;
  /** How long the bot gets for its closing reply after the persona hangs up on its own last line (default 15 s). */
  closingReplyWaitMs?: number;
}

export async function createSimulationDriver(
  simulation: Simulation,
  setup: SimulationSetup = {},
): Promise<SimulationDriver> {
  const env = setup.env ?? process.env;
  const redactor = setup.redactor ?? new Redactor(env);
  const { callerConfig, callerBackend, judge } = await resolveCallerAndJudge(
    simulation,
    {
      simulator: simulation.simulator,
      simulatorOverride: setup.simulatorOverride,
      judgeOverride: setup.judgeOverride,
      allowCode: setup.allowCode === true,
      env,
      redactor,
    },
    { needsCaller: true },
  );
  const random = setup.random ?? Math.random;
  const policy = retryPolicy({
    ...(setup.requestTimeoutMs !== undefined ? { requestTimeoutMs: setup.requestTimeoutMs } : {}),
    ...(setup.maxAttempts !== undefined ? { maxAttempts: setup.maxAttempts } : {}),
  });
  let log: (line: string) => void = () => undefined;
  // A built-in GAIA persona name (`power_user`) plays as GAIA's description of it; any other text as written.
  const persona = resolvePersona(simulation.persona);
  const simulator = createSimulator({
    persona: persona.builtin ? persona.description : simulation.persona,
    goal: simulation.goal,
    config: callerConfig,
    ...(callerBackend ? { backend: callerBackend } : {}),
    env,
    redactor,
    random,
    trace: (l) => log(l),
    requestTimeoutMs: policy.requestTimeoutMs,
    maxAttempts: policy.maxAttempts,
  });
  const driver = new SimulationDriver(simulation, {
    simulator,
    judge,
    redactor,
    random,
    judgePolicy: policy,
    ...(setup.closingReplyWaitMs !== undefined ? { closingReplyWaitMs: setup.closingReplyWaitMs } : {}),
  });
  log = (l) => driver.trace(l);
  if (persona.builtin) log(`persona: built-in ${persona.name}: ${JSON.stringify(persona.description)}`);
  return driver;
}

/**
 * One simulation run against one bot: the driver built, the session driven,
 * the result with its `simulation` block. The session's `--simulator` and
 * `--judge` (`options.simulatorOverride`, `options.judgeOverride`) apply
 * unless `setup` gives its own.
 */
export async function runSimulation(
  simulation: Simulation,
  options: SessionOptions | SessionConfig,
  setup: SimulationSetup = {},
): Promise<SessionOutcome> {
  // One redactor for the session, the caller's model and the judge: each adds its keys to it.
  const config = resolveSessionConfig(
    options.redactor || !setup.redactor ? options : { ...options, redactor: setup.redactor },
  );
  const simulatorOverride = setup.simulatorOverride ?? config.simulatorOverride;
  const judgeOverride = setup.judgeOverride ?? config.judge.override;
  const driver = await createSimulationDriver(simulation, {
    ...setup,
    redactor: config.redactor,
    env: setup.env ?? config.env,
    allowCode: setup.allowCode ?? config.allowCode,
    ...(simulatorOverride ? { simulatorOverride } : {}),
    ...(judgeOverride ? { judgeOverride } : {}),
  });
  return driveSession(simulation, config, driver);
}
