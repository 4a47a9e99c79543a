import { errorMessage } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import type { Runnable, Scenario } from '../scenario/index.js';
import type { SessionDriver } from './driver.js';
import type { SessionOptions, SessionOutcome } from './options.js';
import { SessionRuntime } from './runtime.js';
import { ScriptDriver } from './script-driver.js';
import { Trace } from './trace.js';

/** Runs one scenario's script against one bot over one connection; never throws for the bot's faults. */
export async function runSession(scenario: Scenario, options: SessionOptions): Promise<SessionOutcome> {
  return driveSession(
    scenario,
    options,
    new ScriptDriver(scenario, {
      sendAfterMaxWaitMs: options.sendAfterMaxWaitMs,
      botQuietMaxWaitMs: options.botQuietMaxWaitMs,
    }),
  );
}

/** Runs one scenario against one bot with `driver` deciding the conversation (see driver.ts). */
export async function driveSession(
  scenario: Runnable,
  options: SessionOptions,
  driver: SessionDriver,
): Promise<SessionOutcome> {
  // One redactor for the session and the conclusion: the runtime adds the scenario's keys to it.
  const redactor = options.redactor ?? new Redactor(options.env ?? process.env);
  const runtime = new SessionRuntime(scenario, { ...options, redactor }, driver.plannedTurns());
  const outcome = await runtime.drive(driver);
  if (!driver.conclude) return outcome;
  const trace = new Trace(runtime.clock, runtime.t0Ms, redactor, undefined, undefined, options.traceEcho);
  const signal = options.signal ?? new AbortController().signal;
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
    result = {
      ...result,
      status: 'error',
      error: reason,
      failures: [
        ...result.failures,
        { kind: 'harness_error', turn_index: null, expectation_index: null, event: null, reason },
      ],
    };
  }
  const more = trace.toText();
  return { ...outcome, result: redactor.value(result), trace: more === '\n' ? outcome.trace : outcome.trace + more };
}
