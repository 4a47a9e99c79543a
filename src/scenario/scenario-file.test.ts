import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { ScenarioError } from './diagnostics.js';
import { inspectFile, loadFileSync, loadScenario, loadScenarioFile, locationOf } from './load.js';
import { deprecationsOf, errorsOf, inspect, TempProject, warningsOf } from './scenario.testutil.js';
import type { Inspection } from './load.js';
import type { Scenario, Simulation } from './types.js';

const LIST = resolve(import.meta.dirname, 'testdata', 'list');

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

function scenariosOf(r: Inspection): (Scenario | Simulation)[] {
  if (r.status !== 'loaded' || !r.scenario_file) {
    throw new Error(
      `expected a scenario file, got ${r.status}: ${JSON.stringify('diagnostics' in r ? r.diagnostics : [])}`,
    );
  }
  return r.scenario_file.scenarios;
}

describe('scenario files: scenarios: lists (Pipecat 1.11)', () => {
  it('file-level keys are defaults for every scenario', () => {
    const file = loadScenarioFile(join(LIST, 'turn_completion.yaml'));
    expect(file).toMatchObject({ name: 'turn_completion', format: 'list', file: join(LIST, 'turn_completion.yaml') });
    const [short] = file.scenarios as Scenario[];
    expect(short.context).toEqual([{ role: 'system', content: 'You are a travel assistant.' }]);
    expect(short.judge.eval.factory).toBe('evals.judges.typesafe_classifier');
    expect(short.includes).toEqual([join(LIST, 'judge_text.yaml')]);
  });

  it("a scenario's own key replaces the default whole: a context: is written out in full, never merged", () => {
    const [, history] = loadScenarioFile(join(LIST, 'turn_completion.yaml')).scenarios as Scenario[];
    expect(history.context).toEqual([
      { role: 'system', content: 'You are a travel assistant.' },
      { role: 'assistant', content: 'Where would you go?' },
    ]);
    expect(history.stop_on_failure).toBe(false);
    const p = project.write(
      'ctx.yaml',
      'name: f\ncontext:\n  - {role: system, content: a}\nscenarios:\n  - name: s\n    context: []\n    turns: []\n',
    );
    expect((loadScenarioFile(p).scenarios[0] as Scenario).context).toEqual([]);
  });

  it('names are <file name>/<scenario name>, the file name being its name: key', () => {
    const file = loadScenarioFile(join(LIST, 'turn_completion.yaml'));
    expect(file.scenarios.map((s) => [s.name, s.file_name, s.index])).toEqual([
      ['turn_completion/short_answer', 'turn_completion', 0],
      ['turn_completion/with_history', 'turn_completion', 1],
      ['turn_completion/caller', 'turn_completion', 2],
    ]);
  });

  it('a scripted scenario and a simulation share one list: turns: makes it scripted, persona: a simulation', () => {
    const [a, b, c] = loadScenarioFile(join(LIST, 'turn_completion.yaml')).scenarios;
    expect([a.kind, b.kind, c.kind]).toEqual(['script', 'script', 'simulation']);
    const sim = c as Simulation;
    expect(sim).toMatchObject({ persona: 'A traveler who answers one question at a time.', max_turns: 4 });
    // max_turns is a default for the simulation; the scripted siblings are not warned about it.
    expect(loadScenarioFile(join(LIST, 'turn_completion.yaml')).warnings).toEqual([]);
  });

  it('shared turns: at the top run under each scenario, each with its own judge', () => {
    const [text, audio] = loadScenarioFile(join(LIST, 'shared_turns.yaml')).scenarios as Scenario[];
    expect([text.name, audio.name]).toEqual(['interruption/text', 'interruption/audio']);
    expect(text.turns).toHaveLength(2);
    expect(text.turns[1].expect[1]).toMatchObject({ event: 'llm_response', declared_event: 'response' });
    expect(audio.turns[1].expect[1]).toMatchObject({ event: 'response', declared_event: 'response' });
    // Locations of shared values point at the top of the file.
    expect(locationOf(audio, 'turns[1].send_after')).toMatchObject({ line: 8 });
  });

  it('shared persona: at the top, a goal: per scenario', () => {
    const p = project.write(
      'diner.yaml',
      'name: diner\npersona: "Jamie, calling a restaurant."\nsuccess: "the bot did what was asked"\nscenarios:\n  - name: book\n    goal: "Book a table."\n  - name: cancel\n    goal: "Cancel the booking."\n',
    );
    const sims = loadScenarioFile(p).scenarios as Simulation[];
    expect(sims.map((s) => [s.kind, s.name, s.persona, s.goal])).toEqual([
      ['simulation', 'diner/book', 'Jamie, calling a restaurant.', 'Book a table.'],
      ['simulation', 'diner/cancel', 'Jamie, calling a restaurant.', 'Cancel the booking.'],
    ]);
  });

  it('duplicate scenario names are a located error', () => {
    const r = inspect(project, 'name: f\nturns: []\nscenarios:\n  - name: a\n  - name: b\n  - name: a\n');
    expect(r.status).toBe('invalid');
    expect(errorsOf(r).map((e) => [e.path, e.line, e.col, e.message])).toEqual([
      ['scenarios[2].name', 6, 11, "duplicate scenario name 'f/a': scenario #0 has it too"],
    ]);
  });

  it('an empty scenarios: list is a located error', () => {
    const r = inspect(project, 'name: f\nscenarios: []\n');
    expect(errorsOf(r).map((e) => [e.path, e.line, e.col, e.message])).toEqual([
      ['scenarios', 2, 12, 'expected a non-empty list of scenarios, got an empty list'],
    ]);
  });

  it('a nameless scenario is a located error', () => {
    const r = inspect(project, 'name: f\nturns: []\nscenarios:\n  - turns: []\n  - name: 7\n');
    expect(errorsOf(r).map((e) => [e.path, e.line, e.col, e.message])).toEqual([
      ['scenarios[0]', 4, 5, "a scenario needs a 'name:' (it is named <file name>/<name>)"],
      ['scenarios[1].name', 5, 11, "expected a non-empty string (the scenario's name), got 7"],
    ]);
  });

  it('the file needs a name:, each entry a mapping, no nested scenarios:, and turns: or persona:', () => {
    expect(errorsOf(inspect(project, 'scenarios:\n  - name: a\n    turns: []\n'))[0].message).toContain(
      "missing required key 'name'",
    );
    const r = inspect(
      project,
      'name: f\nscenarios:\n  - just text\n  - name: b\n    scenarios: []\n    turns: []\n  - name: c\n',
    );
    expect(errorsOf(r).map((e) => [e.path, e.line])).toEqual([
      ['scenarios[0]', 3],
      ['scenarios[1].scenarios', 5],
      ['scenarios[2]', 7],
    ]);
    expect(errorsOf(r)[2].message).toContain("a scenario needs 'turns:' (scripted) or 'persona:' (a simulation)");
  });

  it("a scenario that ends up with both turns: and persona: is an error at the scenario's own key", () => {
    const r = inspect(
      project,
      'name: f\nturns: []\nscenarios:\n  - name: a\n    persona: p\n    goal: g\n    success: s\n',
    );
    expect(errorsOf(r).map((e) => [e.path, e.line])).toEqual([['scenarios[0].persona', 5]]);
  });

  it("a scenario's own key of the other kind is warned about and ignored", () => {
    const r = inspect(project, 'name: f\nscenarios:\n  - name: a\n    max_turns: 3\n    turns: [{user: hi}]\n');
    expect(warningsOf(r).map((w) => [w.path, w.line, w.message])).toEqual([
      [
        'scenarios[0].max_turns',
        4,
        "ignored: 'max_turns:' applies to simulations; this scenario is scripted ('turns:')",
      ],
    ]);
  });

  it('each scenario is checked on its own: an error in one leaves the others valid, and the file invalid', () => {
    const r = inspect(
      project,
      'name: f\nscenarios:\n  - name: ok\n    turns: []\n  - name: bad\n    turns:\n      - dtmf: "x"\n',
    );
    expect(r.status).toBe('invalid');
    expect(r.status === 'invalid' && r.checks.map((c) => [c.id, c.kind, c.status])).toEqual([
      ['f/ok', 'script', 'valid'],
      ['f/bad', 'script', 'invalid'],
    ]);
    expect(() => loadScenarioFile(project.path('scenario.yaml'))).toThrow(ScenarioError);
  });

  it('a shared default with a problem is reported once for the file, and for each scenario it applies to', () => {
    const r = inspect(
      project,
      'name: f\nstop_on_failur: false\nturns: [{user: hi}]\nscenarios:\n  - name: a\n  - name: b\n',
    );
    expect(warningsOf(r).map((w) => [w.path, w.line])).toEqual([['stop_on_failur', 2]]);
    expect(r.status === 'loaded' && r.checks.map((c) => c.diagnostics.length)).toEqual([1, 1]);
  });

  it('the deprecated top-level shape loads as one scenario named by the file, with a located deprecation warning', () => {
    const r = inspect(project, 'name: greeting\nturns:\n  - user: hi\n', {}, 'greeting.yaml');
    const [s] = scenariosOf(r);
    expect(s).toMatchObject({ kind: 'script', name: 'greeting', file_name: 'greeting', index: 0 });
    expect(r.status === 'loaded' && r.scenario_file?.format).toBe('top-level');
    expect(deprecationsOf(r).map((d) => [d.severity, d.path, d.line, d.col])).toEqual([['warning', 'turns', 2, 1]]);
    expect(deprecationsOf(r)[0].message).toContain(
      "deprecated since Pipecat 1.11.0 (it loads as the one scenario 'greeting')",
    );
  });

  it('the single-scenario functions take a one-scenario file, and refuse a file with several, located', async () => {
    const one = project.write('one.yaml', 'name: one\nscenarios:\n  - name: only\n    turns: []\n');
    expect((await loadScenario(one)).name).toBe('one/only');
    const error = (() => {
      try {
        loadFileSync(join(LIST, 'shared_turns.yaml'));
      } catch (e) {
        return e as ScenarioError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ScenarioError);
    expect(error?.diagnostics[0]).toMatchObject({ line: 16, col: 11 });
    expect(error?.message).toContain(
      'this file holds 2 scenarios (interruption/text, interruption/audio), where one is expected; load them all with loadScenarioFile()',
    );
  });

  it('inspectFile keeps the first scenario as loaded, for callers that take one', () => {
    const r = inspectFile(join(LIST, 'shared_turns.yaml'));
    expect(r.status === 'loaded' && (r.loaded as Scenario).name).toBe('interruption/text');
  });
});

describe('warnings for runners, and --strict', () => {
  it('a misspelled text_contians: is a warning the file carries, with a suggestion', () => {
    const p = project.write(
      'typo.yaml',
      'name: f\nscenarios:\n  - name: a\n    turns:\n      - user: hi\n        expect:\n          - event: response\n            text_contians: Paris\n',
    );
    const file = loadScenarioFile(p);
    expect(file.warnings.map((w) => [w.path, w.line, w.col, w.message])).toEqual([
      ['turns[0].expect[0].text_contians', 8, 13, "unknown key 'text_contians'; did you mean 'text_contains'?"],
    ]);
    expect(file.scenarios[0].warnings).toEqual(file.warnings);
  });

  it('strict: every warning is an error, so the file does not load', () => {
    const p = project.write(
      'typo.yaml',
      'name: f\nscenarios:\n  - name: a\n    turns:\n      - user: hi\n        expect:\n          - event: response\n            text_contians: Paris\n',
    );
    const r = inspectFile(p, { strict: true });
    expect(r.status).toBe('invalid');
    expect(errorsOf(r)[0].message).toBe(
      "unknown key 'text_contians'; did you mean 'text_contains'? (an error under --strict)",
    );
    expect(() => loadScenarioFile(p, { strict: true })).toThrow(/text_contians/);
  });
});
