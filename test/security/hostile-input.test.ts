import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';
import { buildHostileProject, HOSTILE_CLASSES, type HostileClass, type HostileProject } from './hostile.testutil.js';

/**
 * Scenario files travel between people. Handed a project with one file per
 * hostile input class next to a good scenario, the CLI answers each with a
 * located one-line error (never a stack trace, a hang or a blow-up), keeps the
 * good file's verdict, and `earshot run` refuses the list before it opens a
 * single connection. The loader's own tests (src/scenario/hostile.test.ts,
 * include.test.ts, fuzz.test.ts) cover the same classes as a library; these
 * cover what a user sees.
 */
let project: HostileProject;
let validate: CliRun & { wallMs: number };
let byFile: Map<string, string[]>;

const EXPECTED: Record<HostileClass, RegExp | 'valid'> = {
  'yaml-bomb': /^bomb\.yaml:3:25: error: more than 10000 alias uses \(a YAML bomb\?\)$/,
  'string-bomb': /^string_bomb\.yaml:\d+:\d+: error: document expands to more than 8388608 characters of text/,
  'deep-flow-nesting': /^deep_flow\.yaml:2:136: error: nesting deeper than 128 levels$/,
  'deep-block-nesting': /^deep_block\.yaml:483:481: error: line indented more than 480 columns: nesting too deep$/,
  'huge-file': /^huge\.yaml:1:1: error: file is \d+ bytes; scenario files are limited to 1048576 bytes$/,
  binary: /^binary\.yaml:3:1: error: binary file: NUL byte at offset 14; expected YAML text$/,
  'not-utf8': /^latin1\.yaml:1:10: error: not UTF-8 text: invalid byte at offset 9$/,
  fifo: /^fifo\.yaml:1:1: error: not a regular file \(device, FIFO or socket\)$/,
  'include-cycle':
    /^cycle_b\.yaml:1:10: error: !include cycle: \S+cycle_a\.yaml -> \S+cycle_b\.yaml -> \S+cycle_a\.yaml/,
  'include-outside-root':
    /^passwd\.yaml:2:17: error: !include \/etc\/passwd resolves to \/etc\/passwd, outside the scenario root \S+\/project \(pass --allow-outside-root to allow it\)$/,
  'include-symlink-escape':
    /^link_escape\.yaml:2:17: error: !include parts\/judge_link\.yaml resolves to \S+\/elsewhere\/judge\.yaml, outside the scenario root/,
  'image-outside-root':
    /^image_outside\.yaml:4:12: error: turns\[0\]\.image: image \.\.\/\.\.\/elsewhere\/cat\.jpg resolves to \S+\/elsewhere\/cat\.jpg, outside the scenario root/,
  'image-symlink-escape':
    /^image_link\.yaml:4:12: error: turns\[0\]\.image: image parts\/cat_link\.jpg resolves to \S+\/elsewhere\/cat\.jpg, outside the scenario root/,
  'unknown-tag': /^python_tag\.yaml:3:36: error: unsupported tag !!python\/object:os\.system/,
  'huge-string': 'valid',
};

/** `validate` output → file name → its status line and diagnostics (paths cut to the file name). */
function parseValidate(stdout: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of stdout.split('\n')) {
    const head = /^(valid|invalid|skipped)\s+(\S+)/.exec(line);
    if (head) {
      current = [head[1]];
      blocks.set(basename(head[2]), current);
    } else if (line.startsWith('  ') && current) current.push(line.trim().replace(/^\S*\//, ''));
  }
  return blocks;
}

beforeAll(async () => {
  project = buildHostileProject();
  const t0 = performance.now();
  // The FIFO is named explicitly: a folder walk passes over what is not a regular file.
  const run = await earshot(
    ['validate', join(project.root, 'evals'), join(project.root, 'evals', project.files.fifo)],
    { EARSHOT_DEBUG: '' },
  ).done;
  validate = { ...run, wallMs: performance.now() - t0 };
  byFile = parseValidate(validate.stdout);
}, 30_000);

afterAll(() => rmSync(dirname(project.root), { recursive: true, force: true }));

describe('earshot validate on a project of hostile files', () => {
  it('finishes in seconds with exit 1 and no stack trace, and the good scenario is still valid', () => {
    expect(validate.code).toBe(1);
    expect(validate.wallMs).toBeLessThan(8000);
    expect(`${validate.stdout}${validate.stderr}`).not.toMatch(/\n\s+at |internal error/);
    expect(byFile.get('good.yaml')).toEqual(['valid']);
  });

  it.each(HOSTILE_CLASSES)('%s: refused with a located error (file:line:col: error: what was wrong)', (kind) => {
    const block = byFile.get(project.files[kind]);
    expect(block, `no verdict for ${project.files[kind]} in:\n${validate.stdout.slice(0, 3000)}`).toBeDefined();
    const expected = EXPECTED[kind];
    if (expected === 'valid') {
      expect(block).toEqual(['valid']);
      return;
    }
    expect(block![0]).toBe('invalid');
    expect(
      block!.slice(1).some((line) => expected.test(line)),
      block!.join('\n'),
    ).toBe(true);
  });
});

describe('earshot run handed the same project', () => {
  it('refuses the whole list before connecting: exit 2, every hostile file located, no connection, no results', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    let connections = 0;
    wss.on('connection', () => connections++);
    try {
      const out = join(dirname(project.root), 'run-out');
      const t0 = performance.now();
      const paths = [join(project.root, 'evals'), join(project.root, 'evals', project.files.fifo)];
      const run = await earshot(
        ['run', ...paths, '--url', `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, '--out', out],
        { EARSHOT_DEBUG: '' },
      ).done;
      expect(performance.now() - t0).toBeLessThan(8000);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^earshot: invalid scenario input:\n/);
      expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
      for (const kind of HOSTILE_CLASSES) {
        if (EXPECTED[kind] === 'valid') continue;
        expect(run.stderr, kind).toContain(
          `/${project.files[kind] === 'cycle.yaml' ? 'parts/cycle_b.yaml' : project.files[kind]}:`,
        );
      }
      expect(connections).toBe(0);
      expect(readResults(out)).toEqual([]);
    } finally {
      wss.close();
    }
  }, 30_000);
});

describe('--allow-outside-root', () => {
  it('lets image: and !include reach outside the root, through paths and symlinks alike', async () => {
    const files = (['image-outside-root', 'image-symlink-escape', 'include-symlink-escape'] as const).map((k) =>
      join(project.root, 'evals', project.files[k]),
    );
    const refused = await earshot(['validate', ...files]).done;
    expect(refused.code).toBe(1);
    const allowed = await earshot(['validate', ...files, '--allow-outside-root']).done;
    expect(allowed.stdout).toContain('3 valid, 0 invalid');
    expect(allowed.code).toBe(0);
  }, 30_000);
});
