import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { UsageError } from '../../core/errors.js';
import { Redactor } from '../../core/redact.js';
import type { TerminalStream } from '../../report/index.js';
import type { ScenarioResult } from '../../results/index.js';
import type { Runnable, Scenario } from '../../scenario/index.js';
import { runSession } from '../../drivers/index.js';
import {
  AudioEngine,
  sessionConfig,
  withMedia,
  type AudioEngineOptions,
  type SessionSettings,
  type SessionSettingsOptions,
} from '../../session/index.js';
import { summarizeBench, type BenchReport, type BenchRun } from './report.js';
import { bargeInTurnIndex, NoBargeInTurnError, sweepOffsets, withInterruptOffset, type SweepRange } from './sweep.js';
import { withConditionLevel, type ConditionSweep } from './condition-sweep.js';
import {
  artifactStem,
  loadRunnables,
  printWarnings,
  refuseUnrunnable,
  replacedBlocks,
  resolveRunSettings,
  runPool,
  scenarioMatches,
} from '../../runner/index.js';

/**
 * `earshot bench`: each scripted scenario of a file run `repeat` times against
 * a running bot, `concurrency` sessions at a time, each its own connection;
 * the per-turn metrics of every run summarized as distributions (report.ts),
 * one report per scenario. With a sweep, each scenario's barge-in turn runs
 * `repeat` times at each interrupt offset of the range instead.
 */
export interface BenchOptions {
  /** One scenario file. */
  path: string;
  /**
   * `-s`: only this scenario of the file (its `<file>/<scenario>` name, either half, or a glob); default every scripted
   * one.
   */
  scenario?: string;
  url: string;
  /** Runs (per offset with a sweep). Default 10. */
  repeat?: number;
  /** Sessions at a time. Default 1. */
  concurrency?: number;
  sweep?: SweepRange;
  /** `--sweep-condition`: each scenario at every level of one channel condition. */
  conditionSweep?: ConditionSweep;
  /** Keep results.jsonl, traces and recordings here (none are written without it). */
  outDir?: string;
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  /** `--strict`: every warning of the file is an error, and nothing runs. */
  strict?: boolean;
  /** `--judge`: replaces the scenario's judge; given to each session as `judgeOverride`. */
  judge?: string;
  /** What every session shares (wire, timeouts, media...); the flags above win over it. */
  session?: SessionSettingsOptions;
  audio?: AudioEngineOptions;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  signal?: AbortSignal;
  /** Where the file's warnings are printed before the first run (default stderr). */
  stderr?: TerminalStream;
  /** One line per finished run. */
  onProgress?: (line: string) => void;
  cwd?: string;
}

export interface BenchOutcome {
  /** One report per scenario benched, in file order. */
  reports: BenchReport[];
  /** Every run's result, scenario by scenario, in start order. */
  results: ScenarioResult[];
  /** A signal stopped the bench before every run finished; the reports cover the finished ones. */
  interrupted: boolean;
}

export const DEFAULT_BENCH_REPEAT = 10;

export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const settings = resolveRunSettings(options);
  const { clock, env } = settings;
  const cwd = options.cwd ?? process.cwd();
  const repeat = options.repeat ?? DEFAULT_BENCH_REPEAT;
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new UsageError(`--repeat must be a whole number ≥ 1, got ${repeat}`);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError(`--concurrency must be a whole number ≥ 1, got ${concurrency}`);
  const scenarios = benchedScenarios(options, settings, cwd);
  // Every plan first: a scenario without a barge-in turn refuses the sweep before anything connects.
  if (options.sweep && options.conditionSweep)
    throw new UsageError('--sweep-interrupt and --sweep-condition sweep one thing each: give one');
  const plans = scenarios.map((scenario) => ({
    scenario,
    plan: options.conditionSweep
      ? planConditionRuns(scenario, repeat, options.conditionSweep)
      : planRuns(scenario, repeat, options.sweep),
  }));
  const engine = settings.media ? null : new AudioEngine({ allowCode: settings.allowCode, clock, ...options.audio });
  const shared = engine ? withMedia(settings, engine.media) : settings;
  if (options.outDir) await mkdir(options.outDir, { recursive: true });
  const redactor = new Redactor(env);
  const reports: BenchReport[] = [];
  const results: ScenarioResult[] = [];
  let interrupted = false;
  const total = plans.reduce((n, p) => n + p.plan.runs.length, 0);
  let finished = 0;
  let stem0 = 0;

  try {
    for (const { scenario, plan } of plans) {
      if (options.signal?.aborted) break;
      const runs: BenchRun[] = [];
      const started = clock.now();
      const first = stem0;
      const work = async ({ run, offset_ms, level, scenario: variant }: PlannedBenchRun): Promise<void> => {
        const suffix =
          offset_ms !== undefined
            ? `-offset${offset_ms}`
            : level !== undefined
              ? `-${options.conditionSweep?.name}${level}`
              : '';
        const stem = artifactStem(`${scenario.name}${suffix}`, first + run);
        let outcome: Awaited<ReturnType<typeof runSession>>;
        try {
          const bot = { url: options.url, run: { repeat_index: run, url: options.url } };
          const io = {
            ...(options.outDir ? { recordingPath: join(options.outDir, `${stem}.wav`) } : {}),
            redactor,
            signal: options.signal,
          };
          outcome = await runSession(variant, sessionConfig(shared, bot, io));
        } catch (err) {
          if (options.signal?.aborted) return;
          throw err;
        }
        runs.push({
          run,
          ...(offset_ms === undefined ? {} : { offset_ms }),
          ...(level === undefined ? {} : { level }),
          result: outcome.result,
        });
        if (options.outDir) {
          await writeFile(join(options.outDir, `${stem}.trace.log`), outcome.trace);
          await writeFile(join(options.outDir, 'results.jsonl'), `${JSON.stringify(outcome.result)}\n`, { flag: 'a' });
        }
        finished++;
        const line =
          progressLine(finished, total, offset_ms, outcome.result) +
          (level === undefined ? '' : `  ${options.conditionSweep?.key} ${level}`);
        options.onProgress?.(plans.length > 1 ? `${line}  ${scenario.name}` : line);
      };
      stem0 += plan.runs.length;
      const failed = await runPool(plan.runs, concurrency, work, options.signal);
      if (failed) throw failed.failure;
      // Runs a signal stopped, or never started, are missing; the report covers the finished ones.
      if (options.signal?.aborted === true && runs.length < plan.runs.length) interrupted = true;
      runs.sort((a, b) => a.run - b.run);
      const report = summarizeBench(runs, {
        url: options.url,
        wire: settings.codec,
        repeat,
        concurrency,
        duration_ms: clock.now() - started,
        ...(plan.sweep ? { sweep: plan.sweep } : {}),
        ...(options.conditionSweep ? { conditionSweep: options.conditionSweep } : {}),
      });
      if (!runs.length) report.scenario = { name: scenario.name, file: scenario.file };
      reports.push(report);
      results.push(...runs.map((r) => r.result));
    }
  } finally {
    await engine?.close();
  }
  if (options.signal?.aborted && reports.length < plans.length) interrupted = true;
  return { reports, results, interrupted };
}

/** The file's scripted scenarios that `-s` selects; its warnings printed, a Python factory nothing replaces refused. */
function benchedScenarios(options: BenchOptions, settings: SessionSettings, cwd: string): Scenario[] {
  let isDir = false;
  try {
    isDir = statSync(options.path).isDirectory();
  } catch {
    // A missing path: loadRunnables says so.
  }
  if (isDir) throw new UsageError(`earshot bench takes one scenario file, not a folder: ${options.path}`);
  const { scenarios: all, warnings } = loadRunnables([options.path], { ...options, cwd });
  printWarnings(warnings, options.stderr ?? process.stderr, cwd);
  const chosen = all.filter((s) => options.scenario === undefined || scenarioMatches(options.scenario, s.name));
  const scripted = chosen.filter((s): s is Scenario => s.kind === 'script' && s.gaia === undefined);
  const ids = all.map((s) => `${s.name}${notBenched(s) ? ` (${notBenched(s)})` : ''}`).join(', ');
  if (!scripted.length) {
    const why =
      options.scenario !== undefined
        ? `no scripted scenario matches -s ${JSON.stringify(options.scenario)}`
        : 'no scripted scenario to bench';
    throw new UsageError(
      `${options.path}: ${why} (it holds: ${ids}); ` +
        `simulations and GAIA scenarios are not benched: measure them with earshot run --repeat N`,
    );
  }
  refuseUnrunnable(scripted, replacedBlocks(settings, options.audio), cwd);
  for (const s of chosen) {
    const what = notBenched(s);
    if (what === 'simulation') (options.stderr ?? process.stderr).write(`${s.name}: ${SIMULATION_NOT_BENCHED}\n`);
    if (what === 'GAIA') (options.stderr ?? process.stderr).write(`${s.name}: ${GAIA_NOT_BENCHED}\n`);
  }
  return scripted;
}

function notBenched(s: Runnable): 'simulation' | 'GAIA' | null {
  if (s.kind === 'simulation') return 'simulation';
  return s.gaia ? 'GAIA' : null;
}

/** A GAIA scenario is played and judged by its own driver (objective-only turns are written anew each run). */
export const GAIA_NOT_BENCHED =
  'skipped: a GAIA scenario is not benched (its turns are judged per run, and objective-only ones are written anew); ' +
  'measure it with earshot run --repeat N';

/**
 * A simulation's caller says something else every run, so its latencies are no benchmark of the bot's: left out, said
 * why.
 */
export const SIMULATION_NOT_BENCHED =
  'skipped: a simulation is not benched (its caller says something new every run); measure its pass rate with ' +
  'earshot run --repeat N';

interface PlannedBenchRun {
  run: number;
  offset_ms?: number;
  level?: number;
  scenario: Scenario;
}

/**
 * The runs in start order: `repeat` copies, or with a sweep each offset `repeat` times (offsets interleaved, so a
 * drifting bot shows in every offset alike).
 */
export function planRuns(
  scenario: Scenario,
  repeat: number,
  sweep?: SweepRange,
): { runs: PlannedBenchRun[]; sweep?: { turn_index: number; event: string; range: SweepRange } } {
  if (!sweep) return { runs: Array.from({ length: repeat }, (_, run) => ({ run, scenario })) };
  const turnIndex = bargeInTurnIndex(scenario);
  if (turnIndex === null) throw new NoBargeInTurnError(scenario.file);
  const offsets = sweepOffsets(sweep);
  const runs: PlannedBenchRun[] = [];
  for (let r = 0; r < repeat; r++) {
    for (const offset of offsets)
      runs.push({ run: runs.length, offset_ms: offset, scenario: withInterruptOffset(scenario, turnIndex, offset) });
  }
  return { runs, sweep: { turn_index: turnIndex, event: scenario.turns[turnIndex].send_after!.event!, range: sweep } };
}

/** A condition sweep's runs: each level `repeat` times, levels interleaved (as the offsets of an interrupt sweep). */
export function planConditionRuns(
  scenario: Scenario,
  repeat: number,
  sweep: ConditionSweep,
): { runs: PlannedBenchRun[]; sweep?: undefined } {
  const variants = sweep.values.map((level) => ({ level, scenario: withConditionLevel(scenario, sweep, level) }));
  const runs: PlannedBenchRun[] = [];
  for (let r = 0; r < repeat; r++) for (const v of variants) runs.push({ run: runs.length, ...v });
  return { runs };
}

function progressLine(done: number, total: number, offset: number | undefined, result: ScenarioResult): string {
  const v2v = result.turns.flatMap((t) =>
    typeof t.metrics?.voice_to_voice_ms === 'number' ? [`${Math.round(t.metrics.voice_to_voice_ms)} ms`] : [],
  );
  const parts = [`[${done}/${total}]`, result.status];
  if (offset !== undefined) parts.push(`offset ${offset} ms`);
  if (v2v.length) parts.push(`voice-to-voice ${v2v.join(', ')}`);
  const failure = result.failures[0];
  if (failure) parts.push(`${failure.kind}: ${failure.reason}`);
  else if (result.error) parts.push(result.error);
  return parts.join('  ');
}
