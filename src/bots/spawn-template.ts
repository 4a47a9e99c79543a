import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpawnTemplateError } from './errors.js';

/**
 * A manifest's `spawn:` template, Pipecat's semantics: split like a POSIX shell
 * would (`shlex.split`), then `{python}`, `{bot}` and `{port}` substituted in
 * each word (Python `str.format`: `{{`/`}}` are literal braces), so a path with
 * spaces stays one argument. A template whose program is `earshot` runs this
 * package's own CLI with the current Node, so it works without a global install.
 * earshot adds `{documents}`: the path of a JSON file (protocol/documents.ts `DocumentsFile`) holding the
 * documents a GAIA scenario's `setup.index_documents` lists, written for each run (empty for other scenarios).
 */

export const SPAWN_PLACEHOLDERS = ['python', 'bot', 'port', 'documents'] as const;
export type SpawnPlaceholder = (typeof SPAWN_PLACEHOLDERS)[number];

export interface SpawnValues {
  python: string;
  /** Absolute path of the bot (`bot:` resolved against `bots_dir`). */
  bot: string;
  port: number;
  /** The run's documents file, for `{documents}` (earshot extension). */
  documents?: string;
}

export interface SpawnCommand {
  command: string;
  args: string[];
}

export interface ExpandOptions {
  /** Passed to the bot as `--runner-body <file>` (Pipecat's `runner_body:`). */
  runnerBody?: string;
  /** What the program name `earshot` becomes; default `resolveSelfCommand()`. */
  selfCommand?: readonly string[];
}

type Piece = { literal: string } | { field: string };

/** Words of a command line, as Python's `shlex.split` (POSIX mode, no comments) makes them. */
export function splitCommandLine(line: string, template = line): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new SpawnTemplateError(template, 'ends in a lone backslash');
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new SpawnTemplateError(template, `no closing ${quote === '"' ? 'double' : 'single'} quote`);
  if (inWord) words.push(word);
  return words;
}

function parseWord(word: string, template: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c === '{' && word[i + 1] === '{') {
      literal += '{';
      i++;
    } else if (c === '}' && word[i + 1] === '}') {
      literal += '}';
      i++;
    } else if (c === '{') {
      const end = word.indexOf('}', i);
      if (end < 0)
        throw new SpawnTemplateError(
          template,
          `unclosed "{" in ${JSON.stringify(word)} (write {{ for a literal brace)`,
        );
      const field = word.slice(i + 1, end);
      if (!(SPAWN_PLACEHOLDERS as readonly string[]).includes(field)) {
        throw new SpawnTemplateError(
          template,
          `unknown placeholder {${field}}; known: ${SPAWN_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')} ` +
            '(write {{ and }} for literal braces)',
        );
      }
      if (literal) pieces.push({ literal });
      literal = '';
      pieces.push({ field });
      i = end;
    } else if (c === '}') {
      throw new SpawnTemplateError(template, `single "}" in ${JSON.stringify(word)} (write }} for a literal brace)`);
    } else {
      literal += c;
    }
  }
  if (literal) pieces.push({ literal });
  return pieces;
}

/** Checks a template up front; returns the placeholders it uses. */
export function checkSpawnTemplate(template: string): Set<SpawnPlaceholder> {
  const words = splitCommandLine(template);
  if (words.length === 0) throw new SpawnTemplateError(template, 'names no program');
  const used = new Set<SpawnPlaceholder>();
  for (const word of words) {
    for (const p of parseWord(word, template)) if ('field' in p) used.add(p.field as SpawnPlaceholder);
  }
  return used;
}

/** The argv for one run of a bot. */
export function expandSpawn(template: string, values: SpawnValues, options: ExpandOptions = {}): SpawnCommand {
  if (values.documents === undefined && checkSpawnTemplate(template).has('documents'))
    throw new SpawnTemplateError(template, "{documents} names the run's documents file, and none was written");
  const subs: Record<SpawnPlaceholder, string> = {
    python: values.python,
    bot: values.bot,
    port: String(values.port),
    documents: values.documents ?? '',
  };
  const argv = splitCommandLine(template).map((word) =>
    parseWord(word, template)
      .map((p) => ('field' in p ? subs[p.field as SpawnPlaceholder] : p.literal))
      .join(''),
  );
  if (argv.length === 0) throw new SpawnTemplateError(template, 'names no program');
  if (argv[0] === 'earshot') argv.splice(0, 1, ...(options.selfCommand ?? resolveSelfCommand()));
  if (options.runnerBody !== undefined) argv.push('--runner-body', options.runnerBody);
  return { command: argv[0], args: argv.slice(1) };
}

/**
 * `node <package>/dist/cli/main.js`: the built CLI beside this module (dist/bots → dist/cli),
 * or, when running from sources (tsx), the package's built CLI.
 */
export function resolveSelfCommand(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, '..', 'cli', 'main.js');
  if (existsSync(sibling)) return [process.execPath, sibling];
  for (let dir = here; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && isEarshotPackage(pkg)) return [process.execPath, join(dir, 'dist', 'cli', 'main.js')];
    if (dirname(dir) === dir) return [process.execPath, sibling];
  }
}

function isEarshotPackage(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name === 'earshot';
  } catch {
    return false;
  }
}
