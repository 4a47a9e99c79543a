import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_SPEC, SCENARIO_FILE_SPEC } from './file-fields.js';
import { CORPUS_SPEC, GAIA_SPEC } from './gaia-fields.js';
import type { JsonObject, JsonValue, ObjectSpec, Spec } from './spec.js';

/**
 * JSON Schemas (draft-07, what editors' YAML plugins read) generated from the
 * loader's field tables. `npx tsx src/scenario/schema-gen.ts` rewrites
 * schema/*.json; `--check` only compares and exits 1 when they are stale.
 */

export const SCHEMA_FILES = {
  'scenario.schema.json': {
    title: 'earshot scenario file (scripted scenarios and simulations)',
    spec: SCENARIO_FILE_SPEC,
  },
  // The same file format: one file holds either kind. Kept so `$schema` comments naming it keep working.
  'simulation.schema.json': {
    title: 'earshot scenario file (simulations and scripted scenarios)',
    spec: SCENARIO_FILE_SPEC,
  },
  'manifest.schema.json': { title: 'earshot suite manifest', spec: MANIFEST_SPEC },
  'gaia-scenario.schema.json': { title: 'AMD GAIA scenario (as earshot runs it)', spec: GAIA_SPEC },
  'gaia-corpus.schema.json': { title: 'AMD GAIA corpus manifest (eval/corpus/manifest.json)', spec: CORPUS_SPEC },
} as const;
export type SchemaFileName = keyof typeof SCHEMA_FILES;

class Generator {
  readonly definitions = new Map<string, JsonObject>();

  schema(spec: Spec, optional: boolean): JsonObject {
    const base = this.inner(spec);
    // `key:` with no value is read as "not given", so optional fields accept null.
    if (!optional) return base;
    if (typeof base.type === 'string') return { ...base, type: [base.type, 'null'] };
    return { anyOf: [base, { type: 'null' }] };
  }

  private inner(spec: Spec): JsonObject {
    switch (spec.kind) {
      case 'ref': {
        if (!this.definitions.has(spec.name)) {
          this.definitions.set(spec.name, {}); // placeholder first: a definition may refer to itself
          this.definitions.set(spec.name, this.inner(spec.spec));
        }
        return { $ref: `#/definitions/${spec.name}` };
      }
      case 'string': {
        if (spec.fromInteger) {
          const text: JsonObject = { type: 'string', minLength: 1 };
          if (spec.pattern) text.pattern = spec.pattern;
          return describe({ anyOf: [text, { type: 'integer', minimum: 0 }] }, spec.description);
        }
        const out: JsonObject = { type: 'string' };
        describe(out, spec.description);
        if (spec.enum) out.enum = [...spec.enum];
        if (spec.nonEmpty && !spec.pattern) out.minLength = 1;
        if (spec.pattern) out.pattern = spec.pattern;
        if (spec.default !== undefined) out.default = spec.default;
        return out;
      }
      case 'integer':
      case 'number': {
        const out: JsonObject = { type: spec.kind };
        describe(out, spec.description, spec.unit);
        if (spec.min !== undefined) out.minimum = spec.min;
        if ('exclusiveMin' in spec && spec.exclusiveMin !== undefined) out.exclusiveMinimum = spec.exclusiveMin;
        if (spec.max !== undefined) out.maximum = spec.max;
        if (spec.default !== undefined) out.default = spec.default;
        return out;
      }
      case 'boolean': {
        const out: JsonObject = { type: 'boolean' };
        describe(out, spec.description);
        if (spec.default !== undefined) out.default = spec.default;
        return out;
      }
      case 'map':
        return describe({ type: 'object' }, spec.description);
      case 'any':
        return describe({}, spec.description);
      case 'array': {
        const out: JsonObject = { type: 'array', items: this.schema(spec.items, false) };
        if (spec.nonEmpty) out.minItems = 1;
        return describe(out, spec.description);
      }
      case 'oneOf':
        return describe({ anyOf: spec.options.map((o) => this.schema(o, false)) }, spec.description);
      case 'object':
        return this.object(spec);
    }
  }

  private object(spec: ObjectSpec): JsonObject {
    const properties: JsonObject = {};
    for (const [key, field] of Object.entries(spec.fields)) {
      properties[key] = this.schema(field, !(spec.required ?? []).includes(key));
    }
    const out: JsonObject = { type: 'object' };
    describe(out, spec.description);
    out.properties = properties;
    if (spec.required && spec.required.length > 0) out.required = [...spec.required];
    if (spec.minProperties) out.minProperties = spec.minProperties;
    const known = Object.keys(spec.fields);
    const rules: JsonValue[] = [...(spec.rules ?? [])];
    if (spec.extra === 'pass') {
      out.additionalProperties = true;
    } else if (spec.extra === 'pass-with-factory') {
      // Extra keys are for a factory: without one, only the known keys.
      rules.push({ if: { not: { required: ['factory'] } }, then: { propertyNames: { enum: known } } });
    } else {
      out.additionalProperties = false;
    }
    if (rules.length > 0) out.allOf = rules;
    if (spec.includable) {
      return { anyOf: [out, { type: 'string', description: 'Pulled in from another file with !include.' }] };
    }
    return out;
  }
}

function describe(out: JsonObject, description?: string, unit?: string): JsonObject {
  if (description)
    out.description = unit && !description.includes(`(${unit})`) ? `${description} (${unit})` : description;
  return out;
}

export function generateSchema(name: SchemaFileName): JsonObject {
  const { title, spec } = SCHEMA_FILES[name];
  const gen = new Generator();
  const root = gen.schema(spec, false);
  const definitions: JsonObject = {};
  for (const key of [...gen.definitions.keys()].sort()) definitions[key] = gen.definitions.get(key) as JsonObject;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title,
    ...root,
    definitions,
  };
}

/** The committed text of a schema file: stable key order, two-space indent, trailing newline. */
export function schemaText(name: SchemaFileName): string {
  return `${JSON.stringify(generateSchema(name), null, 2)}\n`;
}

export function schemaDir(): string {
  return resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'schema');
}

/** Writes (or with `check`, compares) every schema file; returns the names that differed. */
export function writeSchemas(dir = schemaDir(), check = false): string[] {
  const stale: string[] = [];
  if (!check) mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(SCHEMA_FILES) as SchemaFileName[]) {
    const path = join(dir, name);
    const text = schemaText(name);
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // Missing: stale.
    }
    if (current !== text) {
      stale.push(name);
      if (!check) writeFileSync(path, text);
    }
  }
  return stale;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const stale = writeSchemas(schemaDir(), check);
  if (check && stale.length > 0) {
    process.stderr.write(`schema files out of date: ${stale.join(', ')} (run: npx tsx src/scenario/schema-gen.ts)\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(
      stale.length > 0 ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'schema files up to date\n',
    );
  }
}
