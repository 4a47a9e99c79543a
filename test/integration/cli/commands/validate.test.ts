import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { TempProject } from '../../../../src/scenario/scenario.testutil.js';
import { CLI } from '../../../support/paths.js';

/** `earshot validate`, run as a user runs it: the built CLI in a subprocess. */
let project: TempProject;
let outside: TempProject;

function earshot(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: project.dir, encoding: 'utf8', env: { ...process.env, EARSHOT_DEBUG: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first: npx tsc -p tsconfig.build.json (missing ${CLI})`);
});
beforeEach(() => {
  project = new TempProject();
  outside = new TempProject();
  project.write('evals/greeting.yaml', 'name: greeting\njudge: !include judge.yaml\nturns:\n  - expect:\n      - event: response\n        eval: "greets"\n');
  project.write('evals/judge.yaml', 'eval: {service: openai, model: gpt-4o-mini, api_key: sk-test-0123456789}\n');
});
afterEach(() => {
  project.cleanup();
  outside.cleanup();
});

describe('earshot validate', () => {
  it('exits 0 when every file is valid, listing each file and skipping include fragments', () => {
    const r = earshot('validate', 'evals');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'valid    evals/greeting.yaml (script: greeting)\n' +
        'skipped  evals/judge.yaml (not a scenario, simulation or manifest: an include fragment)\n\n' +
        '1 valid, 0 invalid, 1 skipped\n',
    );
  });

  it('exits 1 when a file is invalid and prints each problem as file:line:col: error: path: message', () => {
    project.write('evals/bad.yaml', 'name: bad\nturns:\n  - user: hi\n    expect:\n      - event: response\n        within_ms: abc\n        evnt: x\n');
    const r = earshot('validate', 'evals');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'invalid  evals/bad.yaml\n' +
        '  evals/bad.yaml:6:20: error: turns[0].expect[0].within_ms: expected a positive integer (ms), got "abc"\n' +
        "  evals/bad.yaml:7:9: warning: turns[0].expect[0].evnt: unknown key 'evnt'; did you mean 'event'?\n",
    );
    expect(r.stdout).toContain('1 valid, 1 invalid, 1 skipped');
    expect(r.stdout).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('an include fragment named explicitly is invalid', () => {
    const r = earshot('validate', 'evals/judge.yaml');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("evals/judge.yaml:1:1: error: not a scenario: a scenario file needs 'turns:'");
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

  it('--json prints one JSON array of normalized files, without source maps, with secrets masked', () => {
    project.write('evals/bad.yaml', 'name: bad\nturns: 3\n');
    const r = earshot('validate', '--json', 'evals');
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(out.map((e) => [e.status, e.kind])).toEqual([
      ['invalid', null],
      ['valid', 'script'],
      ['skipped', null],
    ]);
    const greeting = out[1];
    expect(greeting).toMatchObject({
      kind: 'script',
      name: 'greeting',
      file: project.path('evals/greeting.yaml'),
      includes: [project.path('evals/judge.yaml')],
      stop_on_failure: true,
      judge: { modality: 'text', eval: { service: 'openai', model: 'gpt-4o-mini', api_key: '[redacted]' } },
      turns: [{ expect: [{ event: 'llm_response', declared_event: 'response', within_ms: 60000, absent: false, eval: 'greets' }] }],
    });
    expect(greeting.locations).toBeUndefined();
    expect(r.stdout).not.toContain('sk-test-0123456789');
    expect(out[0].diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: 2, col: 8, path: 'turns' })]);
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
