import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURE_KIND_DOCS, failureKindsTable, withFailureKindsTable } from './failure-kinds.js';
import { FAILURE_KINDS } from './types.js';

const ARCHITECTURE = join(import.meta.dirname, '..', '..', 'docs', 'architecture.md');

describe('the failure-kind table', () => {
  it('docs/architecture.md holds the table as the code generates it (npm run docs:failures)', () => {
    const doc = readFileSync(ARCHITECTURE, 'utf8');
    expect(withFailureKindsTable(doc)).toBe(doc);
  });

  it('lists every kind once, in FAILURE_KINDS order, with where it is reported', () => {
    const rows = failureKindsTable().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([a-z_]+)` \|/.exec(r)?.[1])).toEqual(FAILURE_KINDS);
    expect(new Set(FAILURE_KINDS).size).toBe(FAILURE_KINDS.length);
    for (const kind of FAILURE_KINDS) expect(FAILURE_KIND_DOCS[kind].scope.length).toBeGreaterThan(0);
  });

  it('a file without the markers is an error, not silently left as it was', () => {
    expect(() => withFailureKindsTable('# no table here\n')).toThrow(/markers are missing/);
  });
});
