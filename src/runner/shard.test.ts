import { describe, expect, it } from 'vitest';
import { ShardSpecError, ShardWeightError, formatShard, parseShard, partition, selectShard } from './shard.js';
import { seededRandom } from '../core/random.js';

interface Run {
  id: string;
  turns: number;
}

/** Every generated case is reproducible from its seed. */
const rng = seededRandom;

function randomRuns(rand: () => number): Run[] {
  const n = Math.floor(rand() * 60);
  return Array.from({ length: n }, (_, i) => ({
    id: `bot${i % 3}/scenario-${i}.yaml`,
    turns: 1 + Math.floor(rand() * 12),
  }));
}

function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const weight = (r: Run): number => r.turns;
const key = (r: Run): string => r.id;

describe('parseShard', () => {
  it('reads I/N with a 1-based index', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, total: 3 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, total: 1 });
    expect(formatShard(parseShard('3/3'))).toBe('3/3');
  });

  it.each([
    ['0/3', 'the shard index must be between 1 and 3'],
    ['4/3', 'the shard index must be between 1 and 3'],
    ['1/0', 'the shard count N must be at least 1'],
    ['2', 'not of the form I/N'],
    ['a/b', 'not of the form I/N'],
    ['-1/3', 'not of the form I/N'],
    ['1.5/3', 'not of the form I/N'],
    ['', 'not of the form I/N'],
  ])('rejects %j with a clear usage error', (input, problem) => {
    expect(() => parseShard(input)).toThrow(ShardSpecError);
    expect(() => parseShard(input)).toThrow(`--shard ${JSON.stringify(input)}: ${problem}`);
    try {
      parseShard(input);
    } catch (err) {
      expect((err as ShardSpecError).exitCode).toBe(2);
    }
  });
});

describe('partition / selectShard (properties over 300 generated cases)', () => {
  const cases = Array.from({ length: 300 }, (_, seed) => {
    const rand = rng(seed + 1);
    return { seed, runs: randomRuns(rand), total: 1 + Math.floor(rand() * 8), rand };
  });

  it('puts every item in exactly one shard: the union is all items and shards are pairwise disjoint', () => {
    for (const { runs, total } of cases) {
      const shards = Array.from({ length: total }, (_, i) => selectShard(runs, i + 1, total, { weight, key }));
      const all = shards.flat();
      expect(all).toHaveLength(runs.length);
      expect(new Set(all)).toEqual(new Set(runs));
    }
  });

  it('balances weight: the heaviest shard exceeds the lightest by at most one max item weight', () => {
    for (const { runs, total } of cases) {
      const loads = partition(runs, total, { weight }).map((s) => s.reduce((sum, r) => sum + r.turns, 0));
      const maxWeight = Math.max(0, ...runs.map((r) => r.turns));
      expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(maxWeight);
    }
  });

  it('is deterministic, and with a key the same for any input order', () => {
    for (const { runs, total, rand } of cases.slice(0, 100)) {
      const canonical = partition(runs, total, { weight, key }).map((s) => s.map(key).sort());
      expect(partition(runs, total, { weight, key }).map((s) => s.map(key).sort())).toEqual(canonical);
      const permuted = partition(shuffled(runs, rand), total, { weight, key }).map((s) => s.map(key).sort());
      expect(permuted).toEqual(canonical);
    }
  });

  it('keeps the input order within a shard', () => {
    for (const { runs, total } of cases.slice(0, 50)) {
      for (const shard of partition(runs, total, { weight })) {
        const positions = shard.map((r) => runs.indexOf(r));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
    }
  });

  it('spreads equal-weight (even zero-weight) items by count', () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    expect(partition(items, 3).map((s) => s.length)).toEqual([4, 3, 3]);
    expect(partition(items, 3, { weight: () => 0 }).map((s) => s.length)).toEqual([4, 3, 3]);
  });

  it('leaves surplus shards empty when there are fewer items than shards', () => {
    expect(partition(['a', 'b'], 4)).toEqual([['a'], ['b'], [], []]);
  });

  it('puts a heavy item alone when that balances best', () => {
    const runs = [
      { id: 'long', turns: 10 },
      { id: 'a', turns: 3 },
      { id: 'b', turns: 3 },
      { id: 'c', turns: 4 },
    ];
    expect(partition(runs, 2, { weight }).map((s) => s.map(key))).toEqual([['long'], ['a', 'b', 'c']]);
  });

  it('rejects an index outside 1..N and a weight that is not a finite number ≥ 0', () => {
    expect(() => selectShard([1, 2], 0, 2)).toThrow(ShardSpecError);
    expect(() => selectShard([1, 2], 3, 2)).toThrow(/between 1 and 2/);
    expect(() => partition([1, 2], 2, { weight: (x) => (x === 2 ? Number.NaN : 1) })).toThrow(ShardWeightError);
    expect(() => partition([1], 2, { weight: () => -1 })).toThrow(/item 0 must be a finite number ≥ 0, got -1/);
  });
});
