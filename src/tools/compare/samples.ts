import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { assertNever } from '../../core/never.js';
import {
  latestAttempts,
  readResultsFile,
  RESULTS_FILE,
  ResultsFileError,
  resultIdentity,
  scenarioKey,
  type ScenarioResult,
  type ScenarioStatus,
  type TurnStatus,
} from '../../results/index.js';
import { LATENCY_METRICS, type LatencyMetric } from '../../scenario/index.js';
import { addScoreSamples, type ScoreName } from './scores.js';

/**
 * What `earshot compare` reads from one output folder of `run`, `suite`,
 * `bench --out` or `merge`: results.jsonl (the only file all of them write, and
 * the only one with every sample; summary.json and bench's --json hold
 * percentiles), grouped per scenario (file, bot) and turn into pass counts and
 * the raw latency samples.
 */

export interface RunCounts {
  passed: number;
  failed: number;
  error: number;
  skipped: number;
  /** Neither a pass nor a failure: left out of the pass rate, like skipped runs. */
  inconclusive: number;
}

export interface TurnSamples {
  index: number;
  passed: number;
  failed: number;
  /** Left out of the turn's pass rate. */
  inconclusive: number;
  not_run: number;
  /** Every measured value per latency metric, in result order. */
  metrics: Record<LatencyMetric, number[]>;
  /** A GAIA turn's scores per dimension (where it applied) and its total, in result order. */
  scores: Partial<Record<ScoreName, number[]>>;
}

export interface ScenarioSamples {
  /** `scenarioKey`: file and bot. */
  key: string;
  name: string;
  file: string;
  bot?: string;
  runs: RunCounts;
  turns: TurnSamples[];
}

export interface RunSamples {
  /** What was given on the command line. */
  source: string;
  /** The results file read. */
  path: string;
  results: number;
  scenarios: ScenarioSamples[];
  warnings: string[];
}

/** An input folder or file compare cannot use: exit code 2. */
export class CompareInputError extends UsageError {
  readonly input: string;
  constructor(input: string, problem: string) {
    super(`${input}: ${problem}`);
    this.name = 'CompareInputError';
    this.input = input;
  }
}

/** Reads a run output folder (or a results.jsonl file) into samples. */
export function loadRunSamples(input: string): RunSamples {
  const path = resultsPath(input);
  let file: ReturnType<typeof readResultsFile>;
  try {
    file = readResultsFile(path);
  } catch (err) {
    if (err instanceof ResultsFileError) throw new CompareInputError(input, err.message);
    throw err;
  }
  const warnings: string[] = [];
  if (file.truncated) warnings.push(`${path}: the last line is incomplete (the run was cut off); it is left out`);
  const results = latestAttempts(file.results);
  if (results.length === 0) throw new CompareInputError(input, `${path} holds no results`);
  return { source: input, path, results: results.length, scenarios: groupSamples(results), warnings };
}

function resultsPath(input: string): string {
  if (!existsSync(input)) throw new CompareInputError(input, 'no such folder or file');
  if (statSync(input).isDirectory()) {
    const path = join(input, RESULTS_FILE);
    if (!existsSync(path))
      throw new CompareInputError(
        input,
        `no ${RESULTS_FILE} here (give an output folder of earshot run, suite, bench --out or merge)`,
      );
    return path;
  }
  if (looksLikeBenchReport(input)) {
    throw new CompareInputError(
      input,
      'is a bench --json report: it holds percentiles, not the samples compare tests; run bench with --out DIR and ' +
        'compare those folders',
    );
  }
  return input;
}

function looksLikeBenchReport(path: string): boolean {
  if (!path.endsWith('.json')) return false;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return typeof value === 'object' && value !== null && 'metrics' in value && 'turns' in value && 'runs' in value;
  } catch {
    return false;
  }
}

/** Results (one per run, superseded attempts already dropped) grouped per (file, bot), in first-seen order. */
export function groupSamples(results: readonly ScenarioResult[]): ScenarioSamples[] {
  const groups = new Map<string, ScenarioSamples>();
  for (const result of results) {
    const key = scenarioKey(result);
    let group = groups.get(key);
    if (!group) {
      const id = resultIdentity(result);
      group = {
        key,
        name: result.name,
        file: id.file,
        ...(id.bot ? { bot: id.bot } : {}),
        runs: { passed: 0, failed: 0, error: 0, skipped: 0, inconclusive: 0 },
        turns: [],
      };
      groups.set(key, group);
    }
    countRun(group.runs, result.status);
    for (const turn of result.turns) {
      const samples = turnOf(group, turn.index);
      countTurn(samples, turn.status);
      for (const metric of LATENCY_METRICS) {
        const value = turn.metrics?.[metric];
        if (typeof value === 'number' && Number.isFinite(value)) samples.metrics[metric].push(value);
      }
    }
    // GAIA numbers its turns from 1; the scenario turn that carried it is one less.
    for (const scored of result.gaia?.turns ?? []) addScoreSamples(turnOf(group, scored.turn - 1).scores, scored);
  }
  for (const group of groups.values()) group.turns.sort((a, b) => a.index - b.index);
  return [...groups.values()];
}

function turnOf(group: ScenarioSamples, index: number): TurnSamples {
  let turn = group.turns.find((t) => t.index === index);
  if (!turn) {
    turn = {
      index,
      passed: 0,
      failed: 0,
      inconclusive: 0,
      not_run: 0,
      metrics: Object.fromEntries(LATENCY_METRICS.map((m) => [m, []])) as unknown as Record<LatencyMetric, number[]>,
      scores: {},
    };
    group.turns.push(turn);
  }
  return turn;
}

/** A new status must decide here whether it counts as a pass, a failure or neither. */
function countRun(counts: RunCounts, status: ScenarioStatus): void {
  switch (status) {
    case 'passed':
    case 'failed':
    case 'error':
    case 'skipped':
    case 'inconclusive':
      counts[status] += 1;
      return;
    default:
      assertNever(status, 'scenario status');
  }
}

function countTurn(turn: TurnSamples, status: TurnStatus): void {
  switch (status) {
    case 'passed':
    case 'failed':
    case 'inconclusive':
    case 'not_run':
      turn[status] += 1;
      return;
    default:
      assertNever(status, 'turn status');
  }
}

/**
 * Runs that say something about passing: every run but the skipped and inconclusive ones (an error is a run that did
 * not pass).
 */
export function ratedRuns(counts: RunCounts): number {
  return counts.passed + counts.failed + counts.error;
}
