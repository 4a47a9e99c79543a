/**
 * Where the scenario state meets the rest of the reference bot: each connection's brain memory gets its own
 * ScenarioState (the brain runs domain tools through it), and the message router finds it there.
 */
import { dirname, join } from 'node:path';
import { type BrainMemory, defaultBrainPath } from '../brain/brain.js';
import { ScenarioState } from './shared-state.js';

/** What a connection needs to keep scenario state; null: a bot without a control plane (`--no-scenario-state`). */
export interface ScenarioStateSetup {
  dataRoot: string;
}

/**
 * `--eval-data-root`, else `EVAL_DATA_ROOT`, else the package's fixtures/nemo (NeMo resolves `db_path` against
 * its `get_eval_data_root()` the same way).
 */
export function resolveEvalDataRoot(given?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (given !== undefined && given !== '') return given;
  if (env.EVAL_DATA_ROOT) return env.EVAL_DATA_ROOT;
  return join(dirname(defaultBrainPath()), 'nemo');
}

/** Gives `memory` its connection's scenario state (absent setup: the default root; null: none). */
export function withScenarioState(
  memory: BrainMemory,
  deps: { scenarioState?: ScenarioStateSetup | null; conn: number; log: (line: string) => void },
): BrainMemory {
  if (deps.scenarioState === null) return memory;
  const dataRoot = deps.scenarioState?.dataRoot ?? resolveEvalDataRoot();
  memory.tools = new ScenarioState({ dataRoot, log: (l) => deps.log(`conn ${deps.conn}: ${l}`) });
  return memory;
}

/** The connection's scenario state, or null when the bot keeps none. */
export function scenarioStateOf(memory: BrainMemory): ScenarioState | null {
  return memory.tools instanceof ScenarioState ? memory.tools : null;
}
