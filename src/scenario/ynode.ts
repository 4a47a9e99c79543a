import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, visit, type Alias, type Node } from 'yaml';
import { diagnosticAt, type Diagnostic, type SourceLocation } from './diagnostics.js';
import { isDecimalIntSource, readYamlFile, type LoadLimits, type ParsedSource, type SourceCache } from './source.js';
import { isInside } from './root.js';

/**
 * The document as the loader sees it: YAML nodes with their source location,
 * `!include`s spliced in and aliases expanded, under a budget so a YAML bomb,
 * an include cycle or a file outside the scenario root becomes a located error.
 */
export type YNode = YMap | YSeq | YScalar;

export interface YMap {
  kind: 'map';
  entries: YEntry[];
  loc: SourceLocation;
}
export interface YEntry {
  key: string;
  keyLoc: SourceLocation;
  value: YNode;
}
export interface YSeq {
  kind: 'seq';
  items: YNode[];
  loc: SourceLocation;
}
export type ScalarType = 'str' | 'int' | 'float' | 'bool' | 'null';
export interface YScalar {
  kind: 'scalar';
  type: ScalarType;
  value: string | number | boolean | null;
  /** The scalar's text after unquoting (for `dtmf: 0123`-style digit strings). */
  source: string;
  /** Plain or quoted on one line: columns inside it can be pointed at. */
  singleLine: boolean;
  quoted: boolean;
  loc: SourceLocation;
}

export interface ExpandOptions {
  limits: LoadLimits;
  /** Realpath of the scenario root: `!include` may not leave it unless allowed. */
  root: string;
  allowOutsideRoot: boolean;
  /** Parsed files shared across loads. */
  sources?: SourceCache;
}

interface FileFrame {
  source: ParsedSource;
  via?: SourceLocation;
  aliasTargets: Map<Alias, Node>;
}

const MERGE_KEY = '<<';
/** Tags a scenario may spell out; anything else (e.g. `!!python/object`) is refused. */
const STANDARD_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

export class Expander {
  readonly diagnostics: Diagnostic[] = [];
  /** Realpaths of every file pulled in with `!include`, in first-use order. */
  readonly includes: string[] = [];
  /** Realpaths of every existing file an `!include` named, pulled in or refused (outside the root, a cycle). */
  readonly named: string[] = [];
  private nodes = 0;
  private chars = 0;
  private aliases = 0;
  private includeUses = 0;
  private readonly includeStack: string[] = [];
  private readonly parsed = new Map<string, ParsedSource | null>();
  private aborted = false;

  constructor(private readonly options: ExpandOptions) {}

  /** Expands a parsed top-level file; undefined when an error stopped the expansion. */
  expand(source: ParsedSource, realFile: string): YNode | undefined {
    this.includeStack.push(realFile);
    try {
      const frame = this.frame(source);
      const root = source.doc.contents;
      const out = root ? this.node(root, frame, 0, []) : nullScalar(this.loc(frame, 0));
      return this.aborted ? undefined : out;
    } finally {
      this.includeStack.pop();
    }
  }

  private frame(source: ParsedSource, via?: SourceLocation): FileFrame {
    // Pipecat's semantics: an alias refers to the last anchor of that name before it.
    const aliasTargets = new Map<Alias, Node>();
    if (!source.text.includes('*')) return { source, via, aliasTargets }; // no alias can occur
    const anchors = new Map<string, Node>();
    visit(source.doc, {
      Node: (_key, node) => {
        if (isAlias(node)) {
          const target = anchors.get(node.source);
          if (target) aliasTargets.set(node, target);
        } else if (node.anchor) {
          anchors.set(node.anchor, node);
        }
      },
    });
    return { source, via, aliasTargets };
  }

  private loc(frame: FileFrame, offset: number): SourceLocation {
    const { line, col } = frame.source.lines.linePos(offset);
    return frame.via
      ? { file: frame.source.file, line, col, included_from: frame.via }
      : { file: frame.source.file, line, col };
  }

  private fail(loc: SourceLocation, message: string): undefined {
    this.diagnostics.push(diagnosticAt('error', loc, '', message));
    this.aborted = true;
    return undefined;
  }

  private count(loc: SourceLocation, chars: number): boolean {
    this.nodes++;
    this.chars += chars;
    if (this.nodes > this.options.limits.maxNodes) {
      this.fail(
        loc,
        `document expands to more than ${this.options.limits.maxNodes} nodes ` +
          `(aliases or includes repeated too often: a YAML bomb?)`,
      );
      return false;
    }
    if (this.chars > this.options.limits.maxExpandedChars) {
      this.fail(
        loc,
        `document expands to more than ${this.options.limits.maxExpandedChars} characters of text ` +
          `(aliases or includes repeated too often: a YAML bomb?)`,
      );
      return false;
    }
    return true;
  }

  private node(node: Node, frame: FileFrame, depth: number, ancestors: Node[]): YNode | undefined {
    if (this.aborted) return undefined;
    const loc = this.loc(frame, node.range?.[0] ?? 0);
    if (depth > this.options.limits.maxDepth)
      return this.fail(loc, `nesting deeper than ${this.options.limits.maxDepth} levels`);
    if (isAlias(node)) {
      const target = frame.aliasTargets.get(node);
      if (!target) return this.fail(loc, `alias *${node.source} has no anchor &${node.source} before it`);
      if (ancestors.includes(target))
        return this.fail(loc, `alias *${node.source} refers to a node that contains it (a cycle)`);
      if (++this.aliases > this.options.limits.maxAliases) {
        return this.fail(loc, `more than ${this.options.limits.maxAliases} alias uses (a YAML bomb?)`);
      }
      return this.node(target, frame, depth, ancestors);
    }
    if (node.tag === '!include') {
      if (!isScalar(node)) return this.fail(loc, '!include expects a file path (a string), not a mapping or list');
      return this.include(String(node.value ?? ''), loc, depth);
    }
    if (node.tag && !STANDARD_TAGS.has(node.tag)) {
      return this.fail(
        loc,
        `unsupported tag ${node.tag.replace('tag:yaml.org,2002:', '!!')} ` +
          `(only !include and the standard YAML tags are allowed)`,
      );
    }
    if (isMap(node)) {
      if (!this.count(loc, 0)) return undefined;
      const inner = [...ancestors, node];
      const entries: YEntry[] = [];
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyLoc = keyNode ? this.loc(frame, keyNode.range?.[0] ?? 0) : loc;
        const key = this.keyText(keyNode, keyLoc);
        if (key === undefined) return undefined;
        const valueNode = pair.value as Node | null;
        const value = valueNode ? this.node(valueNode, frame, depth + 1, inner) : nullScalar(keyLoc);
        if (value === undefined) return undefined;
        if (key === MERGE_KEY && keyNode && isScalar(keyNode) && !keyNode.type?.startsWith('QUOTE')) {
          this.merge(entries, seen, value, keyLoc);
          if (this.aborted) return undefined;
          continue;
        }
        const previous = seen.get(key);
        if (previous !== undefined) {
          this.diagnostics.push(
            diagnosticAt(
              'warning',
              keyLoc,
              '',
              `duplicate key '${key}': this later value replaces the one at line ${entries[previous].keyLoc.line}`,
            ),
          );
          entries[previous] = { key, keyLoc, value };
        } else {
          seen.set(key, entries.length);
          entries.push({ key, keyLoc, value });
        }
      }
      return { kind: 'map', entries, loc };
    }
    if (isSeq(node)) {
      if (!this.count(loc, 0)) return undefined;
      const inner = [...ancestors, node];
      const items: YNode[] = [];
      for (const item of node.items) {
        const value = item ? this.node(item as Node, frame, depth + 1, inner) : nullScalar(loc);
        if (value === undefined) return undefined;
        items.push(value);
      }
      return { kind: 'seq', items, loc };
    }
    if (isScalar(node)) {
      const value = node.value;
      const source = typeof node.source === 'string' ? node.source : String(value);
      if (!this.count(loc, source.length)) return undefined;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const range = node.range ?? [0, 0];
      const singleLine =
        (node.type === 'PLAIN' || quoted) && !frame.source.text.slice(range[0], range[1]).includes('\n');
      const base = { kind: 'scalar' as const, source, singleLine, quoted, loc };
      if (value === null || value === undefined) return { ...base, type: 'null', value: null };
      if (typeof value === 'boolean') return { ...base, type: 'bool', value };
      if (typeof value === 'number') return { ...base, type: isDecimalIntSource(source) ? 'int' : 'float', value };
      if (typeof value === 'string') return { ...base, type: 'str', value };
      return this.fail(
        loc,
        `unsupported YAML value (${node.tag ?? typeof value}); scenario files hold strings, numbers, booleans, ` +
          `mappings and lists`,
      );
    }
    return this.fail(loc, 'unsupported YAML node');
  }

  private keyText(keyNode: Node | null, keyLoc: SourceLocation): string | undefined {
    if (!keyNode) return '';
    if (isScalar(keyNode)) {
      const v = keyNode.value;
      if (v === null || v === undefined) return '';
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        return typeof v === 'string' ? v : String(keyNode.source ?? v);
      }
    }
    if (isAlias(keyNode)) return this.fail(keyLoc, 'aliases are not supported as mapping keys');
    return this.fail(keyLoc, 'mapping keys must be plain strings, not mappings or lists');
  }

  /** `<<: *base` (or a list of them): keys not already present are copied in, as PyYAML does. */
  private merge(entries: YEntry[], seen: Map<string, number>, value: YNode, keyLoc: SourceLocation): void {
    const sources = value.kind === 'seq' ? value.items : [value];
    for (const src of sources) {
      if (src.kind !== 'map') {
        this.fail(src.loc ?? keyLoc, "merge key '<<' expects a mapping or a list of mappings");
        return;
      }
      for (const e of src.entries) {
        if (seen.has(e.key)) continue;
        seen.set(e.key, entries.length);
        entries.push(e);
      }
    }
  }

  private include(target: string, loc: SourceLocation, depth: number): YNode | undefined {
    if (!target.trim()) return this.fail(loc, '!include needs a file path');
    if (++this.includeUses > this.options.limits.maxIncludes) {
      return this.fail(loc, `more than ${this.options.limits.maxIncludes} !include uses`);
    }
    if (this.includeStack.length > this.options.limits.maxIncludeDepth) {
      return this.fail(loc, `!include nested more than ${this.options.limits.maxIncludeDepth} levels deep`);
    }
    const absolute = resolve(dirname(loc.file), target);
    let real: string;
    try {
      real = realpathSync.native(absolute);
    } catch {
      return this.fail(loc, `!include ${target}: file not found (looked for ${absolute})`);
    }
    if (!this.named.includes(real)) this.named.push(real);
    if (!this.options.allowOutsideRoot && !isInside(this.options.root, real)) {
      return this.fail(
        loc,
        `!include ${target} resolves to ${real}, outside the scenario root ${this.options.root} ` +
          `(pass --allow-outside-root to allow it)`,
      );
    }
    if (this.includeStack.includes(real)) {
      const chain = [...this.includeStack.slice(this.includeStack.indexOf(real)), real].join(' -> ');
      return this.fail(loc, `!include cycle: ${chain}`);
    }
    try {
      if (statSync(real).isDirectory()) return this.fail(loc, `!include ${target} is a directory, not a YAML file`);
    } catch {
      return this.fail(loc, `!include ${target}: cannot read ${real}`);
    }
    let source = this.parsed.get(real);
    if (source === undefined) {
      const result = this.options.sources
        ? this.options.sources.read(real, this.options.limits, loc)
        : readYamlFile(real, this.options.limits, loc);
      if (!result.ok) {
        this.diagnostics.push(...result.diagnostics);
        this.aborted = true;
        this.parsed.set(real, null);
        return undefined;
      }
      source = result.source;
      this.parsed.set(real, source);
    }
    if (source === null) {
      this.aborted = true;
      return undefined;
    }
    if (!this.includes.includes(real)) this.includes.push(real);
    this.includeStack.push(real);
    try {
      const frame = this.frame(source, loc);
      const contents = source.doc.contents;
      return contents
        ? this.node(contents, frame, depth, [])
        : nullScalar({ file: real, line: 1, col: 1, included_from: loc });
    } finally {
      this.includeStack.pop();
    }
  }
}

function nullScalar(loc: SourceLocation): YScalar {
  return { kind: 'scalar', type: 'null', value: null, source: '', singleLine: true, quoted: false, loc };
}

/** Plain JavaScript value of a node (for free-form fields: `args`, `extra`, `context`). */
export function toPlain(node: YNode): unknown {
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const e of node.entries) {
    // Own-property definition: a key named __proto__ must stay data, not reach the prototype.
    Object.defineProperty(out, e.key, {
      value: toPlain(e.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The entry for `key`, if the mapping has it. */
export function entry(map: YMap, key: string): YEntry | undefined {
  for (const e of map.entries) if (e.key === key) return e;
  return undefined;
}
