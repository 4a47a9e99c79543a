import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { durationKey, type KnownDurations } from './plan.js';

/**
 * Durations of an earlier suite, for ordering this one longest first: the
 * newest results.jsonl among the output folder itself (a rerun into the same
 * `--out`) and its sibling folders (`runs/<timestamp>/`). Each line that names
 * its file, scenario and duration counts; several repeats average. Anything
 * unreadable is skipped: without durations the suite still runs, ordered by
 * turns.
 */
export function previousDurations(outDir: string): KnownDurations {
  const newest = newestResults(resolve(outDir));
  return newest ? durationsFrom(readFileSync(newest, 'utf8')) : new Map();
}

/** `results.jsonl` text → mean duration per durationKey. */
export function durationsFrom(jsonl: string): KnownDurations {
  const sums = new Map<string, { total: number; n: number }>();
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // a line cut short by an interrupted run
    }
    if (!record || typeof record !== 'object') continue;
    const r = record as { file?: unknown; name?: unknown; duration_ms?: unknown; run?: { bot?: unknown } };
    if (
      typeof r.file !== 'string' ||
      typeof r.name !== 'string' ||
      typeof r.duration_ms !== 'number' ||
      !(r.duration_ms >= 0)
    )
      continue;
    const label = typeof r.run?.bot === 'string' ? r.run.bot : '';
    const key = durationKey({ file: r.file, id: r.name, label });
    const s = sums.get(key) ?? { total: 0, n: 0 };
    s.total += r.duration_ms;
    s.n++;
    sums.set(key, s);
  }
  return new Map([...sums].map(([k, s]) => [k, s.total / s.n]));
}

function newestResults(outDir: string): string | undefined {
  const parent = dirname(outDir);
  const candidates = [join(outDir, 'results.jsonl')];
  try {
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      if (entry.isDirectory()) candidates.push(join(parent, entry.name, 'results.jsonl'));
    }
  } catch {
    // no parent folder yet: a first run
  }
  let best: { path: string; mtimeMs: number } | undefined;
  for (const path of new Set(candidates)) {
    if (!existsSync(path)) continue;
    try {
      const { mtimeMs, size } = statSync(path);
      if (size > 0 && (!best || mtimeMs > best.mtimeMs)) best = { path, mtimeMs };
    } catch {}
  }
  return best?.path;
}
