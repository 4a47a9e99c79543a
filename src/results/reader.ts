import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ResultsFileError } from './errors.js';
import { RESULTS_FILE } from './writer.js';
import type { ScenarioResult, ScenarioStatus } from './types.js';

export interface ResultsFile {
  path: string;
  /** Every complete line, in file order. */
  results: ScenarioResult[];
  /**
   * True when the file ended in an incomplete line (the writer died mid-line). That fragment
   * was never a finished result and is left out.
   */
  truncated: boolean;
}

const STATUSES: readonly ScenarioStatus[] = ['passed', 'failed', 'inconclusive', 'skipped', 'error'];

/** Reads a results.jsonl file. A malformed complete line is an error naming file and line. */
export function readResultsFile(path: string): ResultsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ResultsFileError(path, null, `cannot read results: ${(err as Error).message}`);
  }
  const lines = text.split('\n');
  // After the last newline: '' for a complete file, else the fragment of an interrupted write.
  const tail = lines.pop() ?? '';
  const results: ScenarioResult[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    results.push(parseLine(path, i + 1, line));
  });
  return { path, results, truncated: tail.trim() !== '' };
}

/** Reads `<dir>/results.jsonl` (a run's or a shard's output dir). */
export function readResultsDir(dir: string): ResultsFile {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ResultsFileError(dir, null, 'not a directory (expected a run output dir holding results.jsonl)');
  }
  const path = join(dir, RESULTS_FILE);
  if (!existsSync(path)) throw new ResultsFileError(dir, null, `no ${RESULTS_FILE} here; is this a run output dir?`);
  return readResultsFile(path);
}

function parseLine(path: string, lineNo: number, line: string): ScenarioResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new ResultsFileError(path, lineNo, `not valid JSON (${(err as Error).message})`);
  }
  const problem = shapeProblem(value);
  if (problem) throw new ResultsFileError(path, lineNo, `not a scenario result: ${problem}`);
  return value as ScenarioResult;
}

function shapeProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a JSON object';
  const r = value as Record<string, unknown>;
  if (typeof r.file !== 'string') return 'field "file" must be a string';
  if (typeof r.name !== 'string') return 'field "name" must be a string';
  if (!STATUSES.includes(r.status as ScenarioStatus)) {
    return `field "status" must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(r.status)}`;
  }
  if (!Array.isArray(r.turns)) return 'field "turns" must be an array';
  if (!Array.isArray(r.failures)) return 'field "failures" must be an array';
  if (typeof r.duration_ms !== 'number') return 'field "duration_ms" must be a number';
  if (r.run !== undefined && (r.run === null || typeof r.run !== 'object')) return 'field "run" must be an object';
  return null;
}
