/**
 * The drivers: what the user does in a session and what counts as success,
 * on top of the session runtime (`src/session/`). The script driver plays a
 * scenario's `turns:` and matches each turn's expectations (`src/match/`),
 * then takes its probes' verdicts; the simulated caller lets an LLM hold the
 * conversation and has `src/simulate/` score the whole call.
 */
export { driveSession, runSession } from './run.js';
export { ScriptDriver } from './script/script-driver.js';
export { BotTurns } from './simulation/bot-turns.js';
export { CLOSING_REPLY_WAIT_MS, SimulationDriver, type SimulationDriverDeps } from './simulation/simulation-driver.js';
export { createSimulationDriver, runSimulation, type SimulationSetup } from './simulation/setup.js';
export { awaitLatencyVerdict, type LatencyVerdict, type LatencyWait } from './probes/latency.js';
export { runnableTags } from './run.js';
export { GaiaDriver, type GaiaDriverOptions } from './gaia/gaia-driver.js';
export { runGaia } from './gaia/run.js';
export { REPLY_SETTLE_MS } from './gaia/replies.js';
