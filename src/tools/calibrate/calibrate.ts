import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monotonicClock } from '../../core/clock.js';
import { UsageError } from '../../core/errors.js';
import {
  calibrationErrorTable,
  calibrationFailures,
  DEFAULT_CALIBRATION_P95_LIMIT_MS,
  type CalibrationRow,
} from '../../metrics/index.js';
import type { ScenarioResult } from '../../results/index.js';
import { loadScenario, type Scenario } from '../../scenario/index.js';
import { runSession } from '../../drivers/index.js';
import { AudioEngine, checkSphinxInstalled, type AudioEngineOptions } from '../../session/index.js';
import { PortAllocator } from '../../bots/index.js';
import { startRefbotChild } from '../refbot-child.js';
import { CALIBRATION_METRICS, matchRun, type MatchedSample } from './match.js';
import {
  CALIBRATION_BRAIN,
  CALIBRATION_BRAIN_FILE,
  CALIBRATION_SCENARIO_FILE,
  calibrationScenario,
  MIN_CALIBRATION_GAP_MS,
  PAUSE_BARGE_IN_AFTER_MS,
} from './scenario.js';
import { parseTruthLog, truthConnections } from './truth.js';

/**
 * `earshot calibrate`: how accurately earshot measures latency on this
 * machine. For each wire and each known response delay, the reference bot is
 * started in its own process with that delay and a ground-truth log; a fixed
 * scenario (scenario.ts) runs against it `repeat` times, one session
 * after another; each turn's measured voice-to-voice and interruption latency
 * is paired with the bot's own figure (match.ts says how, and why
 * that comparison), and the errors go into one table per codec, metric and
 * delay. Calibration fails when a row's p95 |error| exceeds the limit or a row
 * has no usable sample.
 */

export type CalibrationWire = 'pipecat-eval' | 'protobuf';
export const CALIBRATION_WIRES: readonly CalibrationWire[] = ['pipecat-eval', 'protobuf'];
export const DEFAULT_CALIBRATION_DELAYS_MS: readonly number[] = [0, 300, 800, 1500];
export const DEFAULT_CALIBRATION_REPEAT = 3;
const BASE_PORT = 7960;

export interface CalibrateOptions {
  /** Runs per wire and delay (default 3). */
  repeat?: number;
  /** Response delays the bot is started with (default 0, 300, 800, 1500 ms). */
  delaysMs?: readonly number[];
  /** Default both. */
  wires?: readonly CalibrationWire[];
  /** Keep the truth logs, bot logs, results, traces and recordings here; default a temporary folder, removed. */
  keepDir?: string;
  /** p95 |error| limit in ms (default 10). */
  p95LimitMs?: number;
  /**
   * The bot speaks sentence by sentence with this much silence between them
   * (`earshot refbot --sentence-gap-ms`), and the barge-in starts in the first
   * pause: the interruption a speaking window bridges. Default: none.
   */
  sentenceGapMs?: number;
  /** How to run `earshot` for the bot; default this package's built CLI. */
  selfCommand?: readonly string[];
  /** TTS cache settings (`--cache-dir`, `--no-cache`); recordings are written only with `keepDir`. */
  audio?: Pick<AudioEngineOptions, 'cacheDir' | 'noCache'>;
  /** How long the bot may take to accept connections (default 30 s). */
  spawnTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** One line per finished run and per bot. */
  onProgress?: (line: string) => void;
}

export interface CalibrationSampleRecord extends MatchedSample {
  codec: CalibrationWire;
  delay_ms: number;
}

export interface CalibrationConfigOutcome {
  wire: CalibrationWire;
  delay_ms: number;
  runs: number;
  /** Runs whose scenario passed (a failed run still yields what it measured). */
  passed_runs: number;
  /** Where the files were, when kept. */
  dir?: string;
}

export interface CalibrationOutcome {
  rows: CalibrationRow[];
  /** Rows over the limit or without a usable sample. */
  failures: CalibrationRow[];
  p95_limit_ms: number;
  passed: boolean;
  samples: CalibrationSampleRecord[];
  configs: CalibrationConfigOutcome[];
  /** The bot's sentence gap, when the calibration ran in that mode. */
  sentence_gap_ms?: number;
  /**
   * The machine's 1-, 5- and 15-minute load averages when the calibration started and ended: other load disturbs
   * real-time timing.
   */
  load_average: { start: number[]; end: number[] };
  /** A signal stopped it before every configuration ran. */
  interrupted: boolean;
  keptDir?: string;
}

/** The calibration's settings are unusable. */
export class CalibrationSetupError extends UsageError {
  constructor(readonly problem: string) {
    super(`calibrate: ${problem}`);
    this.name = 'CalibrationSetupError';
  }
}

export async function runCalibration(options: CalibrateOptions = {}): Promise<CalibrationOutcome> {
  const repeat = options.repeat ?? DEFAULT_CALIBRATION_REPEAT;
  const delays = options.delaysMs ?? DEFAULT_CALIBRATION_DELAYS_MS;
  const wires = options.wires ?? CALIBRATION_WIRES;
  const limit = options.p95LimitMs ?? DEFAULT_CALIBRATION_P95_LIMIT_MS;
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new CalibrationSetupError(`repeat must be a positive integer, got ${repeat}`);
  if (!delays.length || delays.some((d) => !Number.isFinite(d) || d < 0))
    throw new CalibrationSetupError(`delays must be numbers of ms >= 0, got ${delays.join(',')}`);
  if (!wires.length) throw new CalibrationSetupError('no wire to calibrate');
  const gap = options.sentenceGapMs;
  if (gap !== undefined && !(Number.isFinite(gap) && gap >= MIN_CALIBRATION_GAP_MS && gap <= 5000)) {
    throw new CalibrationSetupError(
      `sentence gap must be ${MIN_CALIBRATION_GAP_MS} to 5000 ms ` +
        `(the barge-in and the bot's stop must both fall in the pause), got ${gap}`,
    );
  }
  checkSphinxInstalled();
  const loadAtStart = loadavg();

  const workDir = options.keepDir ? resolve(options.keepDir) : mkdtempSync(join(tmpdir(), 'earshot-calibrate-'));
  await mkdir(workDir, { recursive: true });
  const brainFile = join(workDir, CALIBRATION_BRAIN_FILE);
  const scenarioFile = join(workDir, CALIBRATION_SCENARIO_FILE);
  await writeFile(brainFile, CALIBRATION_BRAIN);
  await writeFile(
    scenarioFile,
    gap === undefined ? calibrationScenario() : calibrationScenario(PAUSE_BARGE_IN_AFTER_MS),
  );
  const engine = new AudioEngine({ clock: monotonicClock, record: options.keepDir !== undefined, ...options.audio });
  const ports = new PortAllocator(BASE_PORT);
  const samples: CalibrationSampleRecord[] = [];
  const configs: CalibrationConfigOutcome[] = [];
  let interrupted = false;
  try {
    const scenario = await loadScenario(scenarioFile);
    for (const wire of wires) {
      for (const delay of delays) {
        if (options.signal?.aborted) throw options.signal.reason;
        const dir = join(workDir, `${wire}-${delay}ms`);
        await mkdir(dir, { recursive: true });
        const one = await calibrateOne({ scenario, wire, delay, repeat, dir, brainFile, engine, ports, options });
        samples.push(...one.samples);
        configs.push({ ...one.config, ...(options.keepDir ? { dir } : {}) });
      }
    }
  } catch (err) {
    // A signal ends the calibration with what finished; the table then says so by its empty rows.
    if (!options.signal?.aborted) throw err;
    interrupted = true;
  } finally {
    await engine.close();
    if (!options.keepDir) rmSync(workDir, { recursive: true, force: true });
  }
  const rows = withEmptyRows(
    calibrationErrorTable(
      samples.map((s) => ({
        codec: s.codec,
        metric: s.metric,
        delay_ms: s.delay_ms,
        measured_ms: s.measured_ms,
        truth_ms: s.truth_ms,
      })),
    ),
    wires,
    delays,
  );
  const failures = calibrationFailures(rows, limit);
  const load_average = { start: loadAtStart.map(round2), end: loadavg().map(round2) };
  return {
    rows,
    failures,
    p95_limit_ms: limit,
    passed: failures.length === 0 && !interrupted,
    samples,
    configs,
    load_average,
    interrupted,
    ...(gap !== undefined ? { sentence_gap_ms: gap } : {}),
    ...(options.keepDir ? { keptDir: workDir } : {}),
  };
}

interface OneConfig {
  scenario: Scenario;
  wire: CalibrationWire;
  delay: number;
  repeat: number;
  dir: string;
  brainFile: string;
  engine: AudioEngine;
  ports: PortAllocator;
  options: CalibrateOptions;
}

/** One wire and delay: a bot of its own, `repeat` sessions, the truth log matched. */
async function calibrateOne(
  c: OneConfig,
): Promise<{ samples: CalibrationSampleRecord[]; config: CalibrationConfigOutcome }> {
  const { wire, delay, options } = c;
  const truthFile = join(c.dir, 'truth.jsonl');
  const botLog = join(c.dir, 'refbot.log');
  // A kept folder from an earlier calibration: the bot appends to its truth log, and so would the results.
  await Promise.all([truthFile, join(c.dir, 'results.jsonl')].map((f) => rm(f, { force: true })));
  const gap = options.sentenceGapMs;
  const bot = await startRefbotChild({
    ports: c.ports,
    args: [
      '--wire',
      wire,
      '--response-delay-ms',
      String(delay),
      '--truth-log',
      truthFile,
      '--brain',
      c.brainFile,
      ...(gap !== undefined ? ['--sentence-gap-ms', String(gap)] : []),
    ],
    logFile: botLog,
    selfCommand: options.selfCommand,
    env: options.env,
    spawnTimeoutMs: options.spawnTimeoutMs,
    signal: options.signal,
    label: `calibrate: the reference bot (${wire}, delay ${delay} ms)`,
  });
  const runs: Array<{ result: ScenarioResult; sessionEpochMs: number; fromEpochMs: number; toEpochMs: number }> = [];
  try {
    for (let r = 0; r < c.repeat; r++) {
      options.signal?.throwIfAborted();
      const fromEpochMs = epochNow();
      // runSession reads its clock origin first thing, synchronously: this is it to within microseconds.
      const sessionEpochMs = epochNow();
      const outcome = await runSession(c.scenario, {
        url: bot.url,
        codec: wire,
        media: c.engine.media,
        recordingPath: join(c.dir, `run-${r + 1}.wav`),
        clock: monotonicClock,
        ...(options.env ? { env: options.env } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const toEpochMs = epochNow();
      await writeFile(join(c.dir, `run-${r + 1}.trace.log`), outcome.trace);
      await writeFile(join(c.dir, 'results.jsonl'), `${JSON.stringify(outcome.result)}\n`, { flag: 'a' });
      runs.push({ result: outcome.result, sessionEpochMs, fromEpochMs, toEpochMs });
    }
  } finally {
    await bot.stop();
  }
  const connections = truthConnections(parseTruthLog(await readFile(truthFile, 'utf8').catch(() => ''), truthFile));
  const samples: CalibrationSampleRecord[] = [];
  for (const [i, run] of runs.entries()) {
    const observed = {
      run: i + 1,
      sessionEpochMs: run.sessionEpochMs,
      fromEpochMs: run.fromEpochMs,
      toEpochMs: run.toEpochMs,
      turns: run.result.turns,
    };
    const match = matchRun(observed, connections, { bargeInInPause: gap !== undefined });
    const mine = match.samples.map((s) => ({ ...s, codec: wire, delay_ms: delay }));
    samples.push(...mine);
    options.onProgress?.(describeRun(wire, delay, i + 1, c.repeat, run.result, mine));
  }
  return {
    samples,
    config: {
      wire,
      delay_ms: delay,
      runs: runs.length,
      passed_runs: runs.filter((r) => r.result.status === 'passed').length,
    },
  };
}

/**
 * A configuration that yielded no sample at all (its bot never answered, the
 * scenario could not run) must not vanish from the table: it gets a row with
 * n = 0, which fails calibration.
 */
export function withEmptyRows(
  rows: CalibrationRow[],
  wires: readonly string[],
  delays: readonly number[],
): CalibrationRow[] {
  const out = [...rows];
  for (const codec of wires) {
    for (const metric of CALIBRATION_METRICS) {
      for (const delay_ms of delays) {
        if (!rows.some((r) => r.codec === codec && r.metric === metric && r.delay_ms === delay_ms)) {
          out.push({ codec, metric, delay_ms, n: 0, p50_ms: null, p95_ms: null, max_ms: null, missing: 0 });
        }
      }
    }
  }
  return out.sort((a, b) =>
    a.codec < b.codec
      ? -1
      : a.codec > b.codec
        ? 1
        : a.metric < b.metric
          ? -1
          : a.metric > b.metric
            ? 1
            : a.delay_ms - b.delay_ms,
  );
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function epochNow(): number {
  return performance.timeOrigin + monotonicClock.now();
}

/** `protobuf  delay 300 ms  run 2/3  passed  voice_to_voice_ms +1.2 +0.8  interruption_ms +2.1` */
export function describeRun(
  wire: string,
  delay: number,
  run: number,
  of: number,
  result: ScenarioResult,
  samples: readonly MatchedSample[],
): string {
  const parts = [`${wire} delay ${delay} ms run ${run}/${of}: ${result.status}`];
  for (const metric of ['voice_to_voice_ms', 'interruption_ms'] as const) {
    const mine = samples.filter((s) => s.metric === metric);
    if (!mine.length) continue;
    const cells = mine.map((s) =>
      s.error_ms === null
        ? `missing (${s.note ?? '?'})`
        : `${s.measured_ms?.toFixed(1)} vs ${s.truth_ms?.toFixed(1)} ` +
          `(${s.error_ms >= 0 ? '+' : ''}${s.error_ms.toFixed(1)})`,
    );
    parts.push(`${metric} ${cells.join(', ')}`);
  }
  if (result.error) parts.push(`error: ${result.error}`);
  return parts.join('; ');
}
