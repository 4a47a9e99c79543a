import type { ScenarioResult, ScenarioStatus } from '../results/index.js';
import type { Simulation } from '../scenario/index.js';

/**
 * A simulation over its runs. A persona never says the same thing twice, so
 * `runs: N` (default 1) runs it N times and every run must pass (the success
 * rate must reach `pass_threshold`, 1 unless an old file lowers it). A run that
 * ended in error is neither a pass nor a fail: it is left out of the rate and
 * makes the simulation an error. `--repeat N` replaces `runs:` and turns the
 * sweep into a measurement: the rate is reported and nothing fails.
 */
export interface RunsVerdict {
  /** passed / failed / error, or `measured` under `--repeat`. */
  status: Exclude<ScenarioStatus, 'skipped'> | 'measured';
  runs: number;
  passed_runs: number;
  failed_runs: number;
  error_runs: number;
  /** Passed over completed runs; null when none completed. */
  pass_rate: number | null;
  pass_threshold: number;
}

/** How many runs a simulation gets: `--repeat` when given, else its `runs:`. */
export function runsOf(sim: Pick<Simulation, 'runs'>, repeat?: number): number {
  return repeat !== undefined && repeat >= 1 ? repeat : sim.runs;
}

export function aggregateRuns(
  sim: Pick<Simulation, 'pass_threshold'>,
  results: readonly Pick<ScenarioResult, 'status'>[],
  opts: { measure?: boolean } = {},
): RunsVerdict {
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.filter((r) => r.status === 'failed').length;
  const errors = results.length - passed - failed;
  const completed = passed + failed;
  const rate = completed ? passed / completed : null;
  const base = {
    runs: results.length,
    passed_runs: passed,
    failed_runs: failed,
    error_runs: errors,
    pass_rate: rate,
    pass_threshold: sim.pass_threshold,
  };
  if (opts.measure) return { ...base, status: 'measured' };
  if (errors > 0 || rate === null) return { ...base, status: 'error' };
  return { ...base, status: rate >= sim.pass_threshold ? 'passed' : 'failed' };
}
