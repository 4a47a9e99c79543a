import type { Scenario } from '../../scenario/index.js';
import {
  resolveSessionConfig,
  type SessionConfig,
  type SessionOptions,
  type SessionOutcome,
} from '../../session/index.js';
import { driveSession } from '../run.js';
import { GaiaDriver, type GaiaDriverOptions } from './gaia-driver.js';

/**
 * One GAIA scenario against one bot: its turns played, then each scored by the judge (`--judge` or `judge.eval:`);
 * the caller's model (`--simulator` or `simulator:`) writes the turns that have only an objective.
 */
export async function runGaia(
  scenario: Scenario,
  options: SessionOptions | SessionConfig,
  driverOptions: GaiaDriverOptions = {},
): Promise<SessionOutcome> {
  return driveSession(scenario, resolveSessionConfig(options), new GaiaDriver(scenario, driverOptions));
}
