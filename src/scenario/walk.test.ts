import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { TempProject } from './scenario.testutil.js';
import { validatePaths } from './walk.js';

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
  project.write('suite/scenarios/good.yaml', 'name: good\njudge: !include judge.yaml\nturns: []\n');
  project.write('suite/scenarios/judge.yaml', 'modality: text\n');
  project.write('suite/scenarios/bad.yml', 'name: bad\nturns:\n  - dtmf: "x"\n');
  project.write('suite/sims/sim.yaml', 'name: s\npersona: p\ngoal: g\nsuccess: s\n');
  project.write('suite/manifest.yaml', 'suite:\n  - bot: b.py\n    scenarios: [good]\n');
  project.write('suite/notes.txt', 'not yaml');
  project.write('suite/node_modules/pkg/x.yaml', 'name: ignored\nturns: 3\n');
  project.write('suite/.hidden/x.yaml', 'name: ignored\nturns: 3\n');
});
afterEach(() => project.cleanup());

describe('validatePaths', () => {
  it('walks folders for *.yaml and *.yml, skipping include fragments, dependencies and hidden folders', () => {
    const results = validatePaths([project.path('suite')]);
    expect(results.map((r) => [r.file.slice(project.dir.length + 1), r.status, r.kind, r.loaded?.kind])).toEqual([
      ['suite/manifest.yaml', 'valid', 'manifest', 'manifest'],
      ['suite/scenarios/bad.yml', 'invalid', 'scenarios', undefined],
      ['suite/scenarios/good.yaml', 'valid', 'scenarios', 'script'],
      ['suite/scenarios/judge.yaml', 'skipped', 'fragment', undefined],
      ['suite/sims/sim.yaml', 'valid', 'scenarios', 'simulation'],
    ]);
    expect(results[1].diagnostics.find((d) => d.severity === 'error')).toMatchObject({ line: 3, col: 12 });
    expect(results[3].used_by).toEqual([project.path('suite/scenarios/good.yaml')]);
  });

  it('a fragment is skipped only when an input, or a file in its folder tree, includes it', () => {
    // Named alone, its user is found beside it.
    expect(validatePaths([project.path('suite/scenarios/judge.yaml')]).map((r) => [r.status, r.used_by])).toEqual([
      ['skipped', [project.path('suite/scenarios/good.yaml')]],
    ]);
    project.write('suite/scenarios/orphan.yaml', 'modality: audio\n');
    const [orphan] = validatePaths([project.path('suite/scenarios/orphan.yaml')]);
    expect(orphan.status).toBe('invalid');
    expect(orphan.diagnostics[0]).toMatchObject({ severity: 'error', line: 1, col: 1 });
    expect(orphan.diagnostics[0].message).toContain("a scenario file needs 'name:' and 'scenarios:'");
    expect(orphan.diagnostics[0].message).toContain('nothing among the inputs or in its folder includes it');
  });

  it('a fragment with a name: (a shared metric) is still a fragment when a file includes it', () => {
    project.write('suite/sims/polite.yaml', 'name: politeness\ncriterion: "the reply is courteous"\n');
    project.write(
      'suite/sims/sim.yaml',
      'name: s\nscenarios:\n  - name: a\n    persona: p\n    goal: g\n    success: s\n    metrics: [!include polite.yaml]\n',
    );
    expect(
      validatePaths([project.path('suite/sims')]).map((r) => [r.file.slice(project.dir.length + 1), r.status]),
    ).toEqual([
      ['suite/sims/polite.yaml', 'skipped'],
      ['suite/sims/sim.yaml', 'valid'],
    ]);
  });

  it("a manifest's runner body in YAML is a fragment the manifest uses", () => {
    project.write('suite/body.yaml', 'image_path: cat.jpg\n');
    project.write(
      'suite/manifest.yaml',
      'suite:\n  - bot: b.py\n    runner_body: {path: body.yaml}\n    scenarios: [good]\n',
    );
    const body = validatePaths([project.path('suite')]).find((r) => r.file.endsWith('body.yaml'));
    expect(body).toMatchObject({ status: 'skipped', kind: 'fragment', used_by: [project.path('suite/manifest.yaml')] });
  });

  it('a list or an empty file is a fragment too when some file includes it (shared turns:)', () => {
    project.write('suite/scenarios/turns.yaml', '- user: hi\n');
    project.write('suite/scenarios/empty.yaml', '');
    project.write(
      'suite/scenarios/shared.yaml',
      'name: shared\nscenarios:\n  - name: a\n    turns: !include turns.yaml\n',
    );
    const results = validatePaths([project.path('suite/scenarios')]);
    expect(results.map((r) => [r.file.slice(project.dir.length + 1), r.status])).toEqual([
      ['suite/scenarios/bad.yml', 'invalid'],
      ['suite/scenarios/empty.yaml', 'invalid'],
      ['suite/scenarios/good.yaml', 'valid'],
      ['suite/scenarios/judge.yaml', 'skipped'],
      ['suite/scenarios/shared.yaml', 'valid'],
      ['suite/scenarios/turns.yaml', 'skipped'],
    ]);
    expect(results[1].diagnostics[0].message).toBe(
      'empty file: nothing to load; nothing among the inputs or in its folder includes it, so it is not an include fragment either',
    );
  });

  it('a manifest that runs one scenario twice under one label is invalid, located at the second reference', () => {
    project.write('suite/manifest.yaml', 'suite:\n  - bot: b.py\n    scenarios: [good, scenarios/good.yaml]\n');
    const manifest = validatePaths([project.path('suite/manifest.yaml')])[0];
    expect(manifest.status).toBe('invalid');
    expect(manifest.diagnostics.map((d) => [d.path, d.line, d.col, d.message])).toEqual([
      [
        'suite[0].scenarios[1]',
        3,
        23,
        "'b.py' runs 'good' twice (also from suite[0].scenarios[0]); give one of the entries a 'name:'",
      ],
    ]);
  });

  it('a path that does not exist is a usage error', () => {
    expect(() => validatePaths([project.path('nope')])).toThrow(UsageError);
  });

  it('does not follow symlinked folders (a link up the tree would loop) and reports each file once', () => {
    mkdirSync(project.path('suite/loop'));
    symlinkSync(project.path('suite'), project.path('suite/loop/up'));
    const results = validatePaths([project.path('suite'), project.path('suite/scenarios/good.yaml')]);
    expect(results).toHaveLength(5);
  });
});
