import { EarshotError, UsageError } from '../core/errors.js';

/** One shard of a run: `index` is 1-based, as written on the command line (`--shard 2/3`). */
export interface ShardSpec {
  index: number;
  total: number;
}

export class ShardSpecError extends UsageError {
  readonly input: string;
  constructor(input: string, problem: string) {
    super(`--shard ${JSON.stringify(input)}: ${problem} (expected I/N with 1 ≤ I ≤ N, e.g. --shard 2/3)`);
    this.name = 'ShardSpecError';
    this.input = input;
  }
}

/** A weight function returned something no balance can be computed from (a bug in the caller). */
export class ShardWeightError extends EarshotError {
  readonly position: number;
  readonly weight: number;
  constructor(position: number, weight: number) {
    super(`shard weight of item ${position} must be a finite number ≥ 0, got ${weight}`);
    this.name = 'ShardWeightError';
    this.position = position;
    this.weight = weight;
  }
}

/** Parses `I/N`. Whitespace around the numbers is allowed; anything else is a ShardSpecError. */
export function parseShard(input: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(input);
  if (!m) throw new ShardSpecError(input, 'not of the form I/N');
  const index = Number(m[1]);
  const total = Number(m[2]);
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(total)) throw new ShardSpecError(input, 'number too large');
  if (total < 1) throw new ShardSpecError(input, 'the shard count N must be at least 1');
  if (index < 1 || index > total) throw new ShardSpecError(input, `the shard index must be between 1 and ${total}`);
  return { index, total };
}

export function formatShard(spec: ShardSpec): string {
  return `${spec.index}/${spec.total}`;
}

export interface ShardOptions<T> {
  /**
   * Cost of an item (turn count, estimated duration); default 1. Must be finite and ≥ 0.
   * It must not depend on the machine, or shards disagree about who runs what.
   */
  weight?: (item: T) => number;
  /**
   * A stable identity for each item (e.g. `bot + scenario file + repeat`). When given,
   * the input order stops mattering: any permutation of the items yields the same shards.
   * Without it, ties are broken by position, so the caller must pass the items in a
   * canonical order (manifest order is; directory listing order is not).
   */
  key?: (item: T) => string;
}

/**
 * Every shard's items, from one deterministic balanced partition: heaviest item
 * first onto the lightest shard (ties: fewest items, then lowest index). The
 * heaviest shard then exceeds the lightest by at most one item's weight. Each
 * shard keeps the input order of its items.
 */
export function partition<T>(items: readonly T[], total: number, options: ShardOptions<T> = {}): T[][] {
  if (!Number.isInteger(total) || total < 1)
    throw new ShardSpecError(String(total), 'the shard count N must be at least 1');
  const weight = options.weight ?? (() => 1);
  const entries = items.map((item, position) => {
    const w = weight(item);
    if (!Number.isFinite(w) || w < 0) {
      throw new ShardWeightError(position, w);
    }
    return { item, position, weight: w, key: options.key?.(item) };
  });
  const order = [...entries].sort(
    (a, b) =>
      b.weight - a.weight ||
      (a.key !== undefined && b.key !== undefined ? compare(a.key, b.key) : 0) ||
      a.position - b.position,
  );
  const load = new Array<number>(total).fill(0);
  const count = new Array<number>(total).fill(0);
  const assigned = new Array<number>(entries.length);
  for (const e of order) {
    let best = 0;
    for (let s = 1; s < total; s++) {
      if (load[s] < load[best] || (load[s] === load[best] && count[s] < count[best])) best = s;
    }
    load[best] += e.weight;
    count[best] += 1;
    assigned[e.position] = best;
  }
  const shards: T[][] = Array.from({ length: total }, () => []);
  entries.forEach((e) => {
    shards[assigned[e.position]].push(e.item);
  });
  return shards;
}

/** The items shard `index` (1-based) of `total` runs. */
export function selectShard<T>(items: readonly T[], index: number, total: number, options: ShardOptions<T> = {}): T[] {
  if (!Number.isInteger(index) || index < 1 || index > total) {
    throw new ShardSpecError(`${index}/${total}`, `the shard index must be between 1 and ${total}`);
  }
  return partition(items, total, options)[index - 1];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
