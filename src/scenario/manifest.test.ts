import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { inspectFile } from './load.js';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
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
        scenarios: [
          { ref: 'greeting', name: 'greeting', file: join(DIR, 'scenarios/greeting.yaml') },
          { ref: 'scenarios/book_table.yaml', name: 'book_table', file: join(DIR, 'scenarios/book_table.yaml') },
        ],
      },
      {
        bot: 'vision/vision-b.py',
        bot_path: join(TESTDATA, 'bots/vision/vision-b.py'),
        runner_body: join(DIR, 'bodies/cat.json'),
        scenarios: [{ ref: 'greeting', name: 'greeting', file: join(DIR, 'scenarios/greeting.yaml') }],
      },
    ]);
  });

  it('fills the defaults Pipecat uses', () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: []\n');
    const m = loadedOf(inspect(project, 'suite:\n  - bot: b.py\n    scenarios: [a]\n', {}, 'm.yaml')) as Manifest;
    expect(m).toMatchObject({ bots_dir: project.dir, scenarios_dir: project.path('scenarios'), concurrency: 4, repeat: 1, base_port: 7900, record: false });
    expect(m.runs_dir).toBeUndefined();
  });

  it('a scenario that does not exist is a located error', () => {
    const [error] = errorsOf(inspect(project, 'suite:\n  - bot: b.py\n    scenarios:\n      - nope\n', {}, 'm.yaml'));
    expect(error).toMatchObject({ path: 'suite[0].scenarios[0]', line: 4, col: 9 });
    expect(error.message).toBe(`scenario not found: nope (looked for ${project.path('scenarios/nope.yaml')})`);
  });

  it('a missing runner body is a located error', () => {
    project.write('scenarios/a.yaml', 'name: a\nturns: []\n');
    const [error] = errorsOf(inspect(project, 'suite:\n  - bot: b.py\n    runner_body: body.json\n    scenarios: [a]\n', {}, 'm.yaml'));
    expect(error.path).toBe('suite[0].runner_body');
  });

  it('checks numbers: repeat and concurrency at least 1, base_port a port', () => {
    const errors = errorsOf(inspect(project, 'repeat: 0\nconcurrency: many\nbase_port: 70000\nsuite: []\n', {}, 'm.yaml'));
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['repeat', 'expected a positive integer, got 0'],
      ['concurrency', 'expected a positive integer, got "many"'],
      ['base_port', 'expected an integer from 1 to 65535, got 70000'],
    ]);
  });

  it('every suite entry needs a bot; an entry without scenarios is a warning', () => {
    expect(errorsOf(inspect(project, 'suite:\n  - scenarios: []\n', {}, 'm.yaml'))[0].message).toBe("missing required key 'bot' (a non-empty string)");
    expect(warningsOf(inspect(project, 'suite:\n  - bot: b.py\n', {}, 'm.yaml'))[0].message).toBe('bot b.py has no scenarios to run');
  });
});
