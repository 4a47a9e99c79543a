import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import { matchesTags } from './simulation-extensions.js';
import { DEFAULT_EXIT_FUNCTIONS } from './file-fields.js';
import type { Scenario, Simulation } from './types.js';

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

const BASE = 'name: s\npersona: "Jamie, polite."\ngoal: "Book a table."\nsuccess: "the bot booked a table"\n';

function simulation(yaml: string): Simulation {
  const loaded = loadedOf(inspect(project, yaml));
  if (loaded.kind !== 'simulation') throw new Error(`expected a simulation, got ${loaded.kind}`);
  return loaded;
}

describe('GAIA-style scorecard', () => {
  it('scorecard: {} turns it on with GAIA weights and a 7/10 pass threshold; absent means none', () => {
    expect(simulation(BASE).scorecard).toBeUndefined();
    expect(simulation(`${BASE}scorecard: {}\n`).scorecard).toEqual({
      weights: {
        correctness: 25,
        tool_selection: 20,
        context_retention: 20,
        completeness: 15,
        efficiency: 10,
        personality: 5,
        error_recovery: 5,
      },
      pass_threshold: 7,
    });
  });

  it('weights replace the defaults they name; expected_answer is kept; null means the bot must not know', () => {
    const s = simulation(
      `${BASE}scorecard:\n  expected_answer: "$14.2 million"\n  weights: { correctness: 50, personality: 0 }\n  pass_threshold: 8.5\n`,
    );
    expect(s.scorecard).toMatchObject({ expected_answer: '$14.2 million', pass_threshold: 8.5 });
    expect(s.scorecard?.weights).toMatchObject({ correctness: 50, personality: 0, tool_selection: 20 });
    expect(simulation(`${BASE}scorecard:\n  expected_answer: null\n`).scorecard?.expected_answer).toBeNull();
    expect(simulation(`${BASE}scorecard:\n  expected_answer:\n`).scorecard?.expected_answer).toBeNull();
    expect('expected_answer' in (simulation(`${BASE}scorecard: { pass_threshold: 6 }\n`).scorecard ?? {})).toBe(false);
  });

  it('bad values are located errors; an unknown dimension is a warning with a suggestion', () => {
    const errors = errorsOf(
      inspect(project, `${BASE}scorecard:\n  pass_threshold: 11\n  weights: { correctness: -1 }\n`),
    );
    expect(errors.map((e) => [e.line, e.path])).toEqual([
      [6, 'scorecard.pass_threshold'],
      [7, 'scorecard.weights.correctness'],
    ]);
    expect(errors[0].message).toBe('expected a number from 0 to 10, got 11');
    const all0 = errorsOf(
      inspect(
        project,
        `${BASE}scorecard:\n  weights: { correctness: 0, tool_selection: 0, context_retention: 0, completeness: 0, efficiency: 0, personality: 0, error_recovery: 0 }\n`,
      ),
    );
    expect(all0[0]).toMatchObject({ line: 6, path: 'scorecard.weights' });
    const typo = warningsOf(inspect(project, `${BASE}scorecard:\n  weights: { corectness: 30 }\n`));
    expect(typo[0].message).toContain("did you mean 'correctness'?");
  });

  it('category and severity on either kind; severity is one of four; filters keep the matching ones', () => {
    const s = simulation(`${BASE}category: rag_quality\nseverity: critical\n`);
    expect([s.category, s.severity]).toEqual(['rag_quality', 'critical']);
    const script = loadedOf(
      inspect(project, 'name: t\ncategory: personality\nseverity: low\nturns:\n  - user: hi\n'),
    ) as Scenario;
    expect([script.category, script.severity]).toEqual(['personality', 'low']);
    const bad = errorsOf(inspect(project, `${BASE}severity: urgent\n`));
    expect(bad[0]).toMatchObject({ line: 5, path: 'severity' });
    expect(matchesTags(s, { categories: ['RAG_quality'] })).toBe(true);
    expect(matchesTags(s, { categories: ['memory'] })).toBe(false);
    expect(matchesTags(s, { minSeverity: 'high' })).toBe(true);
    expect(matchesTags(script, { minSeverity: 'medium' })).toBe(false);
    expect(matchesTags({}, { minSeverity: 'low' })).toBe(false);
    expect(matchesTags({}, {})).toBe(true);
  });
});

describe('NeMo-style success signals', () => {
  it('clean_exit: true takes the default exit functions; a list replaces them', () => {
    expect(simulation(`${BASE}success_signals:\n  clean_exit: true\n`).success_signals).toEqual({
      clean_exit: { functions: [...DEFAULT_EXIT_FUNCTIONS] },
    });
    expect(
      simulation(`${BASE}success_signals:\n  clean_exit: { functions: [goodbye_tool] }\n`).success_signals?.clean_exit,
    ).toEqual({ functions: ['goodbye_tool'] });
  });

  it('action_match is an ordered list of calls (names or name + args), or {calls, exact}', () => {
    const s = simulation(
      `${BASE}success_signals:\n  action_match:\n    - check_availability\n    - name: book_table\n      args: { party_size: 2 }\n`,
    );
    expect(s.success_signals?.action_match).toEqual({
      calls: [{ name: 'check_availability' }, { name: 'book_table', args: { party_size: 2 } }],
      exact: false,
    });
    const exact = simulation(`${BASE}success_signals:\n  action_match: { calls: [book_table], exact: true }\n`);
    expect(exact.success_signals?.action_match).toEqual({ calls: [{ name: 'book_table' }], exact: true });
    const unnamed = errorsOf(inspect(project, `${BASE}success_signals:\n  action_match:\n    - args: { a: 1 }\n`));
    expect(unnamed[0]).toMatchObject({ line: 7, path: 'success_signals.action_match[0]' });
  });

  it('nl_assertions are non-empty claims; an empty block or a lone clean_exit: false is an error', () => {
    expect(
      simulation(`${BASE}success_signals:\n  nl_assertions: ["the bot gave the time", "the bot said goodbye"]\n`)
        .success_signals,
    ).toEqual({
      nl_assertions: ['the bot gave the time', 'the bot said goodbye'],
    });
    expect(errorsOf(inspect(project, `${BASE}success_signals:\n  nl_assertions: []\n`))[0]).toMatchObject({
      line: 6,
      path: 'success_signals.nl_assertions',
    });
    expect(errorsOf(inspect(project, `${BASE}success_signals: {}\n`))[0].message).toContain('expected at least 1 of');
    expect(errorsOf(inspect(project, `${BASE}success_signals:\n  clean_exit: false\n`))[0]).toMatchObject({
      line: 6,
      path: 'success_signals',
    });
  });

  it('the extensions are simulation keys: on a scripted scenario they are flagged', () => {
    const r = inspect(project, 'name: t\nscorecard: {}\nturns:\n  - user: hi\n');
    const all = [...errorsOf(r), ...warningsOf(r)];
    expect(all.some((d) => d.path === 'scorecard')).toBe(true);
  });
});
