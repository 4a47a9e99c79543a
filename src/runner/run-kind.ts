import { errorMessage } from '../core/errors.js';
import { errorResult, type TurnResult } from '../results/index.js';
import type { Runnable, Scenario } from '../scenario/index.js';
import { runGaia, runnableTags, runSession, runSimulation } from '../drivers/index.js';
import type { SessionConfig, SessionOutcome } from '../session/index.js';

/**
 * The session a runnable gets, by its kind: a script's turns (played and scored per turn by the GAIA driver when it
 * came from a GAIA file), or a simulated
 * caller (the persona's LLM from `simulator:` or `--simulator`, the judge
 * from `judge.eval:` or `--judge`). A simulation whose caller or judge cannot
 * be built (a bad block, a factory that throws) is that run's error result,
 * said in the result and its trace, never a crash of the whole run; only an
 * abort throws.
 */
export async function runRunnable(scenario: Runnable, config: SessionConfig): Promise<SessionOutcome> {
  if (scenario.kind === 'script') return scenario.gaia ? runGaia(scenario, config) : runSession(scenario, config);
  const started = new Date().toISOString();
  try {
    return await runSimulation(scenario, config);
  } catch (err) {
    if (config.signal?.aborted) throw err;
    const reason = `the simulation could not start: ${errorMessage(err)}`;
    const base = {
      name: scenario.name,
      file: scenario.file,
      started_at: started,
      duration_ms: 0,
      turns: [],
      ...runnableTags(scenario),
    };
    const result = errorResult(config.run ? { ...base, run: config.run } : base, reason);
    return { result: config.redactor.value(result), trace: `${reason}\n` };
  }
}

/** The turns a run that never started reports: a script's, each not run; a simulation has none yet. */
export function notRunTurns(scenario: Runnable): TurnResult[] {
  if (scenario.kind !== 'script') return [];
  return scenario.turns.map(
    (t, index): TurnResult => ({ index, status: 'not_run', duration_ms: 0, input: inputOf(t), expectations: [] }),
  );
}

function inputOf(turn: Scenario['turns'][number]): TurnResult['input'] {
  const input: TurnResult['input'] = {};
  if (turn.user !== undefined) input.user = turn.user;
  if (turn.dtmf !== undefined) input.dtmf = turn.dtmf;
  if (turn.audio !== undefined) input.audio = turn.audio;
  return input;
}
