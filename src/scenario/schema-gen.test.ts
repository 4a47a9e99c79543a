import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_NAMES } from './events.js';
import { SCENARIO_FILE_SPEC } from './file-fields.js';
import { generateSchema, schemaDir, schemaText, SCHEMA_FILES, type SchemaFileName } from './schema-gen.js';
import type { JsonObject } from './spec.js';

const names = Object.keys(SCHEMA_FILES) as SchemaFileName[];

describe('JSON Schema', () => {
  it.each(names)(
    'the committed schema/%s equals the generated one (regenerate: npx tsx src/scenario/schema-gen.ts)',
    (name) => {
      expect(readFileSync(join(schemaDir(), name), 'utf8')).toBe(schemaText(name));
    },
  );

  it('is generated from the loader field table: the same keys, the same event names', () => {
    const schema = generateSchema('scenario.schema.json');
    const props = schema.properties as JsonObject;
    expect(Object.keys(props).sort()).toEqual(Object.keys(SCENARIO_FILE_SPEC.fields).sort());
    const defs = schema.definitions as Record<string, JsonObject>;
    const event = (defs.expectation.properties as Record<string, JsonObject>).event;
    expect(event.enum).toEqual([...EVENT_NAMES]);
    expect(defs.turn.additionalProperties).toBe(false);
    expect(Object.keys(defs.latency.properties as JsonObject)).toContain('voice_to_voice_ms');
  });

  it('accepts an !include path where a shared block (user, judge) is expected', () => {
    const defs = generateSchema('scenario.schema.json').definitions as Record<string, JsonObject>;
    expect(defs.judge.anyOf).toContainEqual({
      type: 'string',
      description: 'Pulled in from another file with !include.',
    });
  });
});
