import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A scenario project as someone else might hand it over: one good scenario and
 * one file per hostile input class, plus a folder outside the project that
 * some of them reach for. Built on disk at test time (a FIFO, symlinks and a
 * 2 MiB file do not belong in git).
 */
export interface HostileProject {
  /** The project root (it has a package.json, so it is the scenario root). */
  root: string;
  /** A folder beside it: outside the root. */
  outside: string;
  /** Hostile class → file name inside `root/evals`. */
  files: Record<HostileClass, string>;
}

export const HOSTILE_CLASSES = [
  'yaml-bomb',
  'string-bomb',
  'deep-flow-nesting',
  'deep-block-nesting',
  'huge-file',
  'binary',
  'not-utf8',
  'fifo',
  'include-cycle',
  'include-outside-root',
  'include-symlink-escape',
  'image-outside-root',
  'image-symlink-escape',
  'unknown-tag',
  'huge-string',
] as const;
export type HostileClass = (typeof HOSTILE_CLASSES)[number];

const GOOD =
  'name: good\nscenarios:\n  - name: good\n    turns:\n      - user: "What is the capital of Germany?"\n        expect:\n          - event: response\n            text_contains: Berlin\n';

function billionLaughs(levels: number, width: number): string {
  const lines = ['name: bomb', 'l0: &l0 "lol"'];
  for (let i = 1; i < levels; i++)
    lines.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
  lines.push('turns: [{user: hi, expect: [{event: response}]}]', `context: [{role: user, content: *l${levels - 1}}]`);
  return `${lines.join('\n')}\n`;
}

export function buildHostileProject(): HostileProject {
  const base = realpathSync.native(mkdtempSync(join(tmpdir(), 'earshot-hostile-')));
  const root = join(base, 'project');
  const outside = join(base, 'elsewhere');
  const write = (path: string, content: string | Buffer): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  write(join(root, 'package.json'), '{}\n');
  write(join(outside, 'judge.yaml'), 'eval: {service: openai, model: m}\n');
  write(join(outside, 'cat.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
  const ev = (name: string): string => join(root, 'evals', name);
  write(ev('good.yaml'), GOOD);

  const files = {} as Record<HostileClass, string>;
  const add = (kind: HostileClass, name: string, content: string | Buffer): void => {
    write(ev(name), content);
    files[kind] = name;
  };
  add('yaml-bomb', 'bomb.yaml', billionLaughs(10, 10));
  add(
    'string-bomb',
    'string_bomb.yaml',
    `name: s\nbig: &b "${'x'.repeat(200_000)}"\nturns: []\ncontext: [${Array.from({ length: 60 }, () => '{c: *b}').join(', ')}]\n`,
  );
  add('deep-flow-nesting', 'deep_flow.yaml', `name: n\nturns: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
  add(
    'deep-block-nesting',
    'deep_block.yaml',
    `name: n\nturns:\n${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}x\n`,
  );
  add('huge-file', 'huge.yaml', `${GOOD}# ${'x'.repeat(2 * 1024 * 1024)}\n`);
  add(
    'binary',
    'binary.yaml',
    Buffer.concat([Buffer.from('name: x\n\x89PNG\r\n', 'latin1'), Buffer.from([0, 0, 0, 13])]),
  );
  add('not-utf8', 'latin1.yaml', Buffer.from('name: caf\xe9\nturns: []\n', 'latin1'));
  execFileSync('mkfifo', [ev('fifo.yaml')]);
  files.fifo = 'fifo.yaml';
  add('include-cycle', 'cycle.yaml', 'name: cycle\njudge: !include parts/cycle_a.yaml\nturns: []\n');
  write(ev('parts/cycle_a.yaml'), 'eval: !include cycle_b.yaml\n');
  write(ev('parts/cycle_b.yaml'), '!include cycle_a.yaml\n');
  add('include-outside-root', 'passwd.yaml', 'name: passwd\njudge: !include /etc/passwd\nturns: []\n');
  symlinkSync(join(outside, 'judge.yaml'), ev('parts/judge_link.yaml'));
  add('include-symlink-escape', 'link_escape.yaml', 'name: link\njudge: !include parts/judge_link.yaml\nturns: []\n');
  add(
    'image-outside-root',
    'image_outside.yaml',
    `name: image\nturns:\n  - user: what is this?\n    image: ../../elsewhere/cat.jpg\n    expect:\n      - event: response\n`,
  );
  symlinkSync(join(outside, 'cat.jpg'), ev('parts/cat_link.jpg'));
  add(
    'image-symlink-escape',
    'image_link.yaml',
    `name: image_link\nturns:\n  - user: what is this?\n    image: parts/cat_link.jpg\n    expect:\n      - event: response\n`,
  );
  // Within the file size limit a long string is data, not an attack: it loads.
  add(
    'huge-string',
    'huge_string.yaml',
    `name: long\nscenarios:\n  - name: long\n    turns:\n      - user: "${'y'.repeat(900_000)}"\n`,
  );
  add('unknown-tag', 'python_tag.yaml', 'name: t\nturns: []\ncontext: !!python/object:os.system [ls]\n');
  return { root, outside, files };
}
