/**
 * A CheckedSchemaRecord lets a process skip checking config schemas an earlier process saw pass;
 * it must never let through a schema that was not the one that passed.
 */
import { describe, expect, it } from 'vitest';
import { compileConfigValidator } from './config-validator.js';
import { validateConfigSchema, type CheckedSchemaRecord } from './config-schema.js';
import { validateManifest } from './validate-manifest.js';

/** A record that counts how it is used. */
function countingRecord(keys: Iterable<string> = []): CheckedSchemaRecord & { readonly keys: Set<string>; asked: number } {
  const record = {
    keys: new Set(keys),
    asked: 0,
    has(key: string) {
      record.asked += 1;
      return record.keys.has(key);
    },
    add(key: string) {
      record.keys.add(key);
    },
  };
  return record;
}

let unique = 0;
/** A schema no other test has checked in this process (schemas a record vouched for are remembered per process). */
function schema(properties: Record<string, unknown> = { root: { type: 'string', minLength: 1 } }): Record<string, unknown> {
  unique += 1;
  return { type: 'object', additionalProperties: false, description: `schema ${unique}`, properties, required: ['root'] };
}

describe('validateConfigSchema with a record of checked schemas', () => {
  it('adds a schema that passed, one key per exact schema text', () => {
    const record = countingRecord();
    const first = schema();
    expect(validateConfigSchema(first, 'configSchema', record)).toEqual([]);
    expect([...record.keys]).toHaveLength(1);
    expect([...record.keys][0]).toMatch(/^[0-9a-f]{64}$/u);
    expect(validateConfigSchema(schema(), 'configSchema', record)).toEqual([]);
    expect(record.keys.size).toBe(2);
  });

  it('never adds a schema with issues, and a key of another schema does not let it through', () => {
    const record = countingRecord();
    const good = schema();
    validateConfigSchema(good, 'configSchema', record);
    const keys = [...record.keys];
    // The same text but open, and a strict-mode error: each is checked in full and refused.
    const open = { ...good, additionalProperties: true };
    const strictError = { ...good, properties: { root: { minLength: 1 } } };
    expect(validateConfigSchema(open, 'configSchema', record).map((issue) => issue.path)).toEqual(['configSchema.additionalProperties']);
    expect(validateConfigSchema(strictError, 'configSchema', record).length).toBeGreaterThan(0);
    expect([...record.keys]).toEqual(keys);
  });

  it('a second process with the record asks it once and compiles a validator that still checks configs', () => {
    const seen = schema({ root: { type: 'string', minLength: 1 }, depth: { type: 'integer', minimum: 0 } });
    const earlier = countingRecord();
    validateConfigSchema(seen, 'configSchema', earlier);
    // A copy of the text, as the next start reads it from package.json.
    const again = JSON.parse(JSON.stringify(seen)) as Record<string, unknown>;
    const later = countingRecord(earlier.keys);
    expect(validateConfigSchema(again, 'configSchema', later)).toEqual([]);
    expect(later.asked).toBe(1);
    expect(validateConfigSchema(again, 'configSchema', later)).toEqual([]);
    expect(later.asked).toBe(1);
    const validate = compileConfigValidator(again);
    expect(validate({ root: '/srv', depth: 2 })).toEqual({ root: '/srv', depth: 2 });
    expect(() => validate({ root: '', depth: -1 })).toThrow(/field "root"[\s\S]*field "depth"/u);
    expect(() => validate({ root: '/srv', typo: 1 })).toThrow(/typo/u);
  });

  it('keys from a record of garbage or of another checker match nothing', () => {
    const record = countingRecord(['0'.repeat(64), 'not a key']);
    const bad = { ...schema(), additionalProperties: true };
    expect(validateConfigSchema(bad, 'configSchema', record).map((issue) => issue.path)).toEqual(['configSchema.additionalProperties']);
  });

  it('validateManifest passes its record to every source connector schema', () => {
    const record = countingRecord();
    const entry = (id: string) => ({
      id,
      name: id,
      type: 'source',
      kind: id,
      transport: 'in-process',
      capabilities: ['list', 'read'],
      configSchema: schema(),
      defaultScope: 'project',
      connectorFactory: './dist/index.js#create',
    });
    validateManifest({ id: 'two-kinds', connectors: [entry('one'), entry('two')] }, { trust: 'trusted', checkedSchemas: record });
    expect(record.keys.size).toBe(2);
  });
});
