import type { Scenario } from '../scenario/index.js';
import type { SessionDriver } from './driver.js';
import type { SessionOptions, SessionOutcome } from './options.js';
import { SessionRuntime } from './runtime.js';
import { ScriptDriver } from './script-driver.js';

/** Runs one scenario's script against one bot over one connection; never throws for the bot's faults. */
export async function runSession(scenario: Scenario, options: SessionOptions): Promise<SessionOutcome> {
  return driveSession(scenario, options, new ScriptDriver(scenario, { sendAfterMaxWaitMs: options.sendAfterMaxWaitMs, botQuietMaxWaitMs: options.botQuietMaxWaitMs }));
}

/** Runs one scenario against one bot with `driver` deciding the conversation (see driver.ts). */
export async function driveSession(scenario: Scenario, options: SessionOptions, driver: SessionDriver): Promise<SessionOutcome> {
  return new SessionRuntime(scenario, options, driver.plannedTurns()).drive(driver);
}
