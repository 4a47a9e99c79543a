import { basename, join, relative } from 'node:path';
import { UsageError } from '../core/errors.js';
import { formatDiagnostic, loadManifest, ScenarioError, type Manifest } from '../scenario/index.js';
import type { AudioEngineOptions } from '../session/index.js';
import { checkSpawnTemplate, PortAllocator } from '../bots/index.js';
import { defaultOutDir } from './artifacts.js';
import { executeRuns, type RunnerIo, type RunOutcome, type SessionDefaults } from './execute.js';
import { executionOrder, planSuite, type SuitePlan } from './plan.js';
import { runWarnings } from './preflight.js';
import { SpawnedBots, type BotSettings } from './run-one.js';
import { formatShard, parseShard, type ShardSpec } from './shard.js';

export const DEFAULT_SPAWN_TIMEOUT_MS = 60_000;
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;
export const DEFAULT_TERM_TIMEOUT_MS = 5_000;
export const DEFAULT_BOT_HOST = 'localhost';
export const DEFAULT_PYTHON = 'python3';

export interface SuiteOptions extends RunnerIo {
  /** Path of the manifest. */
  manifest: string;
  /** `-p`: only bots whose `bot:` contains this. */
  pattern?: string;
  /** `-s`: only the scenario with this name. */
  scenario?: string;
  /** Overrides the manifest's `concurrency`. */
  concurrency?: number;
  /** Overrides the manifest's `repeat`. */
  repeat?: number;
  /** `I/N` or a parsed spec: run only this shard of the expanded run list. */
  shard?: string | ShardSpec;
  /** Output dir; default `<runs_dir>/<name>` when the manifest sets runs_dir, else `runs/<timestamp>`. */
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
  /** How long a bot may take to exit after eval-cancel (disconnect-bot on protobuf) before SIGTERM (default 10 s, as Pipecat). */
  stopTimeoutMs?: number;
  /** How long after SIGTERM before SIGKILL (default 5 s). */
  termTimeoutMs?: number;
  /** Host the bots are reached on (default `localhost`, as Pipecat). */
  host?: string;
  /** What the program `earshot` in a spawn template runs (default: this package's built CLI). */
  selfCommand?: readonly string[];
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  triggerDisconnect?: boolean;
  session?: Omit<SessionDefaults, 'triggerDisconnect' | 'run' | 'connectTimeoutMs'>;
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
export async function loadSuiteManifest(path: string, options: { allowOutsideRoot?: boolean; cwd?: string } = {}): Promise<Manifest> {
  try {
    return await loadManifest(path, { allowOutsideRoot: options.allowOutsideRoot });
  } catch (err) {
    if (err instanceof ScenarioError) {
      const errors = err.diagnostics.filter((d) => d.severity === 'error');
      throw new UsageError(`invalid manifest:\n${(errors.length ? errors : err.diagnostics).map((d) => formatDiagnostic(d, { cwd: options.cwd })).join('\n')}`);
    }
    throw err;
  }
}

/**
 * `earshot suite`: every (bot, scenario, repeat) of a Pipecat manifest, each
 * against a bot spawned for it on its own free port, `concurrency` at a time.
 * Each result is appended to results.jsonl as its run ends; a signal stops new
 * runs, interrupts the ones in flight, stops every bot and keeps what finished.
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const manifest = await loadSuiteManifest(options.manifest, { allowOutsideRoot: options.allowOutsideRoot, cwd });
  const shard = typeof options.shard === 'string' ? parseShard(options.shard) : options.shard;
  const spawn = options.spawn ?? manifest.spawn;
  const usesBot = checkSpawnTemplate(spawn).has('bot');
  const concurrency = options.concurrency ?? manifest.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`concurrency must be a whole number ≥ 1, got ${concurrency}`);
  const plan = planSuite(manifest, {
    pattern: options.pattern,
    scenario: options.scenario,
    repeat: options.repeat,
    shard,
    botsDir: options.botsDir,
    defaultWithinMs: options.defaultWithinMs,
    allowOutsideRoot: options.allowOutsideRoot,
    cwd,
  });
  const shardText = shard ? formatShard(shard) : undefined;
  const scenarios = [...new Set(plan.runs.flatMap((r) => (r.loaded.kind === 'script' ? [r.loaded] : [])))];
  for (const line of runWarnings(scenarios, { codec: options.session?.codec ?? 'pipecat-eval', botInputRate: options.session?.botInputRate, oneBot: false })) {
    (options.stderr ?? process.stderr).write(`${line}\n`);
  }
  const bots: BotSettings = {
    spawn,
    python: options.python ?? manifest.python ?? DEFAULT_PYTHON,
    usesBot,
    host: options.host ?? DEFAULT_BOT_HOST,
    spawnTimeoutMs: options.spawnTimeoutMs ?? DEFAULT_SPAWN_TIMEOUT_MS,
    stopTimeoutMs: options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
    termTimeoutMs: options.termTimeoutMs ?? DEFAULT_TERM_TIMEOUT_MS,
    ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    ...(options.selfCommand ? { selfCommand: options.selfCommand } : {}),
  };
  const source = new SpawnedBots(bots, new PortAllocator(options.basePort ?? manifest.base_port), plan.repeat, shardText);
  // Last resort: whatever ends this process (an uncaught error, process.exit) takes the bots with it.
  process.on('exit', source.close);
  try {
    const outcome = await executeRuns({
      ...options,
      runs: executionOrder(plan.runs),
      source,
      outDir: options.outDir ?? join(options.runsDir ?? manifest.runs_dir ?? 'runs', options.name ?? basename(defaultOutDir())),
      concurrency,
      title: relative(cwd, manifest.file) || manifest.file,
      shard: shardText,
    });
    return { ...outcome, plan };
  } finally {
    process.off('exit', source.close);
  }
}

/** One line per planned run, for `--list`: what this shard would run. */
export function describePlan(plan: SuitePlan): string[] {
  return plan.runs.map((r) => `${r.bot}\t${r.file}\t#${r.repeat_index}${r.loaded.kind === 'simulation' ? '\t(simulation: skipped)' : ''}`);
}
