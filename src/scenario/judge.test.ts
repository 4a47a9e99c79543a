import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { formatDiagnostic } from './diagnostics.js';
import { unrunnableFactories } from './hooks.js';
import { loadScenarioFile } from './load.js';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Scenario } from './types.js';

/** `judge.eval` blocks as Pipecat's newest `judge.py` reads them: explainer, explain_below, allow_continue, factory. */

const LIST = resolve(import.meta.dirname, 'testdata', 'list');

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

function judged(evalBlock: string): Scenario {
  return loadedOf(
    inspect(project, `name: f\njudge:\n  eval: ${evalBlock}\nscenarios:\n  - name: s\n    turns: [{user: hi}]\n`),
  ) as Scenario;
}

describe('judge blocks', () => {
  it("explainer: an LLM block, Pipecat's Ollama defaults filled in; false for none", () => {
    expect(judged('{service: openai, model: gpt-4o-mini, explainer: {service: ollama}}').judge.eval.explainer).toEqual({
      service: 'ollama',
      model: 'gemma4:12b',
      extra: { reasoning_effort: 'none' },
    });
    expect(judged('{explainer: false}').judge.eval.explainer).toBe(false);
    expect(judged('{service: openai, model: m}').judge.eval.explainer).toBeUndefined();
    const [error] = errorsOf(inspect(project, 'name: f\njudge: {eval: {explainer: true}}\nturns: []\n'));
    expect(error).toMatchObject({ path: 'judge.eval.explainer', line: 2, col: 27 });
  });

  it('explain_below: a number from 0, default 0.75', () => {
    expect(judged('{service: openai, model: m}').judge.eval.explain_below).toBe(0.75);
    expect(judged('{explain_below: 0}').judge.eval.explain_below).toBe(0);
    expect(judged('{explain_below: 1.5}').judge.eval.explain_below).toBe(1.5);
    expect(errorsOf(inspect(project, 'name: f\njudge: {eval: {explain_below: -1}}\nturns: []\n'))[0]).toMatchObject({
      path: 'judge.eval.explain_below',
      message: 'expected a non-negative number, got -1',
    });
  });

  it('allow_continue: a boolean, default true', () => {
    expect(judged('{service: openai, model: m}').judge.eval.allow_continue).toBe(true);
    expect(judged('{allow_continue: false}').judge.eval.allow_continue).toBe(false);
    expect(errorsOf(inspect(project, 'name: f\njudge: {eval: {allow_continue: maybe}}\nturns: []\n'))[0].path).toBe(
      'judge.eval.allow_continue',
    );
  });

  it('a Python factory: is kept as data, is not code earshot runs, and passes its block through', () => {
    const [audio] = loadScenarioFile(join(LIST, 'shared_turns.yaml')).scenarios.slice(1) as Scenario[];
    expect(audio.judge.eval).toMatchObject({ explain_below: 0.5, allow_continue: false, explainer: false });
    const [s] = loadScenarioFile(join(LIST, 'turn_completion.yaml')).scenarios as Scenario[];
    expect(s.judge.eval).toEqual({
      service: 'ollama',
      factory: 'evals.judges.typesafe_classifier',
      explainer: { service: 'ollama', model: 'gemma4:12b', extra: { reasoning_effort: 'none' } },
      explain_below: 0.75,
      allow_continue: true,
    });
    expect(s.code_hooks).toEqual([
      {
        block: 'judge.eval',
        factory: 'evals.judges.typesafe_classifier',
        runtime: 'python',
        module: 'evals.judges',
        export: 'typesafe_classifier',
        location: {
          file: join(LIST, 'judge_text.yaml'),
          line: 3,
          col: 12,
          included_from: { file: join(LIST, 'turn_completion.yaml'), line: 5, col: 17 },
        },
      },
    ]);
    expect(s.requires_code).toBe(false);
  });

  it('a Python factory: the run refuses it in one located line naming the --judge override, unless --judge replaces the block', () => {
    const [s] = loadScenarioFile(join(LIST, 'turn_completion.yaml')).scenarios as Scenario[];
    const [line, ...more] = unrunnableFactories(s).map((d) => formatDiagnostic(d, { cwd: LIST }));
    expect(more).toEqual([]);
    expect(line).toBe(
      "judge_text.yaml:3:12: error: judge.eval.factory: evals.judges.typesafe_classifier is a Python callable (Pipecat's factory:), which earshot cannot run in Node; judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL (included from turn_completion.yaml:5:17)",
    );
    expect(unrunnableFactories(s, ['judge.eval'])).toEqual([]);
  });

  it('Python factories in speech, transcription and explainer blocks name their own override', () => {
    const s = loadedOf(
      inspect(
        project,
        'name: f\nuser: {modality: audio, speech: {factory: my.tts}}\njudge:\n  modality: audio\n  eval: {explainer: {factory: my.explain}}\n  transcription: {factory: my.stt}\nturns: [{user: hi}]\n',
      ),
    ) as Scenario;
    expect(unrunnableFactories(s).map((d) => [d.path, d.line, d.message.split('; ')[1]])).toEqual([
      ['user.speech.factory', 2, 'speak the user turns with --tts NAME'],
      [
        'judge.eval.explainer.factory',
        5,
        'replace the judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL, or set explainer: false',
      ],
      ['judge.transcription.factory', 6, "transcribe the bot's speech with --stt NAME"],
    ]);
    expect(unrunnableFactories(s, ['judge.eval', 'user.speech', 'judge.transcription'])).toEqual([]);
  });

  it('a JavaScript factory: needs --allow-code, and a runner has nothing to refuse', () => {
    const s = judged('{factory: "./judge.js#make", model: m, temperature: 0}');
    expect(s.requires_code).toBe(true);
    expect(s.code_hooks.map((h) => [h.runtime, h.module, h.export])).toEqual([
      ['node', project.path('judge.js'), 'make'],
    ]);
    expect(s.judge.eval).toMatchObject({ factory: './judge.js#make', temperature: 0 });
    expect(unrunnableFactories(s)).toEqual([]);
  });

  it('extra keys in a judge block without a factory are warned about', () => {
    const r = inspect(
      project,
      'name: f\njudge: {eval: {service: openai, model: m, explain_belw: 1}}\nturns: [{user: hi}]\n',
    );
    expect(warningsOf(r).map((w) => w.message)).toEqual([
      "unknown key 'explain_belw' (extra keys are passed only to a factory:); did you mean 'explain_below'?",
    ]);
  });
});
