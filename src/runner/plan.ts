import { dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import {
  expandManifest,
  formatDiagnostic,
  type Diagnostic,
  type Manifest,
  type ManifestExpansion,
  type ManifestScenarioRef,
  type Runnable,
} from '../scenario/index.js';
import { NoRunsError } from './errors.js';
import { scenarioMatches } from './preflight.js';
import { describeFilter, matchesFilter, type RunnableFilter } from './select.js';
import { selectShard, type ShardSpec } from './shard.js';

/**
 * A manifest expanded into runs: entry × every scenario of each file it names
 * × repeat, in Pipecat's order (repeat-major, so every bot meets the same
 * machine conditions in the same stretch of the sweep), narrowed by
 * `-p`/`-s`/`-k`, then cut to one shard.
 */

export interface PlannedRun {
  /**
   * Position in the manifest's full expansion (before filters and sharding); keeps artifact names unique across shards.
   */
  ordinal: number;
  /** The entry's `bot:` as written. */
  bot: string;
  /**
   * The entry's label (`name:`, default `bot`): what results, `-p`, artifact names and the entry's own concurrency key
   * on.
   */
  label: string;
  /** `bot` resolved against `bots_dir`. */
  bot_path: string;
  runner_body?: string;
  /** The manifest entry's `handshake` (earshot), when it sets one. */
  handshake?: 'rtvi' | 'none';
  /** The entry's runner body given inline (`runner_body: {data}`), written to a file for the bot. */
  runner_body_data?: Record<string, unknown>;
  /** The entry's own cap on its runs at once (`concurrency:` on the entry). */
  concurrency?: number;
  /** The manifest's reference to the scenario's file. */
  scenario: ManifestScenarioRef;
  /** The scenario's name, `<file name>/<scenario name>`: the result's `name`. */
  id: string;
  /**
   * The scenario file relative to the manifest's folder, with `/`: the result's `file`.
   * It is the same on every machine that checks the project out, so shards merge.
   */
  file: string;
  /** 0-based. A simulation runs its `runs:` times unless a repeat is set. */
  repeat_index: number;
  loaded: Runnable;
}

export type ScenarioKind = Runnable['kind'];

export interface PlanOptions {
  /** `-p`: only entries whose label (`name:`) or `bot:` contains this. */
  pattern?: string;
  /**
   * `-s`: only this scenario: its `<file>/<scenario>` name, either half of it, the manifest's name for its file, or a
   * glob (see `scenarioMatches`).
   */
  scenario?: string;
  /** `-k`: only scenarios of this kind. */
  kind?: ScenarioKind;
  /** `--category` / `--severity` (earshot extensions, GAIA's fields). */
  filter?: RunnableFilter;
  /** `--repeat`: overrides the manifest's `repeat`. */
  repeat?: number;
  shard?: ShardSpec;
  /** `--bots-dir`: overrides the manifest's `bots_dir` (resolved against the working directory). */
  botsDir?: string;
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  /** `--corpus`: the GAIA corpus manifest for every GAIA file (default: the nearest one, per file). */
  corpus?: string;
  /** `--strict`: a scenario file with any warning does not load. */
  strict?: boolean;
  /** For shorter paths in error messages. */
  cwd?: string;
}

export interface SuitePlan {
  manifest: Manifest;
  repeat: number;
  /** Every run after `-p`/`-s`/`-k`, before sharding. */
  all: PlannedRun[];
  /** What this process runs: `all`, or this shard's part of it. */
  runs: PlannedRun[];
  shard?: ShardSpec;
  /** The manifest's and its scenario files' warnings, each once: printed before the suite starts. */
  warnings: Diagnostic[];
}

/** The identity a shard assignment is keyed on; the same as a result's (file, name, bot label, repeat). */
export function runKey(run: Pick<PlannedRun, 'file' | 'id' | 'label' | 'repeat_index'>): string {
  return JSON.stringify([run.file, run.id, run.label, run.repeat_index]);
}

/**
 * A simulation's turns for the estimate: its caller usually hangs up well
 * before `max_turns` (20 by default), so the cap counts for at most this many.
 */
export const SIMULATION_WEIGHT_TURNS = 6;

/**
 * Cost estimate for balancing shards: a scenario's turns; a simulation's `max_turns`, capped (SIMULATION_WEIGHT_TURNS).
 * Machine-independent.
 */
export function runWeight(run: Pick<PlannedRun, 'loaded'>): number {
  return run.loaded.kind === 'script'
    ? Math.max(1, run.loaded.turns.length)
    : Math.max(1, Math.min(run.loaded.max_turns, SIMULATION_WEIGHT_TURNS));
}

/** What an earlier run's duration is remembered by: the run without its repeat (every repeat takes about as long). */
export function durationKey(run: Pick<PlannedRun, 'file' | 'id' | 'label'>): string {
  return JSON.stringify([run.file, run.id, run.label]);
}

/** Milliseconds an earlier run of each `durationKey` took (durations.ts reads them from earlier results). */
export type KnownDurations = ReadonlyMap<string, number>;

/**
 * How long each run is expected to take: its earlier duration when known;
 * otherwise its turns × the median milliseconds per turn of the runs that are
 * known (a new scenario of ten turns is likely long); with nothing known, its
 * turns alone (the order is all that matters).
 */
export function expectedDurations(runs: readonly PlannedRun[], known: KnownDurations = new Map()): number[] {
  const perTurn = runs
    .flatMap((r) => {
      const ms = known.get(durationKey(r));
      return ms !== undefined && runWeight(r) > 0 ? [ms / runWeight(r)] : [];
    })
    .sort((a, b) => a - b);
  const msPerTurn = perTurn.length > 0 ? perTurn[Math.floor(perTurn.length / 2)] : 1;
  return runs.map((r) => known.get(durationKey(r)) ?? runWeight(r) * msPerTurn);
}

/**
 * The order runs start in: repeat by repeat (Pipecat's interleaving), and
 * within a repeat the longest first (by earlier durations where known, else
 * by turns; ties keep manifest order), so a long scenario does not start last
 * and stretch the wall time (as Jest orders test files by earlier timings).
 */
export function executionOrder(runs: readonly PlannedRun[], known?: KnownDurations): PlannedRun[] {
  const expected = expectedDurations(runs, known);
  const at = new Map(runs.map((r, i) => [r, expected[i]]));
  return [...runs].sort((a, b) => a.repeat_index - b.repeat_index || at.get(b)! - at.get(a)! || a.ordinal - b.ordinal);
}

type Pair = Omit<PlannedRun, 'ordinal' | 'repeat_index'> & { count: number };

export function planSuite(manifest: Manifest, options: PlanOptions = {}): SuitePlan {
  const repeat = options.repeat ?? manifest.repeat;
  if (!Number.isInteger(repeat) || repeat < 1) {
    throw new UsageError(`repeat must be a whole number ≥ 1, got ${repeat}`);
  }
  // Pipecat: a repeat set anywhere (flag or manifest), 1 included, replaces a simulation's own `runs:`.
  const repeatGiven = options.repeat !== undefined || manifest.locations.repeat !== undefined;
  const expansion = expandManifest(manifest, {
    defaultWithinMs: options.defaultWithinMs,
    allowOutsideRoot: options.allowOutsideRoot,
    strict: options.strict,
    ...(options.corpus !== undefined ? { corpus: options.corpus } : {}),
    // Every entry's GAIA files share one read of their corpus manifest.
    corpusCache: new Map(),
  });
  refuseBroken(expansion, options.cwd);
  const manifestDir = dirname(manifest.file);

  const pairs: Pair[] = expansion.entries.flatMap(({ entry, scenarios }) =>
    scenarios.map(({ ref, id, scenario }): Pair => {
      const loaded = scenario as Runnable; // every scenario loaded: refuseBroken passed
      const pair: Pair = {
        bot: entry.bot,
        label: entry.name,
        bot_path: options.botsDir !== undefined ? resolve(options.botsDir, entry.bot) : entry.bot_path,
        scenario: ref,
        id,
        file: toPosix(relative(manifestDir, ref.file)),
        loaded,
        count: loaded.kind === 'simulation' && !repeatGiven ? loaded.runs : repeat,
      };
      if (entry.runner_body !== undefined) pair.runner_body = entry.runner_body;
      if (entry.handshake !== undefined) pair.handshake = entry.handshake;
      if (entry.runner_body_data !== undefined) pair.runner_body_data = entry.runner_body_data;
      if (entry.concurrency !== undefined) pair.concurrency = entry.concurrency;
      return pair;
    }),
  );

  const expanded: PlannedRun[] = [];
  const rounds = Math.max(0, ...pairs.map((p) => p.count));
  for (let repeatIndex = 0; repeatIndex < rounds; repeatIndex++) {
    for (const { count, ...p } of pairs) {
      if (repeatIndex < count) expanded.push({ ...p, ordinal: expanded.length, repeat_index: repeatIndex });
    }
  }

  const all = expanded.filter(
    (r) =>
      (options.pattern === undefined || r.label.includes(options.pattern) || r.bot.includes(options.pattern)) &&
      (options.scenario === undefined || scenarioMatches(options.scenario, r.id, r.scenario)) &&
      (options.kind === undefined || r.loaded.kind === options.kind) &&
      (options.filter === undefined || matchesFilter(r.loaded, options.filter)),
  );
  if (all.length === 0) {
    const selection = options.filter ? describeFilter(options.filter) : undefined;
    throw new NoRunsError(
      manifest.file,
      { pattern: options.pattern, scenario: options.scenario, kind: options.kind, ...(selection ? { selection } : {}) },
      {
        bots: [...new Set(pairs.map((p) => p.label))],
        scenarios: [...new Set(pairs.map((p) => `${p.id}${p.loaded.kind === 'simulation' ? ' (simulation)' : ''}`))],
      },
    );
  }
  const runs = options.shard
    ? selectShard(all, options.shard.index, options.shard.total, { key: runKey, weight: runWeight })
    : all;
  const warnings = [
    ...manifest.warnings,
    ...[...expansion.files.values()].flatMap((r) => (r.status === 'loaded' ? (r.scenario_file?.warnings ?? []) : [])),
  ];
  const plan: SuitePlan = { manifest, repeat, all, runs, warnings };
  if (options.shard) plan.shard = options.shard;
  return plan;
}

/**
 * Refuses the suite before anything runs when a named file does not load, is
 * not a scenario file, or a label runs one scenario twice: every problem in
 * one UsageError, located (the manifest's lines, then each file's own errors).
 */
function refuseBroken(expansion: ManifestExpansion, cwd?: string): void {
  if (expansion.diagnostics.length === 0) return;
  const own = [...expansion.files.values()].flatMap((r) =>
    r.status === 'loaded' ? [] : r.diagnostics.filter((d) => d.severity === 'error'),
  );
  const lines = [...new Set([...expansion.diagnostics, ...own].map((d) => formatDiagnostic(d, { cwd })))];
  throw new UsageError(`invalid scenarios in ${expansion.manifest.file}:\n${lines.join('\n')}`);
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}
