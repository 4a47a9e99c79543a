import { mkdir } from 'node:fs/promises';
import type { Clock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import {
  createReporters,
  type Reporter,
  type ReporterSet,
  type ScenarioStart,
  type TerminalStream,
} from '../report/index.js';
import type { RunSummary, ScenarioResult } from '../results/index.js';
import {
  AudioEngine,
  withMedia,
  type AudioEngineOptions,
  type SessionProgress,
  type SessionSettings,
} from '../session/index.js';
import { runPool, type PoolCap, type StartStagger } from './pool.js';
import { systemTimers, type TimerDriver } from '../core/timers.js';

/** Where a run's output goes, and what stops it. */
export interface RunnerStreams {
  stdout?: TerminalStream;
  stderr?: TerminalStream;
  signal?: AbortSignal;
  verbose?: boolean;
  /** Reporters of the caller's own, called after the ones named in `reporter`. */
  reporters?: readonly Reporter[];
}

/** What every runner (`earshot run`, `earshot suite`) takes besides its own inputs. */
export interface RunnerIo extends RunnerStreams {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

/** What a run source is given to run one planned run. */
export interface RunContext {
  outDir: string;
  /** Every session's settings, resolved once for the run (run-config.ts), the run's audio engine in them. */
  settings: SessionSettings;
  redactor: Redactor;
  signal?: AbortSignal;
  /** With `--verbose`: writes one debug trace line to stderr (the source prefixes what it must). */
  echo?: (line: string) => void;
  /** A session's progress, for the reporters' turn hooks. */
  onProgress(info: ScenarioStart, progress: SessionProgress): void;
}

/**
 * How each planned run gets its bot and becomes a result: `earshot run` talks
 * to one running bot, `earshot suite` spawns a bot for each run.
 */
export interface RunSource<T> {
  /** Identifies the run to the reporters as it starts. */
  describe(run: T): ScenarioStart;
  /** Runs it; null when a signal stopped it before it finished (there is nothing to keep). */
  run(run: T, info: ScenarioStart, ctx: RunContext): Promise<ScenarioResult | null>;
  /** Once every run has ended or been stopped, before the summary: whatever the source still holds goes. */
  close?(): void;
}

export interface ExecuteOptions<T> extends RunnerStreams {
  /** The planned runs, in the order they start. */
  runs: readonly T[];
  source: RunSource<T>;
  outDir: string;
  /** Runs at once. */
  concurrency: number;
  /** A run's share of a smaller limit of its own (a suite entry's `concurrency:`). */
  capOf?: (run: T) => PoolCap | undefined;
  /** How fast runs may start (`earshot suite`: bot spawns staggered to the cores); clock and timers are the run's. */
  stagger?: Omit<StartStagger, 'clock' | 'timers'>;
  timers?: TimerDriver;
  reporter?: string;
  /** For headings: a manifest path, or `earshot run`. */
  title: string;
  /** `I/N` when this is one shard of a larger run. */
  shard?: string;
  /** The sessions' settings, resolved once by the runner (run-config.ts). */
  settings: SessionSettings;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): one AudioEngine (one
   * pacer) serves every concurrent run unless the settings carry a media factory; it is closed at the end.
   */
  audio?: AudioEngineOptions;
}

export interface RunOutcome {
  outDir: string;
  /** Finished runs, in the order they finished. */
  results: ScenarioResult[];
  summary: RunSummary;
  /** A signal stopped the run before every planned run finished. */
  interrupted: boolean;
}

/**
 * Runs planned scenario runs, `concurrency` at a time, through the chosen
 * reporters: each result is appended to results.jsonl the moment its run
 * ends; a signal starts no new run, interrupts the ones in flight and keeps
 * what finished; the summary (with wall time and start) is written at the end,
 * also after an earshot fault, which is thrown once everything is closed.
 */
export async function executeRuns<T>(options: ExecuteOptions<T>): Promise<RunOutcome> {
  const { clock, env } = options.settings;
  const redactor = new Redactor(env);
  const { outDir, runs, source } = options;
  const stderr = options.stderr ?? process.stderr;
  let engine: AudioEngine | null = null;
  let reporters: ReporterSet;
  const results: ScenarioResult[] = [];
  let startedAt: string;
  let t0: number;
  let failed: { failure: unknown } | null;
  try {
    // Before anything is written: a bad --tts/--stt is a usage error.
    const { settings } = options;
    engine = settings.media ? null : new AudioEngine({ allowCode: settings.allowCode, clock, ...options.audio });
    await mkdir(outDir, { recursive: true });
    reporters = createReporters(options.reporter ?? 'list', {
      outDir,
      env,
      clock,
      redactor,
      ...(options.reporters ? { extra: options.reporters } : {}),
      ...(options.stdout ? { stdout: options.stdout } : {}),
      ...(options.stderr ? { stderr: options.stderr } : {}),
    });
    startedAt = new Date().toISOString();
    t0 = clock.now();
    await reporters.onBegin({
      total: runs.length,
      started_at: startedAt,
      out_dir: outDir,
      title: options.title,
      concurrency: options.concurrency,
      ...(options.shard ? { shard: options.shard } : {}),
    });
    const progress: Promise<void>[] = [];
    const ctx: RunContext = {
      outDir,
      settings: engine ? withMedia(options.settings, engine.media) : options.settings,
      redactor,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.verbose ? { echo: (line: string) => void stderr.write(`${line}\n`) } : {}),
      onProgress: (info, p) => {
        if (p.type === 'turn_end') progress.push(reporters.onTurnEnd(info, p.turn, p.failures));
      },
    };
    failed = await runPool(
      runs,
      options.concurrency,
      async (run) => {
        const info = source.describe(run);
        await reporters.onScenarioStart(info);
        const result = await source.run(run, info, ctx);
        if (result === null) return;
        await Promise.all(progress.splice(0));
        results.push(result);
        await reporters.onScenarioEnd(result);
      },
      options.signal,
      options.capOf,
      options.stagger ? { ...options.stagger, clock, timers: options.timers ?? systemTimers } : undefined,
    );
  } finally {
    source.close?.();
    await engine?.close();
  }
  const interrupted = options.signal?.aborted === true && results.length < runs.length;
  const summary = await reporters.finish({
    wall_ms: clock.now() - t0,
    started_at: startedAt,
    planned: runs.length,
    interrupted,
    ...(options.shard ? { shards: [options.shard] } : {}),
  });
  if (failed) throw failed.failure;
  return { outDir, results, summary, interrupted };
}
