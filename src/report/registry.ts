import { UsageError } from '../core/errors.js';
import { monotonicClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import type { Reporter, ReporterFactory, ReporterOptions } from './reporter.js';
import { ReporterSet } from './reporter-set.js';
import { createListReporter } from './list.js';
import { createDotReporter } from './dot.js';
import { createJsonReporter } from './json.js';
import { createJsonlReporter } from './jsonl.js';
import { createJUnitReporter } from './junit.js';
import { createHtmlReporter } from './html/html.js';
import { createGithubReporter } from './github.js';

/** Every reporter by name; a new reporter is a file and a line here. */
export const REPORTERS: Readonly<Record<string, ReporterFactory>> = {
  list: createListReporter,
  dot: createDotReporter,
  json: createJsonReporter,
  jsonl: createJsonlReporter,
  junit: createJUnitReporter,
  html: createHtmlReporter,
  github: createGithubReporter,
};

/** Reporters that accept `name=PATH`. */
const TAKES_FILE = new Set(['json', 'jsonl', 'junit', 'html', 'github']);

export class UnknownReporterError extends UsageError {
  readonly reporter: string;
  constructor(name: string) {
    super(`unknown reporter ${JSON.stringify(name)}; known reporters: ${Object.keys(REPORTERS).join(', ')}`);
    this.name = 'UnknownReporterError';
    this.reporter = name;
  }
}

export class ReporterSpecError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ReporterSpecError';
  }
}

export interface ReporterChoice {
  name: string;
  /** From `name=PATH`. */
  file?: string;
}

/**
 * Parses `--reporter list,junit=out/junit.xml` (repeatable: pass every value).
 * A name listed twice is kept once; unknown names are a usage error naming the known ones.
 */
export function parseReporterList(spec: string | readonly string[]): ReporterChoice[] {
  const items = (typeof spec === 'string' ? [spec] : spec).flatMap((s) => s.split(','));
  const chosen: ReporterChoice[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (!Object.hasOwn(REPORTERS, name)) throw new UnknownReporterError(name);
    const choice: ReporterChoice = { name };
    if (eq >= 0) {
      const file = item.slice(eq + 1).trim();
      if (!TAKES_FILE.has(name))
        throw new ReporterSpecError(
          `reporter ${name} writes to the terminal and takes no file (got ${JSON.stringify(item)})`,
        );
      if (file === '') throw new ReporterSpecError(`reporter ${name}: empty file after "=" (write ${name}=PATH)`);
      choice.file = file;
    }
    const dup = chosen.find((c) => c.name === name);
    if (dup && choice.file !== undefined && dup.file !== undefined && dup.file !== choice.file) {
      throw new ReporterSpecError(`reporter ${name} given twice with different files: ${dup.file}, ${choice.file}`);
    }
    if (dup) dup.file ??= choice.file;
    else chosen.push(choice);
  }
  return chosen;
}

export interface CreateReportersOptions extends Partial<Omit<ReporterOptions, 'file'>> {
  /**
   * Stream results.jsonl + summary.json into `outDir` even when `jsonl` is not listed
   * (default: true whenever there is an outDir; runs always keep their results).
   */
  alwaysJsonl?: boolean;
  /** Reporters built by the caller (a library user's own), called after the named ones. */
  extra?: readonly Reporter[];
}

/**
 * Builds the reporter set for a run from the `--reporter` value. When none of
 * the chosen reporters prints to the terminal, `list` is added, so a person
 * always sees progress; `jsonl` is added whenever there is an output dir.
 */
export function createReporters(spec: string | readonly string[], options: CreateReportersOptions = {}): ReporterSet {
  const choices = parseReporterList(spec);
  const base: ReporterOptions = {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    env: options.env ?? process.env,
    clock: options.clock ?? monotonicClock,
    redactor: options.redactor ?? new Redactor(options.env ?? process.env),
  };
  if (options.outDir !== undefined) base.outDir = options.outDir;
  if (options.truncateResults !== undefined) base.truncateResults = options.truncateResults;
  if ((options.alwaysJsonl ?? true) && options.outDir !== undefined && !choices.some((c) => c.name === 'jsonl')) {
    choices.push({ name: 'jsonl' });
  }
  const reporters: Reporter[] = choices.map((c) =>
    REPORTERS[c.name]({ ...base, ...(c.file === undefined ? {} : { file: c.file }) }),
  );
  reporters.push(...(options.extra ?? []));
  if (!reporters.some((r) => r.printsToTerminal)) reporters.unshift(REPORTERS.list(base));
  return new ReporterSet(reporters, base.stderr);
}
