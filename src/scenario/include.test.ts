import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { inspectFile } from './load.js';
import { findScenarioRoot, type RootCache } from './root.js';
import { errorsOf, inspect, loadedOf, TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';

const TESTDATA = resolve(import.meta.dirname, 'testdata');

let project: TempProject;
let outside: TempProject;
beforeEach(() => {
  project = new TempProject();
  outside = new TempProject();
});
afterEach(() => {
  project.cleanup();
  outside.cleanup();
});

/** A cache that says no folder above the temp dirs is a project, so the tests do not depend on what /tmp holds. */
function isolatedCache(...dirs: string[]): RootCache {
  const cache: RootCache = new Map();
  for (const d of dirs) {
    for (let p = dirname(d); ; p = dirname(p)) {
      cache.set(p, false);
      if (dirname(p) === p) break;
    }
  }
  return cache;
}

describe('!include', () => {
  it('resolves relative to the including file, nested', () => {
    const s = loadedOf(inspectFile(join(TESTDATA, 'full/every_field.yaml'))) as Scenario;
    // every_field.yaml includes ../includes/shared/user_audio.yaml, which includes speech.yaml beside itself.
    expect(s.user.speech).toEqual({ service: 'kokoro', voice: 'af_heart', sample_rate: 16000 });
  });

  it('an error inside an included file names that file, its line and column, and the include site', () => {
    const r = inspectFile(join(TESTDATA, 'includes/nested.yaml'));
    const [error] = errorsOf(r);
    expect(error).toMatchObject({
      file: join(TESTDATA, 'includes/shared/judge_bad.yaml'),
      line: 4,
      col: 17,
      path: 'judge.transcription.padding_secs',
      message: 'expected a non-negative number (s), got "lots"',
      included_from: `${join(TESTDATA, 'includes/nested.yaml')}:2:17`,
    });
  });

  it('an include cycle is a located error, not a hang', () => {
    const [error] = errorsOf(inspectFile(join(TESTDATA, 'includes/cycle_a.yaml')));
    expect(error).toMatchObject({ file: join(TESTDATA, 'includes/cycle_b.yaml'), line: 2, col: 16 });
    expect(error.message).toBe(
      `!include cycle: ${join(TESTDATA, 'includes/cycle_a.yaml')} -> ${join(TESTDATA, 'includes/cycle_b.yaml')} -> ${join(TESTDATA, 'includes/cycle_a.yaml')}`,
    );
  });

  it('a missing included file is a located error', () => {
    const [error] = errorsOf(inspectFile(join(TESTDATA, 'includes/missing.yaml')));
    expect(error).toMatchObject({ line: 2, col: 16 });
    expect(error.message).toContain('!include shared/nope.yaml: file not found');
  });

  it('is confined to the scenario root: !include /etc/passwd is refused', () => {
    const [error] = errorsOf(inspectFile(join(TESTDATA, 'includes/escape.yaml')));
    expect(error).toMatchObject({ line: 2, col: 17 });
    expect(error.message).toContain('outside the scenario root');
    expect(error.message).toContain('--allow-outside-root');
  });

  it('may leave the root with allowOutsideRoot', () => {
    outside.write('judge.yaml', 'modality: text\n');
    const yaml = `name: d\njudge: !include ${outside.path('judge.yaml')}\nturns: []\n`;
    expect(errorsOf(inspect(project, yaml))[0].message).toContain('outside the scenario root');
    expect(loadedOf(inspect(project, yaml, { allowOutsideRoot: true })).includes).toEqual([outside.path('judge.yaml')]);
  });

  it('resolves symlinks before the root check: a link pointing outside is refused', () => {
    outside.write('judge.yaml', 'modality: text\n');
    symlinkSync(outside.path('judge.yaml'), project.path('judge.yaml'));
    const [error] = errorsOf(inspect(project, 'name: d\njudge: !include judge.yaml\nturns: []\n'));
    expect(error.message).toContain(
      `resolves to ${outside.path('judge.yaml')}, outside the scenario root ${project.dir}`,
    );
  });

  it('takes only a file path: a mapping, an empty path or a folder is an error', () => {
    mkdirSync(project.path('folder'));
    expect(errorsOf(inspect(project, 'name: d\njudge: !include {a: 1}\nturns: []\n'))[0].message).toContain(
      'expects a file path',
    );
    expect(errorsOf(inspect(project, 'name: d\njudge: !include ""\nturns: []\n'))[0].message).toBe(
      '!include needs a file path',
    );
    expect(errorsOf(inspect(project, 'name: d\njudge: !include folder\nturns: []\n'))[0].message).toContain(
      'is a directory',
    );
  });

  it('limits nesting depth', () => {
    for (let i = 0; i < 5; i++) project.write(`n${i}.yaml`, `x: !include n${i + 1}.yaml\n`);
    project.write('n5.yaml', 'end: true\n');
    const [error] = errorsOf(
      inspect(project, 'name: d\ncontext:\n  - !include n0.yaml\nturns: []\n', { limits: { maxIncludeDepth: 3 } }),
    );
    expect(error.message).toBe('!include nested more than 3 levels deep');
    expect(error.file).toBe(project.path('n2.yaml'));
  });
});

describe('image: and audio: confinement', () => {
  it('refuses a path outside the root and a symlink leaving it, unless allowed', () => {
    outside.write('cat.jpg', 'jpg');
    symlinkSync(outside.path('cat.jpg'), project.path('link.jpg'));
    const abs = inspect(project, `name: d\nturns:\n  - user: hi\n    image: ${outside.path('cat.jpg')}\n`);
    expect(errorsOf(abs)[0]).toMatchObject({ path: 'turns[0].image', line: 4, col: 12 });
    const link = inspect(project, 'name: d\nturns:\n  - user: hi\n    image: link.jpg\n');
    expect(errorsOf(link)[0].message).toContain('outside the scenario root');
    const allowed = loadedOf(
      inspect(project, 'name: d\nturns:\n  - user: hi\n    image: link.jpg\n', { allowOutsideRoot: true }),
    ) as Scenario;
    expect(allowed.turns[0].image).toBe(project.path('link.jpg'));
  });

  it("allows Pipecat's sibling assets folder: the root is the folder holding the suite manifest", () => {
    const pipecat = new TempProject(false);
    try {
      pipecat.write('manifest.yaml', 'suite:\n  - bot: b.py\n    scenarios: [look]\n');
      pipecat.write('assets/cat.jpg', 'jpg');
      const file = pipecat.write(
        'scenarios/look.yaml',
        'name: look\nturns:\n  - user: see?\n    image: ../assets/cat.jpg\n',
      );
      const s = loadedOf(inspectFile(file, { rootCache: isolatedCache(pipecat.dir) })) as Scenario;
      expect(s.root).toBe(pipecat.dir);
      expect(s.turns[0].image).toBe(pipecat.path('assets/cat.jpg'));
    } finally {
      pipecat.cleanup();
    }
  });
});

describe('scenario root', () => {
  it('is the nearest ancestor with a package.json, a .git or a suite manifest', () => {
    const tree = new TempProject(false);
    try {
      const file = tree.write('a/b/c/s.yaml', 'name: x\n');
      const cache = () => isolatedCache(tree.dir);
      expect(findScenarioRoot(file, undefined, cache())).toBe(tree.path('a/b/c'));
      tree.write('a/package.json', '{}');
      expect(findScenarioRoot(file, undefined, cache())).toBe(tree.path('a'));
      mkdirSync(tree.path('a/b/.git'));
      expect(findScenarioRoot(file, undefined, cache())).toBe(tree.path('a/b'));
      tree.write('a/b/c/manifest.yml', '# suite\nsuite:\n  - bot: x.py\n');
      expect(findScenarioRoot(file, undefined, cache())).toBe(tree.path('a/b/c'));
    } finally {
      tree.cleanup();
    }
  });

  it('falls back to the folder given on the command line, else the file folder', () => {
    const tree = new TempProject(false);
    try {
      const file = tree.write('given/deeper/s.yaml', 'name: x\n');
      expect(findScenarioRoot(file, tree.path('given'), isolatedCache(tree.dir))).toBe(tree.path('given'));
      expect(findScenarioRoot(file, undefined, isolatedCache(tree.dir))).toBe(tree.path('given/deeper'));
    } finally {
      tree.cleanup();
    }
  });
});
