import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { VerdictValue } from './types.js';

/** Bump when the meaning of a stored entry changes; old entries then simply miss. */
const CACHE_FORMAT = 1;

export interface CachedVerdict {
  verdict: VerdictValue;
  reason: string;
  raw?: string;
}

interface StoredEntry extends CachedVerdict {
  format: number;
  key: string;
  service: string;
  model: string;
  criterion: string;
  stored_at: string;
}

/**
 * The cache key: a SHA-256 over everything that decides an answer — the
 * backend's identity (service, model, endpoint, request fields such as `extra`)
 * and the exact messages sent, which hold the criterion, the conversation and
 * the prompt itself (so a prompt change invalidates old verdicts). Keys are
 * sorted so equal configs hash equally however they were written.
 */
export function verdictCacheKey(identity: Record<string, unknown>, messages: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ format: CACHE_FORMAT, identity, messages }))
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/**
 * Verdicts by key, in memory for this judge and, with a directory, on disk so
 * reruns are stable and cheap. One JSON file per verdict, written to a temporary
 * name and renamed, so concurrent runs sharing the directory never read half a
 * file. A damaged or foreign file is a miss, never an error.
 */
export class VerdictCache {
  private readonly memory = new Map<string, CachedVerdict>();

  constructor(private readonly dir?: string) {}

  async get(key: string): Promise<CachedVerdict | undefined> {
    const hit = this.memory.get(key);
    if (hit) return hit;
    if (!this.dir) return undefined;
    let entry: Partial<StoredEntry>;
    try {
      entry = JSON.parse(await readFile(this.path(key), 'utf8')) as Partial<StoredEntry>;
    } catch {
      return undefined;
    }
    if (
      entry.format !== CACHE_FORMAT ||
      entry.key !== key ||
      !isVerdict(entry.verdict) ||
      typeof entry.reason !== 'string'
    ) {
      return undefined;
    }
    const verdict: CachedVerdict = { verdict: entry.verdict, reason: entry.reason };
    if (typeof entry.raw === 'string') verdict.raw = entry.raw;
    this.memory.set(key, verdict);
    return verdict;
  }

  /** Stores a verdict; a disk failure is reported to the caller's trace, never thrown. */
  async put(
    key: string,
    verdict: CachedVerdict,
    about: { service: string; model: string; criterion: string },
  ): Promise<string | undefined> {
    this.memory.set(key, verdict);
    if (!this.dir) return undefined;
    const entry: StoredEntry = { format: CACHE_FORMAT, key, ...about, ...verdict, stored_at: new Date().toISOString() };
    const file = this.path(key);
    const tmp = `${file}.${randomUUID()}.tmp`;
    try {
      await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
      await writeFile(tmp, `${JSON.stringify(entry, null, 2)}\n`, 'utf8');
      await rename(tmp, file);
      return undefined;
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      return err instanceof Error ? err.message : String(err);
    }
  }

  private path(key: string): string {
    return join(this.dir as string, key.slice(0, 2), `${key}.json`);
  }
}

function isVerdict(v: unknown): v is VerdictValue {
  return v === 'yes' || v === 'no' || v === 'continue';
}

/**
 * Where verdicts live when the caller names no directory: `$EARSHOT_CACHE_DIR/judge`,
 * else `$XDG_CACHE_HOME/earshot/judge`, else `~/.cache/earshot/judge`. Keys are
 * content hashes, so projects can share it safely.
 */
export function defaultJudgeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EARSHOT_CACHE_DIR) return join(env.EARSHOT_CACHE_DIR, 'judge');
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'earshot', 'judge');
}
