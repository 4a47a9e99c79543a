import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  FuzzWorkspace,
  hostileCase,
  HOSTILE_KINDS,
  loadSeeds,
  makeCase,
  runCase,
  type CaseResult,
  type HostileKind,
} from './fuzz.testutil.js';

/**
 * A few hundred seeded mutations of valid files and hostile inputs: each one
 * loads or is rejected with located errors. `npx tsx bench/fuzz.ts` runs the
 * same engine over 10,000+ cases with a hang watchdog.
 */
const SEED = 20_260_101;
const CASES = 300;

function testdataSeeds(): string[] {
  const dir = resolve(import.meta.dirname, 'testdata');
  const files = [
    'full/every_field.yaml',
    'sim/first_format.yaml',
    'manifest/manifest.yaml',
    'manifest/scenarios/book_table.yaml',
    'list/turn_completion.yaml',
    'list/shared_turns.yaml',
  ];
  return loadSeeds(files.map((f) => join(dir, f)));
}

let ws: FuzzWorkspace;
beforeAll(() => {
  ws = new FuzzWorkspace();
});
afterAll(() => ws.cleanup());

describe('loader fuzzing', () => {
  it(`${CASES} seeded cases: every one loads or is rejected with located errors, none crashes`, () => {
    const seeds = testdataSeeds();
    const results: CaseResult[] = [];
    for (let i = 0; i < CASES; i++) results.push(runCase(ws, makeCase(SEED, i, seeds)));
    const failures = results
      .map((r, i) => ({ ...r, i }))
      .filter((r) => r.outcome === 'crashed' || r.outcome === 'unlocated');
    expect(failures.map((f) => `case ${f.i} (${f.kind}): ${f.outcome}: ${f.detail}`)).toEqual([]);
    // The fuzzer must actually exercise both paths and every hostile class.
    const outcomes = new Set(results.map((r) => r.outcome));
    expect(outcomes).toEqual(new Set(['loaded', 'rejected']));
    expect(new Set(results.map((r) => r.kind))).toEqual(new Set(['mutation', ...HOSTILE_KINDS]));
  });

  it('cases are reproducible from seed and index', () => {
    const seeds = testdataSeeds();
    expect(makeCase(SEED, 41, seeds)).toEqual(makeCase(SEED, 41, seeds));
    expect(makeCase(SEED, 41, seeds)).not.toEqual(makeCase(SEED, 42, seeds));
  });

  it('the hostile classes that can never be valid are rejected, not loaded', () => {
    const always: HostileKind[] = [
      'include-cycle',
      'self-include',
      'symlink-escape',
      'outside-path',
      'unknown-tag',
      'huge-file',
      'many-includes',
      'alias-cycle',
      'binary',
    ];
    for (const kind of always) {
      for (let i = 0; i < 3; i++)
        expect(runCase(ws, hostileCase(kind, SEED, i)).outcome, `${kind} case ${i}`).toBe('rejected');
    }
    expect(readdirSync(ws.dir)).toContain('case.yaml');
  });
});
