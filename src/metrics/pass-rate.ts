/**
 * Per-turn pass rates over repeated runs of one scenario (`earshot bench`).
 *
 * Every run counts for every turn: a turn a run never reached (an earlier turn
 * failed and the scenario stopped, or the run errored) counts as `not_run`, and
 * `pass_rate` = passed / runs, the fraction of runs in which that turn passed —
 * what a user who reruns the scenario can expect of it. A run in which the turn
 * was `inconclusive` (earshot could not hear the bot reliably) says nothing
 * either way and is left out: passed / (runs − inconclusive).
 */

/** Structurally a results `TurnResult`: its index and status. */
export interface TurnOutcomeInput {
  readonly index: number;
  readonly status: string;
}

export interface TurnPassRate {
  turn_index: number;
  runs: number;
  passed: number;
  failed: number;
  inconclusive: number;
  not_run: number;
  /** passed / (runs − inconclusive), rounded to 4 decimals; 0 when no run was conclusive. */
  pass_rate: number;
}

/** One row per turn index seen in any run (0 … highest), in index order. */
export function turnPassRates(runs: ReadonlyArray<ReadonlyArray<TurnOutcomeInput>>): TurnPassRate[] {
  let turns = 0;
  for (const run of runs)
    for (const t of run) if (Number.isInteger(t.index) && t.index >= 0) turns = Math.max(turns, t.index + 1);
  const rows: TurnPassRate[] = Array.from({ length: turns }, (_, i) => ({
    turn_index: i,
    runs: runs.length,
    passed: 0,
    failed: 0,
    inconclusive: 0,
    not_run: 0,
    pass_rate: 0,
  }));
  for (const run of runs) {
    const status = new Map<number, string>();
    for (const t of run) status.set(t.index, t.status);
    for (const row of rows) {
      const s = status.get(row.turn_index);
      if (s === 'passed') row.passed++;
      else if (s === 'failed') row.failed++;
      else if (s === 'inconclusive') row.inconclusive++;
      else row.not_run++;
    }
  }
  for (const row of rows) {
    const rated = row.runs - row.inconclusive;
    row.pass_rate = rated === 0 ? 0 : Math.round((row.passed / rated) * 10_000) / 10_000;
  }
  return rows;
}
