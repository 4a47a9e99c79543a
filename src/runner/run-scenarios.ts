import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { monotonicClock, type Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import { createReporters, type ReporterSet, type ScenarioStart, type TerminalStream } from '../report/index.js';
import { summarize, type RunSummary, type ScenarioResult } from '../results/index.js';
import { formatDiagnostic, validatePaths, type Scenario } from '../scenario/index.js';
import { AudioEngine, runSession, type AudioEngineOptions, type SessionOptions } from '../session/index.js';

export interface RunListOptions extends RunnerIo {
  paths: readonly string[];
  url: string;
  outDir?: string;
  reporter?: string;
  /** Default `within_ms` for expectations that set none (`--timeout`, seconds × 1000). */
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  session?: Omit<SessionOptions, 'url' | 'onProgress' | 'signal' | 'stopBot' | 'triggerDisconnect' | 'redactor' | 'clock' | 'env' | 'recordingPath'>;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): the run makes one
   * AudioEngine from them (unless `session.media` is given) and closes it at the end. Recordings go
   * beside results.jsonl as `<stem>.wav`.
   */
  audio?: AudioEngineOptions;
}

/** What every runner (`earshot run`'s list, `earshot suite`) takes besides its own inputs. */
export interface RunnerIo {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  stdout?: TerminalStream;
  stderr?: TerminalStream;
  signal?: AbortSignal;
  verbose?: boolean;
}

export interface RunListOutcome {
  outDir: string;
  results: ScenarioResult[];
  summary: RunSummary;
  /** True when a signal stopped the run before every scenario ran. */
  interrupted: boolean;
}

/** `runs/2026-11-30T22-45-01` — sortable, filesystem-safe. */
export function defaultOutDir(now = new Date()): string {
  return join('runs', now.toISOString().slice(0, 19).replace(/:/g, '-'));
}

/** A file name for a scenario's artifacts: its name, made safe, with the run's ordinal to keep it unique. */
export function artifactStem(name: string, ordinal: number): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'scenario';
  return `${String(ordinal + 1).padStart(3, '0')}-${safe}`;
}

/** Loads scenario files, throwing one UsageError that lists every located problem. */
export function loadScenarios(paths: readonly string[], opts: { defaultWithinMs?: number; allowOutsideRoot?: boolean; cwd?: string }): Scenario[] {
  const checked = validatePaths(paths, { defaultWithinMs: opts.defaultWithinMs, allowOutsideRoot: opts.allowOutsideRoot });
  const problems: string[] = [];
  const scenarios: Scenario[] = [];
  for (const file of checked) {
    if (file.status === 'invalid') {
      problems.push(...file.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, { cwd: opts.cwd })));
    } else if (file.status === 'valid' && file.loaded) {
      if (file.loaded.kind === 'script') scenarios.push(file.loaded);
      else if (file.loaded.kind === 'manifest') problems.push(`${file.file}: is a suite manifest; run it with \`earshot suite ${file.file}\``);
      else problems.push(`${file.file}: is a simulation (persona:); simulations run with \`earshot suite\` or a later \`earshot simulate\``);
    }
  }
  if (problems.length) throw new UsageError(`invalid scenario input:\n${problems.join('\n')}`);
  if (!scenarios.length) throw new UsageError(`no scenarios found in ${paths.join(', ')}`);
  return scenarios;
}

/**
 * `earshot run`: scenarios one after another against one running bot. Each
 * result is appended to results.jsonl the moment its scenario ends; a signal
 * stops the run between (or inside) scenarios and keeps what is finished.
 */
export async function runList(options: RunListOptions): Promise<RunListOutcome> {
  const clock = options.clock ?? monotonicClock;
  const env = options.env ?? process.env;
  const redactor = new Redactor(env);
  const scenarios = loadScenarios(options.paths, options);
  // Before anything is written: a bad --tts/--stt is a usage error.
  const engine = options.session?.media ? null : new AudioEngine({ allowCode: options.allowCode, clock, ...options.audio });
  const outDir = options.outDir ?? defaultOutDir();
  await mkdir(outDir, { recursive: true });
  const reporters: ReporterSet = createReporters(options.reporter ?? 'list', {
    outDir,
    env,
    clock,
    redactor,
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
  });
  await reporters.onBegin({ total: scenarios.length, started_at: new Date().toISOString(), out_dir: outDir, title: 'earshot run' });
  const results: ScenarioResult[] = [];
  let interrupted = false;
  try {
    for (const [ordinal, scenario] of scenarios.entries()) {
      if (options.signal?.aborted) {
        interrupted = true;
        break;
      }
      const start: ScenarioStart = { name: scenario.name, file: scenario.file, turn_count: scenario.turns.length };
      await reporters.onScenarioStart(start);
      const progress: Promise<void>[] = [];
      const stem = artifactStem(scenario.name, ordinal);
      let outcome;
      try {
        outcome = await runSession(scenario, {
          ...(engine ? { media: engine.media } : {}),
          ...options.session,
          recordingPath: join(outDir, `${stem}.wav`),
          url: options.url,
          stopBot: options.stopBot,
          triggerDisconnect: options.triggerDisconnect,
          redactor,
          clock,
          env,
          signal: options.signal,
          ...(options.verbose ? { traceEcho: (line: string) => void (options.stderr ?? process.stderr).write(`${line}\n`) } : {}),
          onProgress: (p) => {
            if (p.type === 'turn_end') progress.push(reporters.onTurnEnd(start, p.turn, p.failures));
          },
          allowCode: options.allowCode,
        });
      } catch (err) {
        if (options.signal?.aborted) {
          interrupted = true;
          break;
        }
        throw err;
      }
      await Promise.all(progress);
      const traceFile = join(outDir, `${stem}.trace.log`);
      await writeFile(traceFile, outcome.trace);
      const result: ScenarioResult = {
        ...outcome.result,
        artifacts: {
          ...outcome.result.artifacts,
          trace: relative(outDir, traceFile),
          ...(outcome.recording ? { recording: relative(outDir, outcome.recording) } : {}),
        },
      };
      results.push(result);
      await reporters.onScenarioEnd(result);
    }
  } finally {
    await engine?.close();
  }
  const summary = summarize(results, { planned: scenarios.length, interrupted });
  await reporters.onEnd(summary);
  return { outDir, results, summary, interrupted };
}
