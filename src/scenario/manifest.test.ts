import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { inspectFile } from './load.js';
import { expandManifest } from './manifest-expand.js';
import { deprecationsOf, errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Manifest } from './types.js';

const TESTDATA = resolve(import.meta.dirname, 'testdata');
const DIR = join(TESTDATA, 'manifest');

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

describe('suite manifests', () => {
  it("loads Pipecat's format with paths resolved against the manifest's folder", () => {
    const m = loadedOf(inspectFile(join(DIR, 'manifest.yaml'))) as Manifest;
    expect(m).toMatchObject({
      kind: 'manifest',
      bots_dir: join(TESTDATA, 'bots'),
      scenarios_dir: join(DIR, 'scenarios'),
      runs_dir: join(DIR, 'runs'),
      concurrency: 2,
      repeat: 3,
      base_port: 7900,
      record: true,
      spawn: '{python} {bot} -t eval --port {port}',
    });
    expect(m.suite).toEqual([
      {
        bot: 'voice/voice-a.py',
        bot_path: join(TESTDATA, 'bots/voice/voice-a.py'),
        name: 'voice/voice-a.py',
        scenarios: [
          { ref: 'greeting', name: 'greeting', file: join(DIR, 'scenarios/greeting.yaml') },
          { ref: 'scenarios/book_table.yaml', name: 'book_table', file: join(DIR, 'scenarios/book_table.yaml') },
        ],
      },
      {
        bot: 'vision/vision-b.py',
        bot_path: join(TESTDATA, 'bots/vision/vision-b.py'),
        name: 'vision/vision-b.py',
        runner_body: join(DIR, 'bodies/cat.json'),
        scenarios: [{ ref: 'greeting', name: 'greeting', file: join(DIR, 'scenarios/greeting.yaml') }],
      },
    ]);
  });

  it('fills the defaults Pipecat uses', () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: []\n');
    const m = loadedOf(inspect(project, 'suite:\n  - bot: b.py\n    scenarios: [a]\n', {}, 'm.yaml')) as Manifest;
    expect(m).toMatchObject({
      bots_dir: project.dir,
      scenarios_dir: project.path('scenarios'),
      concurrency: 4,
      repeat: 1,
      base_port: 7900,
      record: false,
    });
    expect(m.runs_dir).toBeUndefined();
  });

  it('a scenario that does not exist is a located error', () => {
    const [error] = errorsOf(inspect(project, 'suite:\n  - bot: b.py\n    scenarios:\n      - nope\n', {}, 'm.yaml'));
    expect(error).toMatchObject({ path: 'suite[0].scenarios[0]', line: 4, col: 9 });
    expect(error.message).toBe(`scenario not found: nope (looked for ${project.path('scenarios/nope.yaml')})`);
  });

  it('a missing runner body is a located error', () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: []\n');
    const [error] = errorsOf(
      inspect(project, 'suite:\n  - bot: b.py\n    runner_body: body.json\n    scenarios: [a]\n', {}, 'm.yaml'),
    );
    expect(error.path).toBe('suite[0].runner_body');
  });

  it('checks numbers: repeat and concurrency at least 1, base_port a port', () => {
    const errors = errorsOf(
      inspect(project, 'repeat: 0\nconcurrency: many\nbase_port: 70000\nsuite: []\n', {}, 'm.yaml'),
    );
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['repeat', 'expected a positive integer, got 0'],
      ['concurrency', 'expected a positive integer, got "many"'],
      ['base_port', 'expected an integer from 1 to 65535, got 70000'],
    ]);
  });

  it('every suite entry needs a bot; an entry without scenarios is a warning', () => {
    expect(errorsOf(inspect(project, 'suite:\n  - scenarios: []\n', {}, 'm.yaml'))[0].message).toBe(
      "missing required key 'bot' (a non-empty string)",
    );
    expect(warningsOf(inspect(project, 'suite:\n  - bot: b.py\n', {}, 'm.yaml'))[0].message).toBe(
      'bot b.py has no scenarios to run',
    );
  });

  it('an entry like scripted/capital_question resolves under scenarios_dir with .yaml added, not beside the manifest', () => {
    project.write(
      'evals/scenarios/scripted/capital_question.yaml',
      'name: capital_question\nscenarios:\n  - name: capital_question\n    turns: [{user: hi}]\n',
    );
    project.write('evals/other/x.yaml', 'name: x\nscenarios:\n  - name: x\n    turns: [{user: hi}]\n');
    const m = loadedOf(
      inspect(
        project,
        'scenarios_dir: scenarios\nsuite:\n  - bot: b.py\n    scenarios: [scripted/capital_question, other/x.yaml]\n',
        {},
        'evals/m.yaml',
      ),
    ) as Manifest;
    expect(m.suite[0].scenarios).toEqual([
      {
        ref: 'scripted/capital_question',
        name: 'capital_question',
        file: project.path('evals/scenarios/scripted/capital_question.yaml'),
      },
      { ref: 'other/x.yaml', name: 'x', file: project.path('evals/other/x.yaml') },
    ]);
    const [error] = errorsOf(
      inspect(project, 'suite:\n  - bot: b.py\n    scenarios: [scripted/nope]\n', {}, 'evals/m2.yaml'),
    );
    expect(error.message).toBe(
      `scenario not found: scripted/nope (looked for ${project.path('evals/scenarios/scripted/nope.yaml')})`,
    );
  });

  it("per-entry name: (the label, default the bot) and concurrency: (the entry's own cap)", () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: [{user: hi}]\n');
    const m = loadedOf(
      inspect(
        project,
        'suite:\n  - bot: b.py\n    name: groq/llama\n    concurrency: 2\n    scenarios: [a]\n  - bot: b.py\n    scenarios: [a]\n',
        {},
        'm.yaml',
      ),
    ) as Manifest;
    expect(m.suite.map((e) => [e.bot, e.name, e.concurrency])).toEqual([
      ['b.py', 'groq/llama', 2],
      ['b.py', 'b.py', undefined],
    ]);
    expect(
      errorsOf(inspect(project, 'suite:\n  - bot: b.py\n    concurrency: 0\n    scenarios: [a]\n', {}, 'm.yaml'))[0],
    ).toMatchObject({
      path: 'suite[0].concurrency',
      message: 'expected a positive integer, got 0',
    });
  });

  it('runner_body: {path} (relative to the manifest) or {data}, exactly one; a bare path is deprecated', () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: [{user: hi}]\n');
    project.write('bodies/cat.yaml', 'image_path: cat.jpg\n');
    const m = loadedOf(
      inspect(
        project,
        'suite:\n  - bot: b.py\n    runner_body: {path: bodies/cat.yaml}\n    scenarios: [a]\n  - bot: c.py\n    runner_body:\n      data: {model: gpt-4o-mini}\n    scenarios: [a]\n',
        {},
        'm.yaml',
      ),
    ) as Manifest;
    expect(m.suite.map((e) => [e.runner_body, e.runner_body_data])).toEqual([
      [project.path('bodies/cat.yaml'), undefined],
      [undefined, { model: 'gpt-4o-mini' }],
    ]);
    const bare = inspect(
      project,
      'suite:\n  - bot: b.py\n    runner_body: bodies/cat.yaml\n    scenarios: [a]\n',
      {},
      'm.yaml',
    );
    expect((loadedOf(bare) as Manifest).suite[0].runner_body).toBe(project.path('bodies/cat.yaml'));
    expect(deprecationsOf(bare).map((d) => [d.path, d.line, d.col])).toEqual([['suite[0].runner_body', 3, 18]]);
    const both = errorsOf(
      inspect(
        project,
        'suite:\n  - bot: b.py\n    runner_body: {path: bodies/cat.yaml, data: {}}\n    scenarios: [a]\n',
        {},
        'm.yaml',
      ),
    );
    expect(both.map((e) => [e.path, e.message])).toEqual([
      [
        'suite[0].runner_body',
        "'runner_body:' holds exactly one of 'path:' (a body file) or 'data:' (the body itself)",
      ],
    ]);
    expect(
      errorsOf(
        inspect(
          project,
          'suite:\n  - bot: b.py\n    runner_body: {path: nope.yaml}\n    scenarios: [a]\n',
          {},
          'm.yaml',
        ),
      )[0].path,
    ).toBe('suite[0].runner_body.path');
  });

  it('a file entry runs every scenario in it: expandManifest lists each entry with its scenario ids', () => {
    project.write(
      'scenarios/scripted/pair.yaml',
      'name: pair\nturns: [{user: hi}]\nscenarios:\n  - name: text\n  - name: audio\n',
    );
    project.write('scenarios/simulated/caller.yaml', 'name: caller\npersona: p\ngoal: g\nsuccess: s\n');
    const m = loadedOf(
      inspect(
        project,
        'suite:\n  - bot: a.py\n    scenarios: [scripted/pair, simulated/caller]\n  - bot: b.py\n    scenarios: [scripted/pair]\n',
        {},
        'm.yaml',
      ),
    ) as Manifest;
    const x = expandManifest(m);
    expect(x.diagnostics).toEqual([]);
    expect(x.entries.map((e) => [e.entry.name, e.scenarios.map((s) => [s.ref.ref, s.id, s.scenario?.kind])])).toEqual([
      [
        'a.py',
        [
          ['scripted/pair', 'pair/text', 'script'],
          ['scripted/pair', 'pair/audio', 'script'],
          ['simulated/caller', 'caller', 'simulation'],
        ],
      ],
      [
        'b.py',
        [
          ['scripted/pair', 'pair/text', 'script'],
          ['scripted/pair', 'pair/audio', 'script'],
        ],
      ],
    ]);
    expect([...x.files.keys()]).toEqual([
      project.path('scenarios/scripted/pair.yaml'),
      project.path('scenarios/simulated/caller.yaml'),
    ]);
  });

  it('expandManifest: a file that does not load still stands for one run under its name, with a located error', () => {
    project.write('scenarios/broken.yaml', 'name: broken\nscenarios: []\n');
    const m = loadedOf(
      inspect(project, 'suite:\n  - bot: a.py\n    scenarios:\n      - broken\n', {}, 'm.yaml'),
    ) as Manifest;
    const x = expandManifest(m);
    expect(x.entries[0].scenarios).toEqual([{ ref: m.suite[0].scenarios[0], id: 'broken' }]);
    expect(x.diagnostics.map((d) => [d.file, d.path, d.line, d.col])).toEqual([
      [project.path('m.yaml'), 'suite[0].scenarios[0]', 4, 9],
    ]);
    expect(x.diagnostics[0].message).toContain(
      `scenario file broken does not load (1 error): ${project.path('scenarios/broken.yaml')}:2:12: error: scenarios:`,
    );
  });

  it('expandManifest: one label running the same scenario twice is an error; a name: tells entries apart', () => {
    project.write('scenarios/a.yaml', 'name: a\nscenarios:\n  - name: x\n    turns: [{user: hi}]\n');
    const twice = loadedOf(
      inspect(project, 'suite:\n  - bot: b.py\n    scenarios: [a]\n  - bot: b.py\n    scenarios: [a]\n', {}, 'm.yaml'),
    ) as Manifest;
    expect(expandManifest(twice).diagnostics.map((d) => [d.path, d.line, d.message])).toEqual([
      [
        'suite[1].scenarios[0]',
        5,
        "'b.py' runs 'a/x' twice (also from suite[0].scenarios[0]); give one of the entries a 'name:'",
      ],
    ]);
    const named = loadedOf(
      inspect(
        project,
        'suite:\n  - bot: b.py\n    scenarios: [a]\n  - bot: b.py\n    name: sweep\n    scenarios: [a]\n',
        {},
        'm.yaml',
      ),
    ) as Manifest;
    expect(expandManifest(named).diagnostics).toEqual([]);
  });
});
