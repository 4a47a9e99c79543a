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
    expect(results.map((r) => [r.file.slice(project.dir.length + 1), r.status, r.loaded?.kind])).toEqual([
      ['suite/manifest.yaml', 'valid', 'manifest'],
      ['suite/scenarios/bad.yml', 'invalid', undefined],
      ['suite/scenarios/good.yaml', 'valid', 'script'],
      ['suite/scenarios/judge.yaml', 'skipped', undefined],
      ['suite/sims/sim.yaml', 'valid', 'simulation'],
    ]);
    expect(results[1].diagnostics[0]).toMatchObject({ severity: 'error', line: 3, col: 12 });
  });

  it('a fragment named explicitly is invalid', () => {
    const [r] = validatePaths([project.path('suite/scenarios/judge.yaml')]);
    expect(r.status).toBe('invalid');
    expect(r.diagnostics[0].message).toContain("needs 'turns:' (scripted), 'persona:' (a simulation) or 'suite:' (a manifest)");
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
