import {
  childPath,
  closest,
  describeValue,
  diagnosticAt,
  type Diagnostic,
  type SourceLocation,
} from './diagnostics.js';
import { entry, toPlain, type YNode } from './ynode.js';

/**
 * A small declarative description of the file formats. The same tables drive
 * the loader's type checks (here) and the JSON Schema (schema-gen.ts), so the
 * schema an editor uses cannot drift from what `earshot validate` accepts.
 * Rules that tie fields together live in the per-kind normalizers and are
 * mirrored into the schema through `rules`.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

interface SpecBase {
  description?: string;
}
export interface StringSpec extends SpecBase {
  kind: 'string';
  enum?: readonly string[];
  nonEmpty?: boolean;
  default?: string;
  /** JSON Schema pattern for editors; the normalizer checks it with a better message. */
  pattern?: string;
  /** Also accept a YAML integer, kept as its digits (`dtmf: 123` is "123"). */
  fromInteger?: boolean;
}
export interface IntegerSpec extends SpecBase {
  kind: 'integer';
  min?: number;
  max?: number;
  unit?: string;
  default?: number;
}
export interface NumberSpec extends SpecBase {
  kind: 'number';
  min?: number;
  exclusiveMin?: number;
  max?: number;
  unit?: string;
  default?: number;
}
export interface BooleanSpec extends SpecBase {
  kind: 'boolean';
  default?: boolean;
}
export interface ObjectSpec extends SpecBase {
  kind: 'object';
  fields: Record<string, Spec>;
  required?: readonly string[];
  /**
   * Keys not in `fields`: `warn` (unknown key, with a suggestion), `pass` (kept
   * as they are) or `pass-with-factory` (kept when the block names a `factory:`,
   * as Pipecat passes them to it; warned about otherwise).
   */
  extra?: 'warn' | 'pass' | 'pass-with-factory';
  /** The block is commonly shared with `!include`: editors accept a string there. */
  includable?: boolean;
  /** Cross-field rules, as JSON Schema, for editors; the normalizer enforces them. */
  rules?: JsonObject[];
  minProperties?: number;
}
export interface ArraySpec extends SpecBase {
  kind: 'array';
  items: Spec;
  nonEmpty?: boolean;
}
/** A free-form mapping (function arguments, provider `extra`). */
export interface MapSpec extends SpecBase {
  kind: 'map';
}
export interface AnySpec extends SpecBase {
  kind: 'any';
}
/** Alternatives told apart by the YAML node's shape (a name string or a `{name, args}` mapping). */
export interface OneOfSpec extends SpecBase {
  kind: 'oneOf';
  options: Spec[];
}
/** A named definition: `$ref`'d in the JSON Schema. */
export interface RefSpec {
  kind: 'ref';
  name: string;
  spec: Spec;
}
export type Spec =
  | StringSpec
  | IntegerSpec
  | NumberSpec
  | BooleanSpec
  | ObjectSpec
  | ArraySpec
  | MapSpec
  | AnySpec
  | OneOfSpec
  | RefSpec;

/** The shorthands the field tables are written in (fields.ts, service-fields.ts, file-fields.ts). */
export const ref = (name: string, spec: Spec): RefSpec => ({ kind: 'ref', name, spec });
export const str = (description: string, extra: Partial<Extract<Spec, { kind: 'string' }>> = {}): Spec => ({
  kind: 'string',
  description,
  ...extra,
});
export const text = (description: string): Spec => str(description, { nonEmpty: true });

export function deref(spec: Spec): Exclude<Spec, RefSpec> {
  let s: Spec = spec;
  while (s.kind === 'ref') s = s.spec;
  return s;
}

/** Human wording of what a spec accepts, used in messages and schema descriptions. */
export function expectedText(spec: Spec): string {
  const s = deref(spec);
  const unit = 'unit' in s && s.unit ? ` (${s.unit})` : '';
  switch (s.kind) {
    case 'string':
      if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
      return s.nonEmpty ? 'a non-empty string' : 'a string';
    case 'integer':
      if (s.min !== undefined && s.max !== undefined) return `an integer from ${s.min} to ${s.max}${unit}`;
      if (s.min === 1) return `a positive integer${unit}`;
      if (s.min === 0) return `a non-negative integer${unit}`;
      return `an integer${unit}`;
    case 'number':
      if (s.exclusiveMin === 0 && s.max !== undefined) return `a number above 0, at most ${s.max}${unit}`;
      if (s.exclusiveMin === 0) return `a positive number${unit}`;
      if (s.min !== undefined && s.max !== undefined) return `a number from ${s.min} to ${s.max}${unit}`;
      if (s.min === 0) return `a non-negative number${unit}`;
      return `a number${unit}`;
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'map':
      return 'a mapping';
    case 'array':
      return s.nonEmpty ? 'a non-empty list' : 'a list';
    case 'any':
      return 'any value';
    case 'oneOf':
      return s.options.map(expectedText).join(' or ');
  }
}

export interface CheckContext {
  diagnostics: Diagnostic[];
  locations: Record<string, SourceLocation>;
  /** For patterned strings: where the characters start, so a bad character can be pointed at. */
  textStart: Record<string, SourceLocation>;
}

export const INVALID: unique symbol = Symbol('invalid');
export type Checked = unknown | typeof INVALID;

function typeMismatch(ctx: CheckContext, node: YNode, path: string, spec: Spec): typeof INVALID {
  const expected = expectedText(spec);
  let got: string;
  if (node.kind === 'scalar') {
    got =
      node.type === 'str'
        ? describeValue(node.value)
        : `${node.type === 'null' ? 'nothing' : describeValue(node.value)}`;
    const wantsString = deref(spec).kind === 'string';
    if (wantsString && (node.type === 'int' || node.type === 'float' || node.type === 'bool')) {
      got += ` (YAML reads it as a ${node.type === 'bool' ? 'boolean' : 'number'}; quote it to keep it text)`;
    }
  } else {
    got = node.kind === 'seq' ? 'a list' : 'a mapping';
  }
  ctx.diagnostics.push(diagnosticAt('error', node.loc, path, `expected ${expected}, got ${got}`, expected));
  return INVALID;
}

function shapeAccepts(spec: Spec, node: YNode): boolean {
  const s = deref(spec);
  if (node.kind === 'map') return s.kind === 'object' || s.kind === 'map' || s.kind === 'any';
  if (node.kind === 'seq') return s.kind === 'array' || s.kind === 'any';
  switch (node.type) {
    case 'str':
      return s.kind === 'string' || s.kind === 'any';
    case 'int':
      return (
        s.kind === 'integer' ||
        s.kind === 'number' ||
        s.kind === 'any' ||
        (s.kind === 'string' && s.fromInteger === true)
      );
    case 'float':
      return s.kind === 'number' || s.kind === 'any';
    case 'bool':
      return s.kind === 'boolean' || s.kind === 'any';
    case 'null':
      return s.kind === 'any';
  }
}

/** Checks `node` against `spec`; records its location; returns the plain value or INVALID. */
export function check(node: YNode, spec: Spec, path: string, ctx: CheckContext): Checked {
  const s = deref(spec);
  ctx.locations[path] = node.loc;
  if (s.kind === 'oneOf') {
    const option = s.options.find((o) => shapeAccepts(o, node));
    return option ? check(node, option, path, ctx) : typeMismatch(ctx, node, path, s);
  }
  if (!shapeAccepts(s, node)) return typeMismatch(ctx, node, path, s);
  switch (s.kind) {
    case 'any':
    case 'map':
      return toPlain(node);
    case 'string':
      return checkString(node.kind === 'scalar' ? scalarText(node) : '', node, s, path, ctx);
    case 'integer':
    case 'number':
      return checkNumber(Number(node.kind === 'scalar' ? node.value : NaN), node, s, path, ctx);
    case 'boolean':
      return node.kind === 'scalar' ? node.value : INVALID;
    case 'array': {
      if (node.kind !== 'seq') return INVALID;
      if (s.nonEmpty && node.items.length === 0) {
        ctx.diagnostics.push(
          diagnosticAt('error', node.loc, path, `expected ${expectedText(s)}, got an empty list`, expectedText(s)),
        );
        return INVALID;
      }
      return node.items.map((item, i) => {
        const v = check(item, s.items, childPath(path, i), ctx);
        return v === INVALID ? undefined : v;
      });
    }
    case 'object':
      return node.kind === 'map' ? checkObject(node, s, path, ctx) : INVALID;
  }
}

/** A string scalar's value; an integer's digits as written (big ones too), sign and `_` grouping dropped. */
function scalarText(node: Extract<YNode, { kind: 'scalar' }>): string {
  if (node.type !== 'int') return String(node.value);
  const digits = node.source.replace(/_/g, '').replace(/^\+/, '');
  return BigInt(digits).toString();
}

function checkString(value: string, node: YNode, s: StringSpec, path: string, ctx: CheckContext): Checked {
  if (s.pattern && node.kind === 'scalar' && node.singleLine) {
    ctx.textStart[path] = node.quoted ? { ...node.loc, col: node.loc.col + 1 } : node.loc;
  }
  if (s.enum && !s.enum.includes(value)) {
    const guess = closest(value, s.enum);
    const expected = expectedText(s);
    const hint = guess ? `did you mean "${guess}"?` : `expected ${expected}`;
    ctx.diagnostics.push(
      diagnosticAt('error', node.loc, path, `unknown value ${describeValue(value)}; ${hint}`, expected),
    );
    return INVALID;
  }
  if (s.nonEmpty && value.trim() === '') {
    ctx.diagnostics.push(
      diagnosticAt('error', node.loc, path, `expected ${expectedText(s)}, got an empty string`, expectedText(s)),
    );
    return INVALID;
  }
  return value;
}

function checkNumber(
  value: number,
  node: YNode,
  s: IntegerSpec | NumberSpec,
  path: string,
  ctx: CheckContext,
): Checked {
  const below =
    (s.min !== undefined && value < s.min) ||
    ('exclusiveMin' in s && s.exclusiveMin !== undefined && value <= s.exclusiveMin);
  const above = s.max !== undefined && value > s.max;
  if (below || above || !Number.isFinite(value) || (s.kind === 'integer' && !Number.isSafeInteger(value))) {
    const expected = expectedText(s);
    const got = node.kind === 'scalar' ? node.source : String(value);
    ctx.diagnostics.push(diagnosticAt('error', node.loc, path, `expected ${expected}, got ${got}`, expected));
    return INVALID;
  }
  return value;
}

function checkObject(
  node: Extract<YNode, { kind: 'map' }>,
  s: ObjectSpec,
  path: string,
  ctx: CheckContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = Object.keys(s.fields);
  const hasFactory = entry(node, 'factory') !== undefined;
  const passExtra = s.extra === 'pass' || (s.extra === 'pass-with-factory' && hasFactory);
  const tried = new Set<string>();
  const empty = new Map<string, SourceLocation>();
  for (const e of node.entries) {
    const p = childPath(path, e.key);
    const field = Object.hasOwn(s.fields, e.key) ? s.fields[e.key] : undefined;
    if (!field) {
      if (passExtra) {
        ctx.locations[p] = e.value.loc;
        Object.defineProperty(out, e.key, {
          value: toPlain(e.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        continue;
      }
      const guess = closest(e.key, known);
      const hint = guess ? `; did you mean '${guess}'?` : `; known keys: ${known.join(', ')}`;
      const why = s.extra === 'pass-with-factory' ? ' (extra keys are passed only to a factory:)' : '';
      ctx.diagnostics.push(diagnosticAt('warning', e.keyLoc, p, `unknown key '${e.key}'${why}${hint}`));
      continue;
    }
    tried.add(e.key);
    if (e.value.kind === 'scalar' && e.value.type === 'null') {
      // `key:` with no value reads as "not given", as PyYAML's `data.get(key)` does.
      ctx.locations[p] = e.value.loc;
      tried.delete(e.key);
      empty.set(e.key, e.value.loc);
      continue;
    }
    const v = check(e.value, field, p, ctx);
    if (v !== INVALID) out[e.key] = v;
  }
  if (s.minProperties && node.entries.length < s.minProperties) {
    ctx.diagnostics.push(
      diagnosticAt('error', node.loc, path, `expected at least ${s.minProperties} of: ${known.join(', ')}`),
    );
  }
  for (const key of s.required ?? []) {
    if (tried.has(key)) continue;
    const expected = expectedText(s.fields[key]);
    const emptyAt = empty.get(key);
    if (emptyAt)
      ctx.diagnostics.push(
        diagnosticAt('error', emptyAt, childPath(path, key), `expected ${expected}, got nothing`, expected),
      );
    else
      ctx.diagnostics.push(
        diagnosticAt('error', node.loc, path, `missing required key '${key}' (${expected})`, expected),
      );
  }
  for (const [key, field] of Object.entries(s.fields)) {
    const f = deref(field);
    if (!tried.has(key) && 'default' in f && f.default !== undefined) out[key] = f.default;
  }
  return out;
}
