import { errorMessage } from '../core/errors.js';
import type { ScenarioResult, TurnResult } from '../results/index.js';
import type { Runnable, Scenario } from '../scenario/index.js';
import { runSession, runSimulation, type SessionOptions, type SessionOutcome } from '../session/index.js';

/**
 * The session a runnable gets, by its kind: a script's turns, or a simulated
 * caller (the persona's LLM from `simulator:` or `--simulator`, the judge
 * from `judge.eval:` or `--judge`). A simulation whose caller or judge cannot
 * be built (a bad block, a factory that throws) is that run's error result,
 * said in the result and its trace, never a crash of the whole run; only an
 * abort throws.
 */
export async function runRunnable(scenario: Runnable, options: SessionOptions): Promise<SessionOutcome> {
  if (scenario.kind === 'script') return runSession(scenario, options);
  const started = new Date().toISOString();
  try {
    return await runSimulation(scenario, options);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const reason = `the simulation could not start: ${errorMessage(err)}`;
    const result: ScenarioResult = {
      name: scenario.name,
      file: scenario.file,
      status: 'error',
      started_at: started,
      duration_ms: 0,
      turns: [],
      failures: [{ kind: 'harness_error', turn_index: null, expectation_index: null, event: null, reason }],
      error: reason,
      ...(options.run ? { run: options.run } : {}),
    };
    return { result: options.redactor ? options.redactor.value(result) : result, trace: `${reason}\n` };
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
