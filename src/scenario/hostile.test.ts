import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { inspectFile } from './load.js';
import { errorsOf, inspect, loadedOf, TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';

/**
 * Scenario files travel between people: whatever is in one, loading it ends
 * quickly with either a model or located errors. Never a crash, a hang or an
 * unbounded allocation.
 */

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

function billionLaughs(levels: number, width: number): string {
  const lines = ['name: bomb', 'l0: &l0 "lol"'];
  for (let i = 1; i < levels; i++)
    lines.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
  lines.push(`turns: [{user: hi, expect: [{event: response}]}]`, `context: [{role: user, content: *l${levels - 1}}]`);
  return `${lines.join('\n')}\n`;
}

describe('hostile input', () => {
  it('a YAML bomb (alias expansion) is refused at the alias that crosses the limit', () => {
    const [error] = errorsOf(inspect(project, billionLaughs(10, 10)));
    expect(error.message).toMatch(/YAML bomb/);
    expect(error.line).toBeGreaterThan(2);
  });

  it('a bomb of long strings is refused by the expanded-text limit', () => {
    const yaml = `name: s\nbig: &b "${'x'.repeat(200_000)}"\nturns: []\ncontext: [${Array.from({ length: 60 }, () => '{c: *b}').join(', ')}]\n`;
    const [error] = errorsOf(inspect(project, yaml));
    expect(error.message).toContain('characters of text');
  });

  it('an alias that contains itself is refused', () => {
    const [error] = errorsOf(inspect(project, 'name: c\nturns: &t [{user: hi}, *t]\n'));
    expect(error).toMatchObject({ line: 2, col: 24 });
    expect(error.message).toBe('alias *t refers to a node that contains it (a cycle)');
  });

  it('deep flow nesting is refused before the parser recurses into it', () => {
    const [error] = errorsOf(inspect(project, `name: n\nturns: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`));
    expect(error).toMatchObject({ line: 2, col: 7 + 129 });
    expect(error.message).toBe('nesting deeper than 128 levels');
  });

  it('deep block nesting is refused', () => {
    const lines = ['name: n', 'turns:'];
    for (let i = 0; i < 600; i++) lines.push(`${' '.repeat(i + 1)}- `);
    const [error] = errorsOf(inspect(project, `${lines.join('\n')}x\n`));
    expect(error.message).toBe('line indented more than 480 columns: nesting too deep');
  });

  it('nesting within the parser limits but beyond the model depth is refused at the node', () => {
    const [error] = errorsOf(inspect(project, `name: n\ncontext: ${'['.repeat(70)}1${']'.repeat(70)}\n`));
    expect(error.message).toBe('nesting deeper than 64 levels');
  });

  it('a huge file is refused by its size before it is read', () => {
    const [error] = errorsOf(inspect(project, `name: h\nturns: []\n# ${'x'.repeat(2 * 1024 * 1024)}\n`));
    expect(error).toMatchObject({ line: 1, col: 1 });
    expect(error.message).toMatch(/^file is \d+ bytes; scenario files are limited to 1048576 bytes$/);
  });

  it('a huge string inside the size limit loads', () => {
    const s = loadedOf(inspect(project, `name: h\nturns:\n  - user: "${'y'.repeat(500_000)}"\n`)) as Scenario;
    expect(s.turns[0].user).toHaveLength(500_000);
  });

  it('a binary file is refused with the position of its first NUL byte', () => {
    const png = Buffer.concat([Buffer.from('name: x\n\x89PNG\r\n', 'latin1'), Buffer.from([0, 0, 0, 13])]);
    const [error] = errorsOf(inspectFile(project.write('image.yaml', png)));
    expect(error).toMatchObject({ line: 3, col: 1 });
    expect(error.message).toBe('binary file: NUL byte at offset 14; expected YAML text');
  });

  it('text that is not UTF-8 is refused with its position', () => {
    const [error] = errorsOf(inspectFile(project.write('latin1.yaml', Buffer.from('name: caf\xe9\n', 'latin1'))));
    expect(error).toMatchObject({ line: 1, col: 10 });
    expect(error.message).toBe('not UTF-8 text: invalid byte at offset 9');
  });

  it('a FIFO or a device is refused instead of blocking on read', () => {
    execFileSync('mkfifo', [project.path('pipe.yaml')]);
    expect(errorsOf(inspectFile(project.path('pipe.yaml')))[0].message).toBe(
      'not a regular file (device, FIFO or socket)',
    );
    symlinkSync('/dev/zero', project.path('zero.yaml'));
    expect(errorsOf(inspectFile(project.path('zero.yaml')))[0].message).toBe(
      'not a regular file (device, FIFO or socket)',
    );
    const viaInclude = inspect(project, 'name: d\njudge: !include zero.yaml\nturns: []\n', { allowOutsideRoot: true });
    expect(errorsOf(viaInclude)[0].message).toContain('not a regular file');
  });

  it('unknown tags (e.g. !!python/object) are refused, located', () => {
    const [error] = errorsOf(inspect(project, 'name: t\nturns: []\ncontext: !!python/object:os.system [ls]\n'));
    expect(error.line).toBe(3);
    expect(error.message).toContain('python/object');
  });

  it('YAML syntax errors, several documents and tabs are located', () => {
    expect(errorsOf(inspect(project, 'name: a\n---\nname: b\n'))[0]).toMatchObject({ line: 2, col: 1 });
    expect(errorsOf(inspect(project, 'name: a\nturns:\n\t- user: x\n'))[0]).toMatchObject({ line: 3 });
    expect(errorsOf(inspect(project, 'name: "unterminated\nturns: []\n'))[0].message).toMatch(/^YAML syntax: /);
  });

  it('a top level that is not a mapping is an error; an empty file is not a scenario', () => {
    expect(errorsOf(inspect(project, '- a\n- b\n'))[0].message).toContain('the top level must be a mapping');
    const empty = inspect(project, '');
    expect(empty.status).toBe('fragment');
  });

  it('thousands of problems are capped at 200 diagnostics plus a count of the rest', () => {
    const turns = Array.from({ length: 500 }, (_, i) => `      - usr${i}: x`).join('\n');
    const r = inspect(project, `name: many\nscenarios:\n  - name: a\n    turns:\n${turns}\n`);
    const diagnostics = r.status === 'loaded' ? r.loaded.warnings : r.diagnostics;
    expect(diagnostics).toHaveLength(201);
    expect(diagnostics[200]).toMatchObject({ severity: 'warning', message: '300 more problems not shown' });
  });

  it('shared defaults repeated over many scenarios are refused past the node budget, located at scenarios:', () => {
    const turns = Array.from({ length: 2000 }, () => '  - user: x').join('\n');
    const entries = Array.from({ length: 2000 }, (_, i) => `  - name: s${i}`).join('\n');
    const t0 = performance.now();
    const r = inspect(project, `name: many\nturns:\n${turns}\nscenarios:\n${entries}\n`);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.status).toBe('invalid');
    expect(errorsOf(r)).toEqual([expect.objectContaining({ line: 2003, col: 1, path: 'scenarios' })]);
    expect(errorsOf(r)[0].message).toBe(
      'the file-level defaults repeated over its 2000 scenarios come to more than 100000 nodes (a YAML bomb?)',
    );
  });

  it('a __proto__ key stays data', () => {
    const s = loadedOf(
      inspect(
        project,
        'name: p\nturns:\n  - expect:\n      - event: function_call\n        args: {__proto__: {polluted: true}}\n',
      ),
    ) as Scenario;
    const args = s.turns[0].expect[0].calls?.[0].args ?? {};
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
