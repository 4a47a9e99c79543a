import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { monotonicClock, type Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import { createReporters, type Reporter, type TerminalStream } from '../report/index.js';
import { mergeResults, RESULTS_FILE, SUMMARY_FILE, type MergedResults, type RunSummary } from '../results/index.js';
import { formatShard, parseShard } from './shard.js';

export interface MergeRunsOptions {
  /** Output dirs of the runs to combine (one per shard). */
  dirs: readonly string[];
  /** Where the merged results.jsonl, summary.json and reports go. */
  outDir: string;
  reporter?: string;
  /** Reporters of the caller's own, called after the ones named in `reporter`. */
  reporters?: readonly Reporter[];
  /** Point artifacts back into the input dirs (`rebase`, default) or copy them so the output stands alone (`copy`). */
  artifacts?: 'rebase' | 'copy';
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  stdout?: TerminalStream;
  stderr?: TerminalStream;
}

export interface MergeRunsOutcome {
  outDir: string;
  merged: MergedResults;
  summary: RunSummary;
  /** What a person should know: truncated inputs, shards of different sizes, missing shards. */
  warnings: string[];
  /** Shards `I/N` that none of the inputs holds (empty when the inputs were not shards). */
  missing: string[];
}

/**
 * `earshot merge`: shard outputs in, one result set out (results.jsonl and
 * summary.json), and the chosen reports rendered again from it as if the whole
 * suite had run in one place.
 */
export async function mergeRuns(options: MergeRunsOptions): Promise<MergeRunsOutcome> {
  if (options.dirs.length === 0) throw new UsageError('earshot merge needs at least one run output dir');
  const unusable = options.dirs.filter((dir) => !existsSync(join(dir, RESULTS_FILE)));
  if (unusable.length) {
    throw new UsageError(
      `not a run output dir (no ${RESULTS_FILE}): ${unusable.join(', ')}; pass the folders given to --out of ` +
        'each shard',
    );
  }
  const env = options.env ?? process.env;
  const outDir = options.outDir;
  const merged = mergeResults(options.dirs, { outDir, artifacts: options.artifacts ?? 'rebase' });
  const declared = options.dirs.flatMap(declaredShards);
  const shards = [...new Set([...merged.shards, ...declared])].sort();
  const missing = missingShards(shards);
  const warnings = [...merged.warnings];
  if (missing.length)
    warnings.push(
      `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} missing from the inputs: the merged ` +
        'result set is incomplete',
    );
  await mkdir(outDir, { recursive: true });
  const reporters = createReporters(options.reporter ?? 'list', {
    outDir,
    env,
    clock: options.clock ?? monotonicClock,
    redactor: new Redactor(env),
    // The output may be one of the inputs: it was read in full above; now it is rewritten.
    truncateResults: true,
    ...(options.reporters ? { extra: options.reporters } : {}),
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
  });
  const starts = merged.results
    .map((r) => r.started_at)
    .filter((s) => typeof s === 'string' && s !== '')
    .sort();
  const startedAt = starts[0] ?? new Date().toISOString();
  const summary = await reporters.replay(
    merged.results,
    {
      total: merged.results.length,
      started_at: startedAt,
      out_dir: outDir,
      title: `earshot merge of ${options.dirs.length} run${options.dirs.length === 1 ? '' : 's'}`,
    },
    { started_at: startedAt, ...(shards.length ? { shards } : {}) },
  );
  return { outDir: resolve(outDir), merged, summary, warnings, missing };
}

/** The shards an input says it ran (its summary.json), so a shard that ran nothing still counts as present. */
function declaredShards(dir: string): string[] {
  const file = join(dir, SUMMARY_FILE);
  if (!existsSync(file)) return [];
  try {
    const summary = JSON.parse(readFileSync(file, 'utf8')) as { shards?: unknown };
    return Array.isArray(summary.shards) ? summary.shards.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** `1/3, 3/3` → `2/3`; nothing when the inputs were not shards or disagree on N (mergeResults warns of that). */
export function missingShards(shards: readonly string[]): string[] {
  const specs = shards.flatMap((s) => {
    try {
      return [parseShard(s)];
    } catch {
      return [];
    }
  });
  const totals = new Set(specs.map((s) => s.total));
  if (specs.length === 0 || totals.size !== 1) return [];
  const total = specs[0].total;
  const have = new Set(specs.map((s) => s.index));
  return Array.from({ length: total }, (_, i) => i + 1)
    .filter((i) => !have.has(i))
    .map((index) => formatShard({ index, total }));
}
