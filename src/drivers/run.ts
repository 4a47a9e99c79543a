import { errorMessage } from '../core/errors.js';
import { errorResult } from '../results/failure.js';
import type { Runnable, Scenario } from '../scenario/index.js';
import {
  resolveSessionConfig,
  SessionRuntime,
  Trace,
  type SessionConfig,
  type SessionDriver,
  type SessionOptions,
  type SessionOutcome,
} from '../session/index.js';
import { ScriptDriver } from './script/script-driver.js';

/** Runs one scenario's script against one bot over one connection; never throws for the bot's faults. */
export async function runSession(scenario: Scenario, options: SessionOptions | SessionConfig): Promise<SessionOutcome> {
  return driveSession(scenario, resolveSessionConfig(options), new ScriptDriver(scenario));
}

/** Runs one scenario against one bot with `driver` deciding the conversation (see session/driver.ts). */
export async function driveSession(
  scenario: Runnable,
  options: SessionOptions | SessionConfig,
  driver: SessionDriver,
): Promise<SessionOutcome> {
  // One redactor for the session and the conclusion: the runtime adds the scenario's keys to it.
  const config = resolveSessionConfig(options);
  const runtime = new SessionRuntime(scenario, config, driver.plannedTurns());
  const drove = await runtime.drive(driver);
  const outcome = { ...drove, result: { ...drove.result, ...runnableTags(scenario) } };
  if (!driver.conclude) return outcome;
  const { redactor } = config;
  const trace = new Trace(runtime.time.clock, runtime.time.t0Ms, redactor, undefined, undefined, config.traceEcho);
  const signal = config.signal ?? new AbortController().signal;
  let result = outcome.result;
  try {
    result = await driver.conclude(outcome.result, {
      log: (l) => trace.log(l),
      signal,
      redact: (t) => redactor.text(t),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const reason = errorMessage(err);
    trace.log(`error: concluding the run: ${reason}`);
    result = errorResult(result, reason);
  }
  const more = trace.toText();
  const evidence = driver.evidence?.();
  return {
    ...outcome,
    result: redactor.value(result),
    trace: more === '\n' ? outcome.trace : outcome.trace + more,
    ...(evidence ? { evidence: redactor.value(evidence) } : {}),
  };
}

/** The runnable's `category` and `severity`, which every result of it carries (for reports, JUnit, filters). */
export function runnableTags(scenario: Runnable): { category?: string; severity?: Runnable['severity'] } {
  return {
    ...(scenario.category !== undefined ? { category: scenario.category } : {}),
    ...(scenario.severity !== undefined ? { severity: scenario.severity } : {}),
  };
}
