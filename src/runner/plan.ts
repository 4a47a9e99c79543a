import { dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import { formatDiagnostic, inspectFile, type Manifest, type ManifestScenarioRef, type Scenario, type Simulation } from '../scenario/index.js';
import { NoRunsError } from './errors.js';
import { selectShard, type ShardSpec } from './shard.js';

/**
 * A manifest expanded into runs: bot × scenario × repeat, in Pipecat's order
 * (repeat-major, so every bot meets the same machine conditions in the same
 * stretch of the sweep), narrowed by `-p`/`-s`, then cut to one shard.
 */

export interface PlannedRun {
  /** Position in the manifest's full expansion (before filters and sharding); keeps artifact names unique across shards. */
  ordinal: number;
  bot: string;
  /** `bot` resolved against `bots_dir`. */
  bot_path: string;
  runner_body?: string;
  /** The manifest entry's `handshake` (earshot), when it sets one. */
  handshake?: 'rtvi' | 'none';
  scenario: ManifestScenarioRef;
  /**
   * The scenario file relative to the manifest's folder, with `/`: the result's `file`.
   * It is the same on every machine that checks the project out, so shards merge.
   */
  file: string;
  /** 0-based. A simulation's `runs` multiplies the repeats. */
  repeat_index: number;
  loaded: Scenario | Simulation;
}

export interface PlanOptions {
  /** `-p`: only bots whose `bot:` contains this. */
  pattern?: string;
  /** `-s`: only scenarios with exactly this name (as listed in the manifest, without `.yaml`). */
  scenario?: string;
  /** `--repeat`: overrides the manifest's `repeat`. */
  repeat?: number;
  shard?: ShardSpec;
  /** `--bots-dir`: overrides the manifest's `bots_dir` (resolved against the working directory). */
  botsDir?: string;
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  /** For shorter paths in error messages. */
  cwd?: string;
}

export interface SuitePlan {
  manifest: Manifest;
  repeat: number;
  /** Every run after `-p`/`-s`, before sharding. */
  all: PlannedRun[];
  /** What this process runs: `all`, or this shard's part of it. */
  runs: PlannedRun[];
  shard?: ShardSpec;
}

/** The identity a shard assignment is keyed on; the same as a result's (file, bot, repeat). */
export function runKey(run: Pick<PlannedRun, 'file' | 'bot' | 'repeat_index'>): string {
  return JSON.stringify([run.file, run.bot, run.repeat_index]);
}

/** Cost estimate for balancing shards: a scenario's turns (a simulation is skipped: free). Machine-independent. */
export function runWeight(run: Pick<PlannedRun, 'loaded'>): number {
  return run.loaded.kind === 'script' ? Math.max(1, run.loaded.turns.length) : 0;
}

/**
 * The order runs start in: repeat by repeat (Pipecat's interleaving), and
 * within a repeat the longest scenarios first (by turns; ties keep manifest
 * order), so a long scenario does not start last and stretch the wall time.
 */
export function executionOrder(runs: readonly PlannedRun[]): PlannedRun[] {
  return [...runs].sort((a, b) => a.repeat_index - b.repeat_index || runWeight(b) - runWeight(a) || a.ordinal - b.ordinal);
}

export function planSuite(manifest: Manifest, options: PlanOptions = {}): SuitePlan {
  const repeat = options.repeat ?? manifest.repeat;
  if (!Number.isInteger(repeat) || repeat < 1) throw new UsageError(`repeat must be a whole number ≥ 1, got ${repeat}`);
  const manifestDir = dirname(manifest.file);
  const loaded = loadAll(manifest, options);

  interface Pair {
    bot: string;
    bot_path: string;
    runner_body?: string;
    handshake?: 'rtvi' | 'none';
    scenario: ManifestScenarioRef;
    loaded: Scenario | Simulation;
    count: number;
  }
  const pairs: Pair[] = manifest.suite.flatMap((entry) =>
    entry.scenarios.map((scenario) => {
      const file = loaded.get(scenario.file)!;
      const pair: Pair = {
        bot: entry.bot,
        bot_path: options.botsDir !== undefined ? resolve(options.botsDir, entry.bot) : entry.bot_path,
        scenario,
        loaded: file,
        count: repeat * (file.kind === 'simulation' ? file.runs : 1),
      };
      if (entry.runner_body !== undefined) pair.runner_body = entry.runner_body;
      if (entry.handshake !== undefined) pair.handshake = entry.handshake;
      return pair;
    }),
  );

  const expanded: PlannedRun[] = [];
  const rounds = Math.max(0, ...pairs.map((p) => p.count));
  for (let repeatIndex = 0; repeatIndex < rounds; repeatIndex++) {
    for (const p of pairs) {
      if (repeatIndex >= p.count) continue;
      const run: PlannedRun = {
        ordinal: expanded.length,
        bot: p.bot,
        bot_path: p.bot_path,
        scenario: p.scenario,
        file: toPosix(relative(manifestDir, p.scenario.file)),
        repeat_index: repeatIndex,
        loaded: p.loaded,
      };
      if (p.runner_body !== undefined) run.runner_body = p.runner_body;
      if (p.handshake !== undefined) run.handshake = p.handshake;
      expanded.push(run);
    }
  }

  const all = expanded.filter(
    (r) =>
      (options.pattern === undefined || r.bot.includes(options.pattern)) &&
      (options.scenario === undefined || r.scenario.name === options.scenario),
  );
  if (all.length === 0) {
    throw new NoRunsError(manifest.file, { pattern: options.pattern, scenario: options.scenario }, {
      bots: [...new Set(manifest.suite.map((e) => e.bot))],
      scenarios: [...new Set(manifest.suite.flatMap((e) => e.scenarios.map((s) => s.name)))],
    });
  }
  const runs = options.shard ? selectShard(all, options.shard.index, options.shard.total, { key: runKey, weight: runWeight }) : all;
  const plan: SuitePlan = { manifest, repeat, all, runs };
  if (options.shard) plan.shard = options.shard;
  return plan;
}

/** Loads every scenario the manifest names once; every problem in one UsageError, located. */
function loadAll(manifest: Manifest, options: PlanOptions): Map<string, Scenario | Simulation> {
  const loaded = new Map<string, Scenario | Simulation>();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const ref of manifest.suite.flatMap((e) => e.scenarios)) {
    if (seen.has(ref.file)) continue;
    seen.add(ref.file);
    const inspection = inspectFile(ref.file, { defaultWithinMs: options.defaultWithinMs, allowOutsideRoot: options.allowOutsideRoot });
    if (inspection.status !== 'loaded') {
      const errors = inspection.diagnostics.filter((d) => d.severity === 'error');
      problems.push(...(errors.length ? errors : inspection.diagnostics).map((d) => formatDiagnostic(d, { cwd: options.cwd })));
    } else if (inspection.loaded.kind === 'manifest') {
      problems.push(`${ref.file}: is a suite manifest, not a scenario (listed as ${JSON.stringify(ref.ref)} in ${manifest.file})`);
    } else {
      loaded.set(ref.file, inspection.loaded);
    }
  }
  if (problems.length) throw new UsageError(`invalid scenarios in ${manifest.file}:\n${problems.join('\n')}`);
  return loaded;
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}
