import { relative, isAbsolute } from 'node:path';
import { EarshotError } from '../core/errors.js';

/** Where a value was written: 1-based line and column in `file`. */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
  /** Set when the value came from an `!include`d file: where the `!include` tag was written. */
  included_from?: SourceLocation;
}

export type Severity = 'error' | 'warning';

/** One problem found in an input file, pointing at the exact spot. */
export interface Diagnostic {
  severity: Severity;
  file: string;
  line: number;
  col: number;
  /** Field path inside the document, e.g. `turns[2].expect[0].within_ms`; '' for the whole file. */
  path: string;
  message: string;
  /** What the field should have held, when the problem is a wrong value. */
  expected?: string;
  /** `file:line:col` of the `!include` that pulled the offending value in, when there was one. */
  included_from?: string;
  /** `deprecated`: a shape or key Pipecat still reads but has dropped from its newest format. */
  code?: 'deprecated';
}

/** A scenario, simulation or manifest file that cannot be used. Carries every diagnostic found. */
export class ScenarioError extends EarshotError {
  readonly file: string;
  readonly diagnostics: Diagnostic[];
  constructor(file: string, diagnostics: Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0] ?? diagnostics[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})` : '';
    super(first ? `${formatDiagnostic(first)}${more}` : `${file}: invalid`);
    this.name = 'ScenarioError';
    this.file = file;
    this.diagnostics = diagnostics;
  }
}

export function formatLocation(loc: SourceLocation, cwd?: string): string {
  return `${displayPath(loc.file, cwd)}:${loc.line}:${loc.col}`;
}

/** Paths under `cwd` print relative (shorter, clickable in terminals); others stay absolute. */
export function displayPath(file: string, cwd?: string): string {
  if (!cwd || !isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** `file:line:col: error: turns[2].expect[0].within_ms: expected a positive integer (ms), got "abc"` */
export function formatDiagnostic(d: Diagnostic, options: { cwd?: string } = {}): string {
  const where = `${displayPath(d.file, options.cwd)}:${d.line}:${d.col}`;
  const path = d.path ? `${d.path}: ` : '';
  const via = d.included_from ? ` (included from ${relativizeLocation(d.included_from, options.cwd)})` : '';
  return `${where}: ${d.severity}: ${path}${d.message}${via}`;
}

function relativizeLocation(text: string, cwd?: string): string {
  const m = /^(.*):(\d+):(\d+)$/.exec(text);
  return m ? `${displayPath(m[1], cwd)}:${m[2]}:${m[3]}` : text;
}

/** Builds a diagnostic at a source location, following the include chain for `included_from`. */
export function diagnosticAt(
  severity: Severity,
  loc: SourceLocation,
  path: string,
  message: string,
  expected?: string,
): Diagnostic {
  const d: Diagnostic = { severity, file: loc.file, line: loc.line, col: loc.col, path, message };
  if (expected !== undefined) d.expected = expected;
  if (loc.included_from) d.included_from = formatLocation(loc.included_from);
  return d;
}

/**
 * `--strict`: every warning becomes an error, so a run refuses a file that
 * `validate` only warned about (a misspelled key would otherwise be dropped).
 */
export function strictDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) =>
    d.severity === 'warning' ? { ...d, severity: 'error', message: `${d.message} (an error under --strict)` } : d,
  );
}

/** Appends `.key` or `[index]` to a field path; keys that are not identifiers are quoted. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const part = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
  if (!parent) return part.startsWith('"') ? `[${part}]` : part;
  return part.startsWith('"') ? `${parent}[${part}]` : `${parent}.${part}`;
}

/** Levenshtein distance, bounded: returns `max + 1` as soon as the distance must exceed `max`. */
export function editDistance(a: string, b: string, max = 8): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      row.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev = row;
  }
  return prev[b.length];
}

/** The known name closest to `word`, if it is close enough to be a plausible typo. */
export function closest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase(), 8);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(2, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}

/** Short, safe rendering of a found value for messages (long strings are cut). */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const cut = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  return 'a mapping';
}
