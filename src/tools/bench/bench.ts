import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monotonicClock, type Clock } from '../../core/clock.js';
import { UsageError } from '../../core/errors.js';
import { Redactor } from '../../core/redact.js';
import type { ScenarioResult } from '../../results/index.js';
import type { Scenario } from '../../scenario/index.js';
import { AudioEngine, runSession, type AudioEngineOptions, type SessionOptions } from '../../session/index.js';
import { summarizeBench, type BenchReport, type BenchRun } from './report.js';
import { bargeInTurnIndex, NoBargeInTurnError, sweepOffsets, withInterruptOffset, type SweepRange } from './sweep.js';
import { artifactStem, loadScenarios, runPool } from '../../runner/index.js';

/**
 * `earshot bench`: one scenario run `repeat` times against a running bot,
 * `concurrency` sessions at a time, each its own connection; the per-turn
 * metrics of every run summarized as distributions (report.ts). With a
 * sweep, the scenario's barge-in turn runs `repeat` times at each interrupt
 * offset of the range instead.
 */
export interface BenchOptions {
  /** One scenario file. */
  path: string;
  url: string;
  /** Runs (per offset with a sweep). Default 10. */
  repeat?: number;
  /** Sessions at a time. Default 1. */
  concurrency?: number;
  sweep?: SweepRange;
  /** Keep results.jsonl, traces and recordings here (none are written without it). */
  outDir?: string;
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  session?: Omit<SessionOptions, 'url' | 'onProgress' | 'signal' | 'redactor' | 'clock' | 'env' | 'recordingPath' | 'run'>;
  audio?: AudioEngineOptions;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  signal?: AbortSignal;
  /** One line per finished run. */
  onProgress?: (line: string) => void;
}

export interface BenchOutcome {
  report: BenchReport;
  /** Every run's result, in start order. */
  results: ScenarioResult[];
  /** A signal stopped the bench before every run finished; the report covers the finished ones. */
  interrupted: boolean;
}

export const DEFAULT_BENCH_REPEAT = 10;

export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const clock = options.clock ?? monotonicClock;
  const env = options.env ?? process.env;
  const repeat = options.repeat ?? DEFAULT_BENCH_REPEAT;
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1) throw new UsageError(`--repeat must be a whole number ≥ 1, got ${repeat}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a whole number ≥ 1, got ${concurrency}`);
  const scenarios = loadScenarios([options.path], options);
  if (scenarios.length !== 1) throw new UsageError(`earshot bench runs one scenario; ${options.path} holds ${scenarios.length} (pick one file)`);
  const scenario = scenarios[0];
  const plan = planRuns(scenario, repeat, options.sweep);
  const engine = options.session?.media ? null : new AudioEngine({ allowCode: options.allowCode, clock, ...options.audio });
  if (options.outDir) await mkdir(options.outDir, { recursive: true });
  const redactor = new Redactor(env);
  const runs: BenchRun[] = [];
  let finished = 0;
  const started = clock.now();

  const work = async ({ run, offset_ms, scenario: variant }: PlannedBenchRun): Promise<void> => {
    const stem = artifactStem(`${scenario.name}${offset_ms === undefined ? '' : `-offset${offset_ms}`}`, run);
    let outcome;
    try {
      outcome = await runSession(variant, {
        ...(engine ? { media: engine.media } : {}),
        ...options.session,
        ...(options.outDir ? { recordingPath: join(options.outDir, `${stem}.wav`) } : {}),
        url: options.url,
        redactor,
        clock,
        env,
        signal: options.signal,
        allowCode: options.allowCode,
        run: { repeat_index: run, url: options.url },
      });
    } catch (err) {
      if (options.signal?.aborted) return;
      throw err;
    }
    runs.push({ run, ...(offset_ms === undefined ? {} : { offset_ms }), result: outcome.result });
    if (options.outDir) {
      await writeFile(join(options.outDir, `${stem}.trace.log`), outcome.trace);
      await writeFile(join(options.outDir, 'results.jsonl'), `${JSON.stringify(outcome.result)}\n`, { flag: 'a' });
    }
    finished++;
    options.onProgress?.(progressLine(finished, plan.runs.length, offset_ms, outcome.result));
  };

  let failed: { failure: unknown } | null;
  try {
    failed = await runPool(plan.runs, concurrency, work, options.signal);
  } finally {
    await engine?.close();
  }
  if (failed) throw failed.failure;
  // Runs a signal stopped, or never started, are missing; the report covers the finished ones.
  const interrupted = options.signal?.aborted === true && runs.length < plan.runs.length;
  runs.sort((a, b) => a.run - b.run);
  const report = summarizeBench(runs, {
    url: options.url,
    wire: options.session?.codec ?? 'pipecat-eval',
    repeat,
    concurrency,
    duration_ms: clock.now() - started,
    ...(plan.sweep ? { sweep: plan.sweep } : {}),
  });
  if (!runs.length) report.scenario = { name: scenario.name, file: scenario.file };
  return { report, results: runs.map((r) => r.result), interrupted };
}

interface PlannedBenchRun {
  run: number;
  offset_ms?: number;
  scenario: Scenario;
}

/** The runs in start order: `repeat` copies, or with a sweep each offset `repeat` times (offsets interleaved, so a drifting bot shows in every offset alike). */
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
    for (const offset of offsets) runs.push({ run: runs.length, offset_ms: offset, scenario: withInterruptOffset(scenario, turnIndex, offset) });
  }
  return { runs, sweep: { turn_index: turnIndex, event: scenario.turns[turnIndex].send_after!.event!, range: sweep } };
}

function progressLine(done: number, total: number, offset: number | undefined, result: ScenarioResult): string {
  const v2v = result.turns.flatMap((t) => (typeof t.metrics?.voice_to_voice_ms === 'number' ? [`${Math.round(t.metrics.voice_to_voice_ms)} ms`] : []));
  const parts = [`[${done}/${total}]`, result.status];
  if (offset !== undefined) parts.push(`offset ${offset} ms`);
  if (v2v.length) parts.push(`voice-to-voice ${v2v.join(', ')}`);
  const failure = result.failures[0];
  if (failure) parts.push(`${failure.kind}: ${failure.reason}`);
  else if (result.error) parts.push(result.error);
  return parts.join('  ');
}
