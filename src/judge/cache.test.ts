import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultJudgeCacheDir, VerdictCache, verdictCacheKey } from './cache.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earshot-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ABOUT = { service: 'openai', model: 'm', criterion: 'c' };

describe('verdictCacheKey', () => {
  it('does not depend on the order fields were written in', () => {
    const a = verdictCacheKey({ service: 's', fields: { temperature: 0, top_p: 1 } }, [{ role: 'user', content: 'x' }]);
    const b = verdictCacheKey({ fields: { top_p: 1, temperature: 0 }, service: 's' }, [{ content: 'x', role: 'user' }]);
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the identity and with the messages', () => {
    const base = verdictCacheKey({ model: 'a' }, ['m']);
    expect(verdictCacheKey({ model: 'b' }, ['m'])).not.toBe(base);
    expect(verdictCacheKey({ model: 'a' }, ['n'])).not.toBe(base);
  });
});

describe('VerdictCache', () => {
  it('stores a verdict as one JSON file and reads it back from a fresh instance', async () => {
    const key = verdictCacheKey({}, ['x']);
    expect(
      await new VerdictCache(dir).put(key, { verdict: 'continue', reason: 'checking', raw: '{}' }, ABOUT),
    ).toBeUndefined();
    expect(await new VerdictCache(dir).get(key)).toEqual({ verdict: 'continue', reason: 'checking', raw: '{}' });
    const [sub] = await readdir(dir);
    expect(sub).toBe(key.slice(0, 2));
    const stored = JSON.parse(await readFile(join(dir, sub, `${key}.json`), 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({
      format: 1,
      key,
      verdict: 'continue',
      service: 'openai',
      model: 'm',
      criterion: 'c',
    });
    expect(await readdir(join(dir, sub))).toEqual([`${key}.json`]);
  });

  it('treats a damaged, foreign or invalid file as a miss', async () => {
    const cache = new VerdictCache(dir);
    const key = verdictCacheKey({}, ['damaged']);
    await cache.put(key, { verdict: 'yes', reason: 'r' }, ABOUT);
    const file = join(dir, key.slice(0, 2), `${key}.json`);
    await writeFile(file, '{"format": 1, "key": "');
    expect(await new VerdictCache(dir).get(key)).toBeUndefined();
    await writeFile(file, JSON.stringify({ format: 1, key: 'someone-else', verdict: 'yes', reason: 'r' }));
    expect(await new VerdictCache(dir).get(key)).toBeUndefined();
    await writeFile(file, JSON.stringify({ format: 1, key, verdict: 'perhaps', reason: 'r' }));
    expect(await new VerdictCache(dir).get(key)).toBeUndefined();
  });

  it('reports a directory it cannot write to instead of throwing', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const cache = new VerdictCache(blocker);
    const problem = await cache.put(verdictCacheKey({}, ['y']), { verdict: 'no', reason: 'r' }, ABOUT);
    expect(problem).toMatch(/ENOTDIR|EEXIST/);
    // The verdict is still remembered for this run.
    expect(await cache.get(verdictCacheKey({}, ['y']))).toEqual({ verdict: 'no', reason: 'r' });
  });
});

describe('defaultJudgeCacheDir', () => {
  it('prefers EARSHOT_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(defaultJudgeCacheDir({ EARSHOT_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c/judge');
    expect(defaultJudgeCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/earshot/judge');
    expect(defaultJudgeCacheDir({})).toBe(join(homedir(), '.cache', 'earshot', 'judge'));
  });
});
