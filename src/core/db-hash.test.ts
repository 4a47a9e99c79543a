import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalDb, dbHash, pythonJson } from './db-hash.js';

describe('pythonJson (Python json.dumps(sort_keys=True))', () => {
  // Expected strings produced by CPython 3's json.dumps on the same values.
  it('writes separators, sorted keys and ensure_ascii escapes as Python does', () => {
    expect(pythonJson({ b: null, a: [1, 2.5, 1e-5, 'é\u007f𝄞'], A: true })).toBe(
      '{"A": true, "a": [1, 2.5, 1e-05, "\\u00e9\\u007f\\ud834\\udd1e"], "b": null}',
    );
  });

  it("writes floats as Python's repr", () => {
    expect([1.5e-7, 0.0001, 123.456, 0.1 + 0.2, -2.5].map(pythonJson)).toEqual([
      '1.5e-07',
      '0.0001',
      '123.456',
      '0.30000000000000004',
      '-2.5',
    ]);
  });

  it('escapes quotes, backslashes and control characters', () => {
    expect(pythonJson('a"b\\c\n\t\u0001')).toBe('"a\\"b\\\\c\\n\\t\\u0001"');
  });
});

describe('canonicalDb / dbHash', () => {
  it('does not depend on key order', () => {
    expect(dbHash({ a: 1, b: { c: 2, d: 3 } })).toBe(dbHash({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('leaves the top-level session out, but not a nested one', () => {
    expect(dbHash({ a: 1, session: { id: 'x' } })).toBe(dbHash({ a: 1 }));
    expect(dbHash({ a: { session: 1 } })).not.toBe(dbHash({ a: {} }));
  });

  it('hashes 1.0 and 1 alike, and "none"/"NULL" as null', () => {
    expect(dbHash({ n: 1.0, s: 'None', t: 'NULL' })).toBe(dbHash({ n: 1, s: null, t: null }));
    expect(canonicalDb({ s: 'nonesuch' })).toEqual({ s: 'nonesuch' });
  });

  it('sorts order-independent lists (bookings) but keeps other lists in order', () => {
    expect(dbHash({ bookings: [{ id: 2 }, { id: 1 }] })).toBe(dbHash({ bookings: [{ id: 1 }, { id: 2 }] }));
    expect(dbHash({ orders: [{ id: 2 }, { id: 1 }] })).not.toBe(dbHash({ orders: [{ id: 1 }, { id: 2 }] }));
  });

  it('changes when a value changes', () => {
    expect(dbHash({ phone: '314-527-8960' })).not.toBe(dbHash({ phone: '314-527-8961' }));
  });

  it('pins the hash of the restaurant fixture (the same bytes as Python json.dumps + sha256)', () => {
    const db: unknown = JSON.parse(readFileSync('fixtures/nemo/restaurant/db.json', 'utf8'));
    expect(pythonJson(canonicalDb(db))).toBe(
      '{"menu": {"Cheese Pizza": "7.99", "Extra Cheese": "1.50", "Margherita Pizza": "8.99", ' +
        '"Pepperoni Pizza": "9.99"}, "orders": []}',
    );
    expect(dbHash(db)).toBe('bdeed7f3627f249937aa019a65e3055d1bcab61dc88320d385b8c0a048d76be7');
  });
});
