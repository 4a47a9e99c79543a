import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { MergeConflictError } from './errors.js';
import { compareResults, resultKey, resultLabel } from './identity.js';
import { readResultsDir } from './reader.js';
import { mapSnippets } from './hearing.js';
import type { ScenarioResult } from './types.js';

export interface MergeSource {
  dir: string;
  /** Lines read from this dir. */
  results: number;
  /** Its results.jsonl ended in an incomplete line (that fragment is left out). */
  truncated: boolean;
}

export interface MergedResults {
  /** One result per (file, bot, repeat_index), sorted by `compareResults`. */
  results: ScenarioResult[];
  sources: MergeSource[];
  /** Distinct `run.shard` values seen, sorted. */
  shards: string[];
  /** Earlier attempts replaced by a later attempt of the same run. */
  superseded: number;
  /** Things a person should know (truncated inputs, shards of different totals). */
  warnings: string[];
}

export interface MergeOptions {
  /**
   * The merged output dir. Artifact paths (relative to each input dir) are made valid from
   * here: rewritten to point back into the input dir (`rebase`, default) or copied into it
   * (`copy`, so the merged dir stands alone).
   */
  outDir?: string;
  artifacts?: 'rebase' | 'copy';
}

interface Candidate {
  result: ScenarioResult;
  sourceIndex: number;
}

/**
 * Combines the outputs of several runs (shards of one suite) into one result
 * set. A run that appears in two inputs with the same attempt means the shards
 * overlapped: that is an error, not a silent pick. Within one input a later
 * attempt replaces an earlier one.
 */
export function mergeResults(dirs: readonly string[], options: MergeOptions = {}): MergedResults {
  const sources: MergeSource[] = [];
  const warnings: string[] = [];
  const chosen = new Map<string, Candidate>();
  let superseded = 0;
  dirs.forEach((dir, sourceIndex) => {
    const file = readResultsDir(dir);
    sources.push({ dir, results: file.results.length, truncated: file.truncated });
    if (file.truncated)
      warnings.push(`${file.path} ends in an incomplete line (a run was killed mid-write); it is left out`);
    for (const result of file.results) {
      const key = resultKey(result);
      const prev = chosen.get(key);
      if (prev) {
        const a = prev.result.run?.attempt ?? 1;
        const b = result.run?.attempt ?? 1;
        if (a === b && prev.sourceIndex !== sourceIndex) {
          throw new MergeConflictError(resultLabel(result), key, [dirs[prev.sourceIndex], dir]);
        }
        superseded += 1;
        if (b < a) continue;
      }
      chosen.set(key, { result, sourceIndex });
    }
  });
  const copied = new Map<string, string>();
  const results = [...chosen.values()].map((c) => placeArtifacts(c, dirs, options, copied)).sort(compareResults);
  const shards = [...new Set(results.flatMap((r) => (r.run?.shard ? [r.run.shard] : [])))].sort();
  const totals = new Set(shards.map((s) => s.split('/')[1]));
  if (totals.size > 1) warnings.push(`the inputs come from shardings of different sizes: ${shards.join(', ')}`);
  return { results, sources, shards, superseded, warnings };
}

function placeArtifacts(
  c: Candidate,
  dirs: readonly string[],
  options: MergeOptions,
  copied: Map<string, string>,
): ScenarioResult {
  const { result } = c;
  if (!options.outDir || !result.artifacts) return result;
  const from = dirs[c.sourceIndex];
  const to = options.outDir;
  const place = (path: string): string => {
    if (isAbsolute(path)) return path;
    if (options.artifacts === 'copy' && !escapes(path))
      return copyInto(resolve(from, path), to, path, c.sourceIndex, copied);
    return toPosix(relative(resolve(to), resolve(from, path)));
  };
  const artifacts: NonNullable<ScenarioResult['artifacts']> = {};
  for (const [name, path] of Object.entries(result.artifacts) as [keyof typeof artifacts, string | undefined][]) {
    if (path !== undefined) artifacts[name] = place(path);
  }
  // An inconclusive expectation's segment WAVs sit beside the recording: they move with it.
  return { ...result, artifacts, turns: result.turns.map((t) => mapSnippets(t, place)) };
}

/**
 * Copies under the same relative path; when this merge already put another
 * input's file there, under `input-<n>/` instead. `copied` maps target → source.
 */
function copyInto(
  source: string,
  outDir: string,
  rel: string,
  sourceIndex: number,
  copied: Map<string, string>,
): string {
  if (!existsSync(source)) return rel;
  let placed = toPosix(rel);
  let target = resolve(outDir, placed);
  const owner = copied.get(target);
  if (owner !== undefined && owner !== source) {
    placed = toPosix(join(`input-${sourceIndex + 1}`, rel));
    target = resolve(outDir, placed);
  }
  copied.set(target, source);
  if (target !== source) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source, target);
  }
  return placed;
}

/** A path that leaves its dir is pointed at, never copied (a copy would land outside the output dir). */
function escapes(rel: string): boolean {
  const n = toPosix(normalize(rel));
  return n === '..' || n.startsWith('../');
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}
