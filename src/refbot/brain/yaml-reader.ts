import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Scalar,
} from 'yaml';
import { EarshotError } from '../../core/errors.js';

/**
 * A brain file that cannot be used, located in it: `file:line:col: field: detail`
 * (line and column 1-based). A file that cannot be read at all has no line.
 */
export class BrainError extends EarshotError {
  readonly file: string;
  readonly line: number | null;
  readonly col: number | null;
  /** Where in the brain the problem is, as a path: `rules[3].calls[0].duration_ms`. */
  readonly field: string;
  readonly detail: string;
  constructor(init: { file: string; line: number | null; col: number | null; field: string; detail: string }) {
    const where = init.line === null ? init.file : `${init.file}:${init.line}:${init.col ?? 1}`;
    super(init.field ? `${where}: ${init.field}: ${init.detail}` : `${where}: ${init.detail}`, { exitCode: 2 });
    this.name = 'BrainError';
    this.file = init.file;
    this.line = init.line;
    this.col = init.col;
    this.field = init.field;
    this.detail = init.detail;
  }
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A value in the file with the field path and node that locate it (`node` is null for an empty value). */
export interface Located {
  readonly field: string;
  readonly node: Node | null;
  /** What to point at when `node` is null: the key the empty value belongs to. */
  readonly at: Node | null;
}

/**
 * Reads a parsed YAML document field by field, turning every type or shape
 * mistake into a BrainError at the offending node.
 */
export class YamlReader {
  readonly root: Located;
  private readonly lines: LineCounter;
  private readonly doc: Document.Parsed;

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.lines = new LineCounter();
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    const first = this.doc.errors[0];
    if (first) {
      const pos = first.linePos?.[0] ?? this.lines.linePos(first.pos[0]);
      throw new BrainError({
        file,
        line: pos.line,
        col: pos.col,
        field: '',
        detail: `invalid YAML: ${first.message.split('\n')[0]}`,
      });
    }
    this.root = { field: '', node: this.doc.contents as Node | null, at: null };
  }

  fail(where: Located, detail: string, field = where.field): never {
    // An empty value has no text of its own: point at its key instead.
    const empty = where.node !== null && isScalar(where.node) && where.node.value === null && !where.node.source;
    const node = (empty ? null : where.node) ?? where.at;
    const offset = node?.range?.[0] ?? 0;
    const { line, col } = this.lines.linePos(offset);
    throw new BrainError({ file: this.file, line, col, field: field || '(top level)', detail });
  }

  private resolved(v: Located): Node | null {
    let node = v.node;
    // Aliases point at their anchor; a cycle cannot occur in a parsed document.
    while (node && isAlias(node)) node = (node.resolve(this.doc) as Node | undefined) ?? null;
    return node;
  }

  isEmpty(v: Located): boolean {
    const node = this.resolved(v);
    return node === null || (isScalar(node) && node.value === null);
  }

  /** A mapping with string keys; keys outside `allowed` are errors, `required` ones must be present. */
  map(v: Located, allowed: readonly string[] | null, required: readonly string[] = []): Map<string, Located> {
    const node = this.resolved(v);
    if (!node || !isMap(node)) this.fail(v, `expected a mapping${allowed ? ` with ${allowed.join(', ')}` : ''}`);
    const out = new Map<string, Located>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const key = keyNode && isScalar(keyNode) && keyNode.value !== null ? this.scalarSource(keyNode) : null;
      const keyLoc: Located = { field: v.field, node: keyNode, at: v.node };
      if (key === null) this.fail(keyLoc, 'expected a plain key');
      const field = v.field ? `${v.field}.${key}` : key;
      if (allowed && !allowed.includes(key)) {
        this.fail({ ...keyLoc, field }, `unknown field "${key}" (expected one of: ${allowed.join(', ')})`);
      }
      out.set(key, { field, node: pair.value as Node | null, at: keyNode });
    }
    for (const key of required) {
      if (!out.has(key)) this.fail(v, `missing required field "${key}"`);
    }
    return out;
  }

  seq(v: Located): Located[] {
    const node = this.resolved(v);
    if (!node || !isSeq(node)) this.fail(v, 'expected a list');
    return node.items.map((item, i) => ({ field: `${v.field}[${i}]`, node: item as Node | null, at: v.node }));
  }

  /** A list, or a single item standing for a list of one. */
  seqOrOne(v: Located): Located[] {
    const node = this.resolved(v);
    return node && isSeq(node) ? this.seq(v) : [v];
  }

  isSeq(v: Located): boolean {
    const node = this.resolved(v);
    return node !== null && isSeq(node);
  }

  isScalar(v: Located): boolean {
    const node = this.resolved(v);
    return node !== null && isScalar(node);
  }

  /** Non-empty text. Numbers are taken as written (`reply: 42` is "42"). */
  str(v: Located): string {
    const node = this.resolved(v);
    if (!node || !isScalar(node) || node.value === null) this.fail(v, 'expected text');
    if (typeof node.value === 'boolean') this.fail(v, 'expected text, got a boolean (quote it)');
    const text = typeof node.value === 'string' ? node.value : this.scalarSource(node);
    if (text.trim() === '') this.fail(v, 'expected text, got an empty string');
    return text;
  }

  int(v: Located, min: number): number {
    const node = this.resolved(v);
    if (!node || !isScalar(node) || typeof node.value !== 'number' || !Number.isInteger(node.value)) {
      this.fail(v, 'expected a whole number');
    }
    if (node.value < min) this.fail(v, `expected a number >= ${min}, got ${node.value}`);
    return node.value;
  }

  json(v: Located): JsonValue {
    const node = this.resolved(v);
    if (!node) return null;
    return node.toJS(this.doc) as JsonValue;
  }

  /**
   * A scalar's text as written, so a keypad key `012` stays "012" and is not
   * read as the number 12.
   */
  private scalarSource(node: Scalar): string {
    return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
  }
}
