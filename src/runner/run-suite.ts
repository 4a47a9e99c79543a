import { availableParallelism } from 'node:os';
import { basename, join, relative } from 'node:path';
import { UsageError } from '../core/errors.js';
import { formatDiagnostic, loadManifest, ScenarioError, type Manifest } from '../scenario/index.js';
import type { AudioEngineOptions, SessionSettingsOptions } from '../session/index.js';
import { checkSpawnTemplate, PortAllocator } from '../bots/index.js';
import { defaultOutDir } from './artifacts.js';
import { executeRuns, type RunnerIo, type RunOutcome } from './execute.js';
import {
  executionOrder,
  planSuite,
  type KnownDurations,
  type PlannedRun,
  type ScenarioKind,
  type SuitePlan,
} from './plan.js';
import { previousDurations } from './durations.js';
import type { PoolCap } from './pool.js';
import { printWarnings, refuseUnrunnable, replacedBlocks, runWarnings } from './preflight.js';
import { resolveRunSettings } from './run-config.js';
import { refuseDocuments } from './documents-file.js';
import { SpawnedBots, type BotSettings } from './run-one.js';
import type { RunnableFilter } from './select.js';
import { formatShard, parseShard, type ShardSpec } from './shard.js';

export const DEFAULT_SPAWN_TIMEOUT_MS = 60_000;
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;
export const DEFAULT_TERM_TIMEOUT_MS = 5_000;
export const DEFAULT_BOT_HOST = 'localhost';
export const DEFAULT_PYTHON = 'python3';
/**
 * Bot spawns start at most one per core per this interval: about the CPU a
 * reference bot spends starting (~250 ms, docs/benchmarks.md), so a wave of
 * spawns queues for the cores instead of slowing every bot down at once.
 */
export const DEFAULT_SPAWN_STAGGER_MS = 250;

export interface SuiteOptions extends RunnerIo {
  /** Path of the manifest. */
  manifest: string;
  /** `-p`: only bots whose `bot:` contains this. */
  pattern?: string;
  /**
   * `-s`: only this scenario: its `<file>/<scenario>` name, either half of it, the manifest's name for its file, or a
   * glob.
   */
  scenario?: string;
  /** `-k`: only scenarios of this kind (`script` or `simulation`). */
  kind?: ScenarioKind;
  /** `--scenarios-dir`: overrides the manifest's `scenarios_dir` (resolved against the working directory). */
  scenariosDir?: string;
  /** `--strict`: every warning of the manifest and its scenario files is an error, and nothing runs. */
  strict?: boolean;
  /**
   * `--judge openai:MODEL[@URL]` / `--judge ollama:MODEL`: replaces every scenario's judge (so a
   * Python `factory:` judge is no obstacle).
   */
  judge?: string;
  /**
   * `--simulator openai:MODEL[@URL]` / `ollama:MODEL[@URL]`: the caller's LLM in place of every simulation's
   * `simulator:`.
   */
  simulator?: string;
  /** `--category` / `--severity` (earshot extensions, GAIA's fields): only the scenarios that match. */
  filter?: RunnableFilter;
  /** Overrides the manifest's `concurrency`. */
  concurrency?: number;
  /** Overrides the manifest's `repeat`. */
  repeat?: number;
  /** `I/N` or a parsed spec: run only this shard of the expanded run list. */
  shard?: string | ShardSpec;
  /** Output dir (not with `name` or `runsDir`); default `<runs_dir>/<name>`, runs_dir defaulting to `runs`. */
  outDir?: string;
  /** Name of the run's folder under runs_dir (default a timestamp). */
  name?: string;
  /** Overrides the manifest's `runs_dir` (resolved against the working directory). */
  runsDir?: string;
  reporter?: string;
  spawn?: string;
  python?: string;
  basePort?: number;
  botsDir?: string;
  /** How long a bot may take to accept connections (default 60 s: Python bots load models). */
  spawnTimeoutMs?: number;
  /** WebSocket connect budget once the port accepts connections (the session's default when unset). */
  connectTimeoutMs?: number;
  /**
   * How long a bot may take to exit after eval-cancel (disconnect-bot on protobuf) before SIGTERM (default 10 s, as
   * Pipecat).
   */
  stopTimeoutMs?: number;
  /** How long after SIGTERM before SIGKILL (default 5 s). */
  termTimeoutMs?: number;
  /** Bot spawns per core per this many ms at most (default DEFAULT_SPAWN_STAGGER_MS; 0: all at once). */
  spawnStaggerMs?: number;
  /**
   * Order the runs longest first by this run's earlier durations (default: read from earlier results beside the output
   * folder; an empty map: by turns).
   */
  knownDurations?: KnownDurations;
  /** Host the bots are reached on (default `localhost`, as Pipecat). */
  host?: string;
  /** What the program `earshot` in a spawn template runs (default: this package's built CLI). */
  selfCommand?: readonly string[];
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  /** `--corpus`: the GAIA corpus manifest for every GAIA file (default: the nearest one, per file). */
  corpus?: string;
  allowCode?: boolean;
  triggerDisconnect?: boolean;
  /**
   * What every session shares (wire, timeouts, media...); the flags above win over it, and `connectTimeoutMs`
   * above is the suite's.
   */
  session?: SessionSettingsOptions;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): one AudioEngine
   * (one pacer) serves every concurrent run; recordings go beside results.jsonl as `<stem>.wav`.
   */
  audio?: AudioEngineOptions;
  cwd?: string;
}

export interface SuiteOutcome extends RunOutcome {
  plan: SuitePlan;
}

/** Loads a manifest; its located problems become one usage error (exit 2). */
export async function loadSuiteManifest(
  path: string,
  options: { allowOutsideRoot?: boolean; cwd?: string; strict?: boolean; scenariosDir?: string } = {},
): Promise<Manifest> {
  try {
    return await loadManifest(path, {
      allowOutsideRoot: options.allowOutsideRoot,
      strict: options.strict,
      ...(options.scenariosDir !== undefined ? { scenariosDir: options.scenariosDir } : {}),
    });
  } catch (err) {
    if (err instanceof ScenarioError) {
      const errors = err.diagnostics.filter((d) => d.severity === 'error');
      const shown = (errors.length ? errors : err.diagnostics).map((d) => formatDiagnostic(d, { cwd: options.cwd }));
      throw new UsageError(`invalid manifest:\n${shown.join('\n')}`);
    }
    throw err;
  }
}

/**
 * A manifest loaded and planned with the options' filters, overrides and
 * shard, as `runSuite` would run it (what `earshot suite --list` prints);
 * every problem is a usage error. Prints nothing.
 */
export async function prepareSuite(options: SuiteOptions): Promise<SuitePlan> {
  const cwd = options.cwd ?? process.cwd();
  if (options.outDir !== undefined && (options.name !== undefined || options.runsDir !== undefined)) {
    throw new UsageError(
      '--out names the output folder itself; give it, or -n/--runs-dir (<runs_dir>/<name>), not both',
    );
  }
  const manifest = await loadSuiteManifest(options.manifest, {
    allowOutsideRoot: options.allowOutsideRoot,
    cwd,
    strict: options.strict,
    scenariosDir: options.scenariosDir,
  });
  const shard = typeof options.shard === 'string' ? parseShard(options.shard) : options.shard;
  return planSuite(manifest, {
    pattern: options.pattern,
    scenario: options.scenario,
    kind: options.kind,
    ...(options.filter ? { filter: options.filter } : {}),
    repeat: options.repeat,
    shard,
    botsDir: options.botsDir,
    defaultWithinMs: options.defaultWithinMs,
    allowOutsideRoot: options.allowOutsideRoot,
    ...(options.corpus !== undefined ? { corpus: options.corpus } : {}),
    strict: options.strict,
    cwd,
  });
}

/**
 * `earshot suite`: every (entry, scenario, repeat) of a Pipecat manifest,
 * every scenario of each file it names, each against a bot spawned for it on
 * its own free port, `concurrency` at a time (an entry's own `concurrency:`
 * caps its runs below that). The manifest's and files' warnings, and the
 * run's own (a speech rate the bot does not take), are printed first; a
 * Python `factory:` no flag replaces refuses the suite before any bot starts.
 * Each result is appended to results.jsonl as its run ends; a signal
 * stops new runs, interrupts the ones in flight, stops every bot and keeps
 * what finished.
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const plan = await prepareSuite(options);
  const { manifest, shard } = plan;
  const runnables = [...new Set(plan.runs.map((r) => r.loaded))];
  // A bot is spawned ready to connect: the suite's own connect budget, the session's default when unset.
  const spawn = options.spawn ?? manifest.spawn;
  const placeholders = checkSpawnTemplate(spawn);
  const usesBot = placeholders.has('bot');
  // A spawn: that names {documents} hands every bot its scenario's documents: no other way is needed.
  const documentsVia =
    options.session?.documentsVia ?? (placeholders.has('documents') ? ('spawn' as const) : undefined);
  const settings = resolveRunSettings(options, {
    connectTimeoutMs: options.connectTimeoutMs,
    ...(documentsVia ? { documentsVia } : {}),
  });
  const warnings = runWarnings(runnables, settings, { oneBot: false, cwd });
  printWarnings(plan.warnings, options.stderr ?? process.stderr, cwd, warnings);
  refuseUnrunnable(runnables, replacedBlocks(settings, options.audio), cwd);
  refuseDocuments(runnables, settings, placeholders.has('documents'), cwd);
  const concurrency = options.concurrency ?? manifest.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError(`concurrency must be a whole number ≥ 1, got ${concurrency}`);
  const shardText = shard ? formatShard(shard) : undefined;
  const bots: BotSettings = {
    spawn,
    python: options.python ?? manifest.python ?? DEFAULT_PYTHON,
    usesBot,
    host: options.host ?? DEFAULT_BOT_HOST,
    spawnTimeoutMs: options.spawnTimeoutMs ?? DEFAULT_SPAWN_TIMEOUT_MS,
    stopTimeoutMs: options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
    termTimeoutMs: options.termTimeoutMs ?? DEFAULT_TERM_TIMEOUT_MS,
    ...(options.selfCommand ? { selfCommand: options.selfCommand } : {}),
  };
  const source = new SpawnedBots(
    bots,
    new PortAllocator(options.basePort ?? manifest.base_port),
    plan.repeat,
    shardText,
  );
  // A manifest's `record:` when written; `--record`/`--no-record`/`-a` win.
  const record = options.audio?.record ?? (manifest.locations.record !== undefined ? manifest.record : undefined);
  // Last resort: whatever ends this process (an uncaught error, process.exit) takes the bots with it.
  process.on('exit', source.close);
  const outDir =
    options.outDir ?? join(options.runsDir ?? manifest.runs_dir ?? 'runs', options.name ?? basename(defaultOutDir()));
  // Read before this run writes its own results.jsonl over a rerun's folder.
  const known = options.knownDurations ?? previousDurations(outDir);
  const staggerMs = options.spawnStaggerMs ?? DEFAULT_SPAWN_STAGGER_MS;
  try {
    const outcome = await executeRuns({
      ...options,
      runs: executionOrder(plan.runs, known),
      source,
      outDir,
      concurrency,
      ...(staggerMs > 0 ? { stagger: { burst: availableParallelism(), intervalMs: staggerMs } } : {}),
      capOf: entryCaps(plan.runs),
      title: relative(cwd, manifest.file) || manifest.file,
      shard: shardText,
      audio: { ...options.audio, ...(record !== undefined ? { record } : {}) },
      settings,
    });
    return { ...outcome, plan };
  } finally {
    process.off('exit', source.close);
  }
}

/**
 * An entry's own `concurrency:` caps the runs under its label; a label listed twice keeps the lower cap, as Pipecat.
 */
function entryCaps(runs: readonly PlannedRun[]): (run: PlannedRun) => PoolCap | undefined {
  const caps = new Map<string, number>();
  for (const r of runs)
    if (r.concurrency !== undefined) caps.set(r.label, Math.min(caps.get(r.label) ?? r.concurrency, r.concurrency));
  return (run) => {
    const limit = caps.get(run.label);
    return limit === undefined ? undefined : { key: run.label, limit };
  };
}

/** One line per planned run, for `--list`: what this shard would run (label, scenario, file, repeat). */
export function describePlan(plan: SuitePlan): string[] {
  return plan.runs.map(
    (r) =>
      `${r.label}\t${r.id}\t${r.file}\t#${r.repeat_index}${r.loaded.kind === 'simulation' ? '\t(simulation)' : ''}`,
  );
}
