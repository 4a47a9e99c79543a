import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { TempProject } from '../../../../src/scenario/scenario.testutil.js';
import { CLI } from '../../../support/paths.js';

/** `earshot validate`, run as a user runs it: the built CLI in a subprocess. */
let project: TempProject;
let outside: TempProject;

function earshot(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: project.dir,
    encoding: 'utf8',
    env: { ...process.env, EARSHOT_DEBUG: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first: npx tsc -p tsconfig.build.json (missing ${CLI})`);
});
beforeEach(() => {
  project = new TempProject();
  outside = new TempProject();
  project.write(
    'evals/greeting.yaml',
    'name: greeting\njudge: !include judge.yaml\nturns:\n  - expect:\n      - event: response\n        eval: "greets"\n',
  );
  project.write('evals/judge.yaml', 'eval: {service: openai, model: gpt-4o-mini, api_key: sk-test-0123456789}\n');
});
afterEach(() => {
  project.cleanup();
  outside.cleanup();
});

describe('earshot validate', () => {
  it('exits 0 when every file is valid, listing each file and the fragments it skips with who uses them', () => {
    const r = earshot('validate', 'evals');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'valid    evals/greeting.yaml (script: greeting)\n' +
        "  evals/greeting.yaml:3:1: warning: turns: a scenario's own keys at the top level ('turns:') are deprecated since Pipecat 1.11.0 (it loads as the one scenario 'greeting'); put it under a 'scenarios:' list: scenarios: [{name: ..., turns: ...}]\n" +
        'skipped  evals/judge.yaml (include fragment, used by evals/greeting.yaml)\n\n' +
        '1 valid, 0 invalid (1 scripted, 0 simulations, 0 manifests; 1 file), 1 fragment skipped\n',
    );
  });

  it('--category / --severity list only the scenarios with those labels (earshot extension); a bad level is a usage error', () => {
    project.write(
      'evals/labelled.yaml',
      'name: labelled\nscenarios:\n  - name: hi\n    category: smalltalk\n    severity: low\n    turns:\n      - user: hi\n  - name: caller\n    category: booking\n    severity: critical\n    persona: p\n    goal: g\n    success: s\n',
    );
    const r = earshot('validate', 'evals/labelled.yaml', 'evals/greeting.yaml', '--severity', 'critical,high');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'valid    evals/labelled.yaml (simulation: labelled/caller)\n\n1 valid, 0 invalid (0 scripted, 1 simulation, 0 manifests; 1 file), 0 fragments skipped\n',
    );
    const json = JSON.parse(
      earshot('validate', 'evals/labelled.yaml', '--json', '--category', 'smalltalk').stdout,
    ) as Array<{ id: string }>;
    expect(json.map((e) => e.id)).toEqual(['labelled/hi']);
    const bad = earshot('validate', 'evals', '--severity', 'urgent');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('expected critical, high, medium, low (comma-separated), got urgent');
  });

  it('exits 1 when a file is invalid and prints each problem as file:line:col: error: path: message', () => {
    project.write(
      'evals/bad.yaml',
      'name: bad\nturns:\n  - user: hi\n    expect:\n      - event: response\n        within_ms: abc\n        evnt: x\n',
    );
    const r = earshot('validate', 'evals');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'invalid  evals/bad.yaml (script: bad)\n' +
        "  evals/bad.yaml:2:1: warning: turns: a scenario's own keys at the top level ('turns:') are deprecated since Pipecat 1.11.0 (it loads as the one scenario 'bad'); put it under a 'scenarios:' list: scenarios: [{name: ..., turns: ...}]\n" +
        '  evals/bad.yaml:6:20: error: turns[0].expect[0].within_ms: expected a positive integer (ms), got "abc"\n' +
        "  evals/bad.yaml:7:9: warning: turns[0].expect[0].evnt: unknown key 'evnt'; did you mean 'event'?\n",
    );
    expect(r.stdout).toContain(
      '1 valid, 1 invalid (1 scripted, 0 simulations, 0 manifests; 2 files), 1 fragment skipped',
    );
    expect(r.stdout).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a scenarios: file lists its scenario ids; a problem of one scenario names it; the count is of scenarios', () => {
    project.write(
      'evals/pair.yaml',
      'name: pair\njudge: !include judge.yaml\nscenarios:\n  - name: ask\n    turns:\n      - user: hi\n        expect:\n          - event: response\n            text_contians: hello\n  - name: caller\n    persona: p\n    goal: g\n    success: s\n',
    );
    const r = earshot('validate', 'evals/pair.yaml');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'valid    evals/pair.yaml (1 scripted, 1 simulation: pair/ask, pair/caller)\n' +
        "  evals/pair.yaml:9:13: warning: turns[0].expect[0].text_contians: unknown key 'text_contians'; did you mean 'text_contains'? [pair/ask]\n\n" +
        '2 valid, 0 invalid (1 scripted, 1 simulation, 0 manifests; 1 file), 0 fragments skipped\n',
    );
  });

  it('never skips a file silently: a fragment is skipped when a file beside it includes it, any other non-scenario is invalid', () => {
    const used = earshot('validate', 'evals/judge.yaml');
    expect(used.status).toBe(0);
    expect(used.stdout).toContain('skipped  evals/judge.yaml (include fragment, used by evals/greeting.yaml)');
    project.write('evals/scenario.yaml', 'name: typo\nscenario:\n  - name: a\n    turns: []\n');
    const orphan = earshot('validate', 'evals');
    expect(orphan.status).toBe(1);
    expect(orphan.stdout).toContain(
      "invalid  evals/scenario.yaml\n  evals/scenario.yaml:1:1: error: a scenario file needs 'scenarios:' (a list of scenarios; 'turns:' or 'persona:' at the top level is the deprecated one-scenario shape); did you mean 'scenarios:' for 'scenario:'?; nothing among the inputs or in its folder includes it, so it is not an include fragment either\n",
    );
    project.write('evals/notes.yaml', 'title: not a scenario\n');
    const notes = earshot('validate', 'evals/notes.yaml');
    expect(notes.status).toBe(1);
    expect(notes.stdout).toContain(
      "evals/notes.yaml:1:1: error: not a scenario: a scenario file needs 'name:' and 'scenarios:' (or, deprecated, 'turns:' or 'persona:'), a manifest 'suite:'; nothing among the inputs or in its folder includes it, so it is not an include fragment either",
    );
  });

  it('exits 2 on usage errors: a missing path, no path, a folder without YAML', () => {
    const missing = earshot('validate', 'nope.yaml');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('earshot: no such file or directory: nope.yaml\n');
    expect(earshot('validate').status).toBe(2);
    mkdirSync(project.path('empty'));
    const empty = earshot('validate', 'empty');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe('earshot: no .yaml or .yml files found in empty\n');
  });

  it('--json prints one object per scenario (id, file, kind, status, diagnostics, the normalized model), without source maps, secrets masked', () => {
    project.write('evals/bad.yaml', 'name: bad\nturns: 3\n');
    project.write(
      'evals/pair.yaml',
      'name: pair\nturns: [{user: hi}]\nscenarios:\n  - name: a\n  - name: b\n    stop_on_failure: false\n',
    );
    const r = earshot('validate', '--json', 'evals');
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(out.map((e) => [e.id, e.kind, e.status])).toEqual([
      ['bad', 'script', 'invalid'],
      ['greeting', 'script', 'valid'],
      [project.path('evals/judge.yaml'), 'fragment', 'skipped'],
      ['pair/a', 'script', 'valid'],
      ['pair/b', 'script', 'valid'],
    ]);
    const greeting = out[1];
    expect(greeting).toMatchObject({
      kind: 'script',
      name: 'greeting',
      file: project.path('evals/greeting.yaml'),
      includes: [project.path('evals/judge.yaml')],
      stop_on_failure: true,
      judge: { modality: 'text', eval: { service: 'openai', model: 'gpt-4o-mini', api_key: '[redacted]' } },
      turns: [
        {
          expect: [
            { event: 'llm_response', declared_event: 'response', within_ms: 60000, absent: false, eval: 'greets' },
          ],
        },
      ],
    });
    expect(greeting.locations).toBeUndefined();
    expect(greeting.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'deprecated', path: 'turns' }),
    ]);
    expect(r.stdout).not.toContain('sk-test-0123456789');
    expect(out[0].diagnostics).toEqual(
      expect.arrayContaining([expect.objectContaining({ severity: 'error', line: 2, col: 8, path: 'turns' })]),
    );
    expect(out[2]).toMatchObject({
      file: project.path('evals/judge.yaml'),
      used_by: [project.path('evals/greeting.yaml')],
      diagnostics: [],
    });
    expect(out.slice(3).map((e) => [e.name, e.file_name, e.index, e.stop_on_failure])).toEqual([
      ['pair/a', 'pair', 0, true],
      ['pair/b', 'pair', 1, false],
    ]);
  });

  it('--strict turns every warning into an error: a misspelled text_contians: fails validation', () => {
    project.write(
      'evals/typo.yaml',
      'name: typo\nscenarios:\n  - name: a\n    turns:\n      - user: hi\n        expect:\n          - event: response\n            text_contians: Paris\n',
    );
    expect(earshot('validate', 'evals/typo.yaml').status).toBe(0);
    const strict = earshot('validate', '--strict', 'evals/typo.yaml');
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain(
      "evals/typo.yaml:8:13: error: turns[0].expect[0].text_contians: unknown key 'text_contians'; did you mean 'text_contains'? (an error under --strict)",
    );
  });

  it('a manifest is valid when every scenario file it names loads; entries resolve under scenarios_dir', () => {
    project.write('evals/manifest.yaml', 'scenarios_dir: .\nsuite:\n  - bot: b.py\n    scenarios: [greeting]\n');
    expect(earshot('validate', 'evals/manifest.yaml').stdout).toBe(
      'valid    evals/manifest.yaml (manifest)\n\n0 valid, 0 invalid (0 scripted, 0 simulations, 1 manifest; 1 file), 0 fragments skipped\n'.replace(
        '0 valid',
        '1 valid',
      ),
    );
    project.write('evals/broken.yaml', 'name: broken\nscenarios: []\n');
    project.write(
      'evals/manifest.yaml',
      'scenarios_dir: .\nsuite:\n  - bot: b.py\n    scenarios: [greeting, broken]\n',
    );
    const r = earshot('validate', 'evals/manifest.yaml');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'evals/manifest.yaml:4:27: error: suite[0].scenarios[1]: scenario file broken does not load (1 error)',
    );
  });

  it('--allow-outside-root lets !include leave the scenario root', () => {
    outside.write('judge.yaml', 'modality: text\n');
    project.write('evals/shared.yaml', `name: shared\njudge: !include ${outside.path('judge.yaml')}\nturns: []\n`);
    const refused = earshot('validate', 'evals/shared.yaml');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('outside the scenario root');
    expect(earshot('validate', '--allow-outside-root', 'evals/shared.yaml').status).toBe(0);
  });
});
