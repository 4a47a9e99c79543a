import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpawnTemplateError } from './errors.js';
import { checkSpawnTemplate, expandSpawn, resolveSelfCommand, splitCommandLine } from './spawn-template.js';

const values = { python: '/usr/bin/python3', bot: '/bots/my bot.py', port: 7901 };

describe('splitCommandLine (shlex.split, POSIX mode)', () => {
  it('splits on runs of whitespace', () => {
    expect(splitCommandLine('  a   b\tc\n d ')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps quoted words whole and drops the quotes', () => {
    expect(splitCommandLine(`run "a b" 'c  d' e"f g"h`)).toEqual(['run', 'a b', 'c  d', 'ef gh']);
  });

  it('honours backslash escapes outside quotes and the few that double quotes allow', () => {
    expect(splitCommandLine('a\\ b "x\\"y" "p\\q" \'r\\s\'')).toEqual(['a b', 'x"y', 'p\\q', 'r\\s']);
  });

  it('keeps an empty quoted word', () => {
    expect(splitCommandLine(`bot "" --x`)).toEqual(['bot', '', '--x']);
  });

  it('rejects an unclosed quote and a trailing backslash', () => {
    expect(() => splitCommandLine('bot "unclosed')).toThrow(/no closing double quote/);
    expect(() => splitCommandLine("bot 'unclosed")).toThrow(/no closing single quote/);
    expect(() => splitCommandLine('bot \\')).toThrow(SpawnTemplateError);
  });
});

describe('expandSpawn', () => {
  it("expands Pipecat's default template word by word, so a path with spaces stays one argument", () => {
    expect(expandSpawn('{python} {bot} -t eval --port {port}', values)).toEqual({
      command: '/usr/bin/python3',
      args: ['/bots/my bot.py', '-t', 'eval', '--port', '7901'],
    });
  });

  it('substitutes inside a word and keeps doubled braces literal', () => {
    expect(expandSpawn('{python} -c {{x}} --listen=127.0.0.1:{port}', values).args).toEqual([
      '-c',
      '{x}',
      '--listen=127.0.0.1:7901',
    ]);
  });

  it('appends --runner-body <file> when the suite entry has one', () => {
    expect(expandSpawn('{python} {bot}', values, { runnerBody: '/m/body.json' }).args).toEqual([
      '/bots/my bot.py',
      '--runner-body',
      '/m/body.json',
    ]);
  });

  it('runs the program name `earshot` as this package’s CLI', () => {
    const cmd = expandSpawn('earshot refbot --port {port}', values, {
      selfCommand: ['/node', '/pkg/dist/cli/main.js'],
    });
    expect(cmd).toEqual({ command: '/node', args: ['/pkg/dist/cli/main.js', 'refbot', '--port', '7901'] });
  });

  it('leaves `earshot` alone anywhere but the program position', () => {
    expect(expandSpawn('{python} earshot', values, { selfCommand: ['/node', '/x'] }).args).toEqual(['earshot']);
  });

  it('rejects unknown placeholders, naming the known ones', () => {
    expect(() => expandSpawn('{python} {bot} --port {prot}', values)).toThrow(
      /unknown placeholder \{prot\}; known: \{python\}, \{bot\}, \{port\}/,
    );
  });

  it('rejects stray braces like Python’s str.format', () => {
    expect(() => expandSpawn('bot {port', values)).toThrow(/unclosed "\{"/);
    expect(() => expandSpawn('bot port}', values)).toThrow(/single "\}"/);
  });

  it('rejects a template with no program', () => {
    expect(() => expandSpawn('   ', values)).toThrow(/names no program/);
  });
});

describe('{documents} (earshot extension)', () => {
  it("is the run's documents file, one argument even with spaces in its path", () => {
    const template = 'earshot refbot --port {port} --documents {documents}';
    expect(checkSpawnTemplate(template).has('documents')).toBe(true);
    const cmd = expandSpawn(template, { ...values, documents: '/runs/a b/001.documents.json' }, { selfCommand: ['e'] });
    expect(cmd).toEqual({
      command: 'e',
      args: ['refbot', '--port', '7901', '--documents', '/runs/a b/001.documents.json'],
    });
  });

  it('refuses to expand without a documents file rather than pass an empty argument', () => {
    expect(() => expandSpawn('{python} {bot} --docs={documents}', values)).toThrow(
      /\{documents\} names the run's documents file/,
    );
  });
});

describe('checkSpawnTemplate', () => {
  it('reports which placeholders a template uses', () => {
    expect([...checkSpawnTemplate('{python} {bot} -t eval --port {port}')].sort()).toEqual(['bot', 'port', 'python']);
    expect([...checkSpawnTemplate('earshot refbot --port {port}')]).toEqual(['port']);
  });
});

describe('resolveSelfCommand', () => {
  it('names the current Node and a built CLI entry point of this package', () => {
    const [node, main] = resolveSelfCommand();
    expect(node).toBe(process.execPath);
    expect(main).toMatch(/dist[/\\]cli[/\\]main\.js$/);
    // `npm test` builds before testing, so the entry point exists.
    expect(existsSync(main)).toBe(true);
  });
});
