import { mkdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { monotonicClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import { createReporters, type ScenarioStart } from '../report/index.js';
import type { RunSummary, ScenarioResult } from '../results/index.js';
import { formatDiagnostic, loadManifest, ScenarioError, type Manifest, type Scenario } from '../scenario/index.js';
import { AudioEngine, type AudioEngineOptions, type SessionOptions } from '../session/index.js';
import type { BotProcess } from './bot-process.js';
import { executionOrder, planSuite, type PlannedRun, type SuitePlan } from './plan.js';
import { PortAllocator } from './ports.js';
import { runOne, runStem, skippedSimulation, type BotSettings, type RunContext } from './run-one.js';
import { defaultOutDir, type RunnerIo } from './run-list.js';
import { formatShard, parseShard, type ShardSpec } from './shard.js';
import { checkSpawnTemplate } from './spawn-template.js';

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
  /** How long a bot may take to exit after eval-cancel before SIGTERM (default 10 s, as Pipecat). */
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
  session?: Omit<SessionOptions, 'url' | 'onProgress' | 'signal' | 'stopBot' | 'triggerDisconnect' | 'redactor' | 'clock' | 'env' | 'run' | 'connectTimeoutMs' | 'recordingPath'>;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): one AudioEngine
   * (one pacer) serves every concurrent run; recordings go beside results.jsonl as `<stem>.wav`.
   */
  audio?: AudioEngineOptions;
  cwd?: string;
}

export interface SuiteOutcome {
  outDir: string;
  plan: SuitePlan;
  /** Finished runs, in the order they finished. */
  results: ScenarioResult[];
  summary: RunSummary;
  /** A signal stopped the run before every planned run finished. */
  interrupted: boolean;
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
  const clock = options.clock ?? monotonicClock;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const redactor = new Redactor(env);
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
  // Before anything is written: a bad --tts/--stt is a usage error.
  const engine = options.session?.media ? null : new AudioEngine({ allowCode: options.allowCode, clock, ...options.audio });
  const ports = new PortAllocator(options.basePort ?? manifest.base_port);
  const outDir = options.outDir ?? join(options.runsDir ?? manifest.runs_dir ?? 'runs', options.name ?? basename(defaultOutDir()));
  await mkdir(outDir, { recursive: true });

  const reporters = createReporters(options.reporter ?? 'list', {
    outDir,
    env,
    clock,
    redactor,
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
  });
  const stderr = options.stderr ?? process.stderr;
  const startedAt = new Date().toISOString();
  const t0 = clock.now();
  await reporters.onBegin({
    total: plan.runs.length,
    started_at: startedAt,
    out_dir: outDir,
    title: relative(cwd, manifest.file) || manifest.file,
    concurrency,
    ...(shardText ? { shard: shardText } : {}),
  });

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
  const live = new Set<BotProcess>();
  // Last resort: whatever ends this process (an uncaught error, process.exit) takes the bots with it.
  const killAll = (): void => {
    live.forEach((b) => b.killNow());
    ports.releaseAll();
  };
  process.on('exit', killAll);
  const progress: Promise<void>[] = [];
  const ctx: RunContext = {
    outDir,
    bots,
    ports,
    live,
    session: { ...(engine ? { media: engine.media } : {}), ...options.session, ...(options.allowCode ? { allowCode: true } : {}), ...(options.triggerDisconnect ? { triggerDisconnect: true } : {}) },
    env,
    clock,
    redactor,
    ...(shardText ? { shard: shardText } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.verbose ? { traceEcho: (run: PlannedRun, line: string) => void stderr.write(`[${labelOf(run)}] ${line}\n`) } : {}),
    onStart: (info: ScenarioStart) => reporters.onScenarioStart(info),
    onProgress: (info, p) => {
      if (p.type === 'turn_end') progress.push(reporters.onTurnEnd(info, p.turn, p.failures));
    },
  };

  const results: ScenarioResult[] = [];
  const queue = executionOrder(plan.runs);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!options.signal?.aborted && next < queue.length) {
      const run = queue[next++];
      let result: ScenarioResult | null;
      if (run.loaded.kind === 'simulation') {
        result = skippedSimulation(run, shardText);
        await reporters.onScenarioStart({ name: result.name, file: run.file, bot: run.bot, repeat_index: run.repeat_index, turn_count: 0 });
      } else {
        result = await runOne(run as PlannedRun & { loaded: Scenario }, runStem(run, plan.repeat), ctx);
      }
      if (result === null) continue;
      await Promise.all(progress.splice(0));
      results.push(result);
      await reporters.onScenarioEnd(result);
    }
  };
  let settled: PromiseSettledResult<void>[];
  try {
    // A worker that fails (an earshot fault, not the bot's) stops; the others finish their runs first.
    settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, plan.runs.length) }, worker));
  } finally {
    killAll();
    process.off('exit', killAll);
    await engine?.close();
  }
  const interrupted = options.signal?.aborted === true && results.length < plan.runs.length;
  const summary = await reporters.finish({
    wall_ms: clock.now() - t0,
    started_at: startedAt,
    planned: plan.runs.length,
    interrupted,
    ...(shardText ? { shards: [shardText] } : {}),
  });
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return { outDir, plan, results, summary, interrupted };
}

function labelOf(run: PlannedRun): string {
  return `${run.bot} ${run.scenario.name}#${run.repeat_index}`;
}

/** One line per planned run, for `--list`: what this shard would run. */
export function describePlan(plan: SuitePlan): string[] {
  return plan.runs.map((r) => `${r.bot}\t${r.file}\t#${r.repeat_index}${r.loaded.kind === 'simulation' ? '\t(simulation: skipped)' : ''}`);
}
