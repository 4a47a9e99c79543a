import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { inspectFile } from './load.js';
import { loadScenarioFile } from './load.js';
import { deprecationsOf, errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Simulation } from './types.js';

const TESTDATA = resolve(import.meta.dirname, 'testdata');

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

describe('simulations', () => {
  it('a file with persona: is a simulation, with Pipecat defaults filled in', () => {
    const s = simulation(BASE);
    expect(s).toMatchObject({
      kind: 'simulation',
      name: 's',
      persona: 'Jamie, polite.',
      goal: 'Book a table.',
      success: 'the bot booked a table',
      simulator: { service: 'ollama', model: 'gemma4:12b', extra: { reasoning_effort: 'none' } },
      user: { modality: 'text' },
      judge: { modality: 'text' },
      metrics: [],
      max_turns: 20,
      max_duration_s: 300,
      max_silence_s: 30,
      runs: 1,
      pass_threshold: 1,
      trigger_disconnect: false,
      requires_code: false,
    });
  });

  it("loads Pipecat's first simulation format: weighted metrics, pass_threshold, a simulator", () => {
    const s = loadedOf(inspectFile(join(TESTDATA, 'sim/first_format.yaml'))) as Simulation;
    expect(s.simulator).toEqual({ service: 'openai', model: 'gpt-4o-mini' });
    expect(s.metrics).toEqual([{ name: 'politeness', criterion: 'the bot stayed courteous throughout', weight: 2 }]);
    expect([s.max_turns, s.pass_threshold]).toEqual([10, 0.5]);
  });

  it('loads the newer format: min_score, measured metrics with ranges, function_calls lists', () => {
    const s = loadedOf(inspectFile(join(TESTDATA, 'manifest/scenarios/book_table.yaml'))) as Simulation;
    expect(s.metrics).toEqual([
      { name: 'politeness', criterion: 'the reply is courteous', weight: 1, min_score: 1 },
      { name: 'words', measure: 'words', weight: 1, max_value: 60 },
      {
        name: 'function_calls',
        measure: 'function_calls',
        weight: 1,
        calls: [{ name: 'book_table', args: { party_size: 2 } }],
      },
    ]);
    expect(s.runs).toBe(3);
  });

  it('persona, goal and success are required non-empty text', () => {
    const errors = errorsOf(inspect(project, 'name: s\npersona: "  "\n'));
    expect(errors.map((e) => [e.line, e.message])).toEqual([
      [1, "missing required key 'goal' (a non-empty string)"],
      [1, "missing required key 'success' (a non-empty string)"],
      [2, 'expected a non-empty string, got an empty string'],
    ]);
  });

  it('a metric is judged or measured, not both and not neither', () => {
    const both = errorsOf(
      inspect(project, `${BASE}metrics:\n  - name: m\n    criterion: c\n    measure: words\n    max_value: 1\n`),
    );
    expect(both[0]).toMatchObject({ path: 'metrics[0]' });
    expect(both[0].message).toContain('exactly one of the two');
    expect(errorsOf(inspect(project, `${BASE}metrics:\n  - name: m\n`))[0].message).toContain('exactly one of the two');
  });

  it('measured metrics need a bound, reject min_score; function_calls takes calls:, not a range', () => {
    const cases: [string, string][] = [
      ['  - measure: latency\n', "needs a 'min_value:' or a 'max_value:'"],
      ['  - measure: turns\n    max_value: 5\n    min_score: 1\n', "not 'min_score:'"],
      ['  - measure: function_calls\n', "needs a 'calls:' list"],
      ['  - measure: function_calls\n    calls: []\n    max_value: 2\n', 'not a range'],
      ['  - measure: words\n    min_value: 9\n    max_value: 2\n', 'min_value (9) is above max_value (2)'],
      ['  - measure: word\n    max_value: 2\n', 'unknown value "word"; did you mean "words"?'],
      ['  - name: a\n    criterion: x\n  - name: a\n    criterion: y\n', "metric 'a' is listed twice"],
      ['  - name: a\n    criterion: x\n    min_score: 1.5\n', 'expected a number from 0 to 1, got 1.5'],
      ['  - name: a\n    criterion: x\n    weight: 0\n', 'expected a positive number, got 0'],
    ];
    for (const [metrics, message] of cases) {
      const errors = errorsOf(inspect(project, `${BASE}metrics:\n${metrics}`));
      expect(errors.map((e) => e.message).join('\n'), metrics).toContain(message);
    }
    expect(simulation(`${BASE}metrics:\n  - measure: function_calls\n    calls: []\n`).metrics[0].calls).toEqual([]);
  });

  it('limits are positive; pass_threshold is at most 1', () => {
    expect(errorsOf(inspect(project, `${BASE}max_turns: 0\n`))[0].message).toBe('expected a positive integer, got 0');
    expect(errorsOf(inspect(project, `${BASE}max_duration_s: -1\n`))[0].message).toBe(
      'expected a positive number (s), got -1',
    );
    expect(errorsOf(inspect(project, `${BASE}pass_threshold: 2\n`))[0].message).toBe(
      'expected a number above 0, at most 1, got 2',
    );
  });

  it('user.modality: audio needs user.speech (every persona turn is synthesized)', () => {
    const [error] = errorsOf(inspect(project, `${BASE}user: {modality: audio}\n`));
    expect(error.path).toBe('user.modality');
    expect(error.message).toContain("needs a 'user.speech:' block");
  });

  it('a simulator factory needs code', () => {
    const s = simulation(`${BASE}simulator: {factory: "./persona.js#make", model: gpt-4o-mini}\n`);
    expect(s.requires_code).toBe(true);
    expect(s.code_hooks).toEqual([
      {
        block: 'simulator',
        factory: './persona.js#make',
        runtime: 'node',
        module: project.path('persona.js'),
        export: 'make',
        location: { file: project.path('scenario.yaml'), line: 5, col: 22 },
      },
    ]);
  });

  it('simulation entries in a scenarios: list take persona, goal, success, simulator, metrics, the limits and runs', () => {
    const p = project.write(
      'sims.yaml',
      [
        'name: book_table',
        'simulator: {service: ollama, model: gemma4:12b, extra: {reasoning_effort: none}}',
        'max_turns: 8',
        'metrics:',
        '  - name: politeness',
        '    criterion: "the reply is courteous"',
        '    min_score: 1',
        '  - name: brevity',
        '    criterion: "at most three sentences"',
        '  - {name: booked, measure: function_calls, calls: [check_availability, {name: book, args: {size: 2}}]}',
        '  - {measure: function_calls, calls: []}',
        '  - {measure: latency, max_value: 5}',
        '  - {measure: words, max_value: 60}',
        '  - {measure: turns, min_value: 2}',
        '  - {measure: duration, min_value: 1, max_value: 90}',
        'scenarios:',
        '  - name: available',
        '    persona: "Jamie, booking for two."',
        '    goal: "Book a table for two at 6 PM."',
        '    success: "the bot confirmed a table for two at 6 PM"',
        '    max_duration_s: 120',
        '    max_silence_s: 10',
        '    runs: 3',
        '  - name: default_caller',
        '    persona: "Sam."',
        '    goal: "Ask the opening hours."',
        '    success: "the bot gave the hours"',
        '    simulator:',
        '    metrics: []',
        '',
      ].join('\n'),
    );
    const file = loadScenarioFile(p);
    expect(file.warnings).toEqual([]);
    const [a, b] = file.scenarios as Simulation[];
    expect(a).toMatchObject({
      name: 'book_table/available',
      max_turns: 8,
      max_duration_s: 120,
      max_silence_s: 10,
      runs: 3,
      pass_threshold: 1,
    });
    expect(a.metrics.map(({ weight: _w, ...m }) => m)).toEqual([
      { name: 'politeness', criterion: 'the reply is courteous', min_score: 1 },
      { name: 'brevity', criterion: 'at most three sentences' },
      {
        name: 'booked',
        measure: 'function_calls',
        calls: [{ name: 'check_availability' }, { name: 'book', args: { size: 2 } }],
      },
      { name: 'function_calls', measure: 'function_calls', calls: [] },
      { name: 'latency', measure: 'latency', max_value: 5 },
      { name: 'words', measure: 'words', max_value: 60 },
      { name: 'turns', measure: 'turns', min_value: 2 },
      { name: 'duration', measure: 'duration', min_value: 1, max_value: 90 },
    ]);
    // simulator: with no value, and no metrics: Pipecat's defaults (the local Ollama model; max 20 turns, 300 s, 30 s of silence).
    expect(b).toMatchObject({
      simulator: { service: 'ollama', model: 'gemma4:12b' },
      metrics: [],
      max_turns: 8,
      max_duration_s: 300,
      max_silence_s: 30,
      runs: 1,
    });
  });

  it("pass_threshold: and a metric's weight: still load from old files, with a located deprecation warning", () => {
    const r = inspect(project, `${BASE}pass_threshold: 0.5\nmetrics:\n  - {name: p, criterion: c, weight: 2}\n`);
    const s = loadedOf(r) as Simulation;
    expect([s.pass_threshold, s.metrics[0].weight]).toEqual([0.5, 2]);
    expect(deprecationsOf(r).map((d) => [d.path, d.line])).toEqual([
      ['persona', 2],
      ['pass_threshold', 5],
      ['metrics[0].weight', 7],
    ]);
    expect(warningsOf(r)).toEqual([]);
    expect(deprecationsOf(r)[1].message).toBe(
      "'pass_threshold:' is gone from Pipecat's newest format, where every run must pass; still applied here",
    );
  });
});
