import { describe, expect, it } from 'vitest';
import { dbHash } from '../../core/db-hash.js';
import { registerDbStatePredicate } from '../../scenario/nemo/predicates.js';
import type { DbStateAssertion } from '../../scenario/nemo/types.js';
import { dbStateAssertion, dbStateMatch, diffPaths } from './db-state.js';

const DB = {
  menu: { 'Pepperoni Pizza': '9.99' },
  orders: [{ customer_name: 'Charlie', customer_phone: '314-527-8960', total_price: '11.49' }],
};

describe('DB_STATE_MATCH', () => {
  it("holds when the bot's db_hash is the expected DB's canonical hash", () => {
    const m = dbStateMatch(DB, { summary: { actions: [], db_hash: dbHash(DB) } });
    expect(m.expectedHash).toBe(dbHash(DB));
    expect(m.value).toMatchObject({ signal: 'db_state_match', value: true });
  });

  it('fails on another hash, naming both and the first differing paths from the DB pulled for the diff', () => {
    const theirs = { ...DB, orders: [{ ...DB.orders[0], customer_phone: '555-000-1111' }] };
    const m = dbStateMatch(DB, { summary: { actions: [], db_hash: dbHash(theirs) }, diffDb: theirs });
    expect(m.value.value).toBe(false);
    expect(m.value.reason).toContain(dbHash(theirs).slice(0, 12));
    expect(m.value.reason).toContain(dbHash(DB).slice(0, 12));
    expect(m.value.reason).toContain('orders[0].customer_phone (expected "314-527-8960", got "555-000-1111")');
  });

  it('is false, never N/A, with no hash or no summary', () => {
    expect(dbStateMatch(DB, { summary: { actions: [], db_hash: null } }).value).toMatchObject({
      value: false,
      reason: expect.stringContaining('no db_hash'),
    });
    expect(dbStateMatch(DB, { error: 'the bot had already closed the connection' }).value).toEqual({
      signal: 'db_state_match',
      value: false,
      reason: 'no db_hash: the bot had already closed the connection',
    });
  });

  it('lists differing paths, missing keys included', () => {
    expect(diffPaths({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 3, d: 4 } })).toEqual([
      'b.c (expected 2, got 3)',
      'b.d (expected nothing, got 4)',
    ]);
  });
});

describe('DB_STATE_ASSERTION', () => {
  registerDbStatePredicate('dbtest', 'order_count', (db) => (db.orders as unknown[]).length);
  registerDbStatePredicate('dbtest', 'explodes', () => {
    throw new Error('no such table');
  });
  const record = (func_name: string, assert_value: unknown, args: Record<string, unknown> = {}): DbStateAssertion => ({
    side: 'agent',
    func_name,
    arguments: args,
    assert_value,
  });

  it("runs each predicate over the summary's DB; the pass rate binarizes at 1.0", () => {
    const all = dbStateAssertion(
      'dbtest',
      [record('order_count', 1), record('path_equals', true, { path: 'orders.0.customer_name', value: 'Charlie' })],
      { summary: { actions: [], db_hash: 'h', db: DB } },
    );
    expect(all.value).toMatchObject({ signal: 'db_state_assertion', value: true, pass_rate: 1 });
    const half = dbStateAssertion('dbtest', [record('order_count', 1), record('order_count', 2)], {
      summary: { actions: [], db_hash: 'h', db: DB },
    });
    expect(half.value).toMatchObject({ value: false, pass_rate: 0.5 });
    expect(half.verdicts.map((v) => [v.passed, v.actual])).toEqual([
      [true, 1],
      [false, 1],
    ]);
  });

  it('fails a raising predicate with its error, and every record when the bot sent no DB', () => {
    const raised = dbStateAssertion('dbtest', [record('explodes', true)], {
      summary: { actions: [], db_hash: 'h', db: DB },
    });
    expect(raised.verdicts[0]).toMatchObject({ passed: false, error: 'no such table' });
    const noDb = dbStateAssertion('dbtest', [record('order_count', 1)], { summary: { actions: [], db_hash: 'h' } });
    expect(noDb.value).toMatchObject({ value: false, pass_rate: 0 });
    expect(noDb.verdicts[0].reason).toContain('the bot sent no db with include_db');
  });
});
