import { describe, expect, it } from 'vitest';
import { expectIssueAt, expectPaths } from './__fixtures__/expect-issues.js';
import { NOTION_CONNECTOR, copy } from './__fixtures__/spec-examples.js';
import { validateConfigSchema } from './config-schema.js';

function closed(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, properties, ...extra };
}

describe('validateConfigSchema: closed', () => {
  it('spec example: the Notion configSchema is accepted', () => {
    expect(validateConfigSchema(NOTION_CONNECTOR.configSchema)).toEqual([]);
  });

  it('spec: "additionalProperties: false is what makes it closed" — omitted is refused', () => {
    const schema = copy(NOTION_CONNECTOR.configSchema);
    delete schema.additionalProperties;
    expectPaths(validateConfigSchema(schema), ['configSchema.additionalProperties']);
    expectIssueAt(validateConfigSchema(schema), 'configSchema.additionalProperties', 'false');
  });

  it.each([true, {}, { type: 'string' }])('spec: "declare it explicitly" — top-level additionalProperties %j is refused', (additionalProperties) => {
    expectIssueAt(validateConfigSchema({ ...closed({}), additionalProperties }), 'configSchema.additionalProperties', 'false');
  });

  it.each([['array', 'array'], ['union', ['object', 'null']], ['missing', undefined]])('the top level must be type "object" — refuses a %s type', (_what, type) => {
    const schema: Record<string, unknown> = { ...closed({}), type };
    if (type === undefined) delete schema['type'];
    expectIssueAt(validateConfigSchema(schema), 'configSchema.type', '"object"');
  });

  it('refuses a schema that is not an object', () => {
    expectIssueAt(validateConfigSchema(true), 'configSchema', '"additionalProperties": false');
    expectIssueAt(validateConfigSchema('schema', 'connectors[2].configSchema'), 'connectors[2].configSchema', '"additionalProperties": false');
  });

  it('decision: a nested object schema must be closed too (additionalProperties false or a typed map)', () => {
    const open = closed({ auth: { type: 'object', properties: { user: { type: 'string' } } } });
    expectIssueAt(validateConfigSchema(open), 'configSchema.properties.auth.additionalProperties', 'false, or a non-empty schema');
    const openTrue = closed({ headers: { type: 'object', additionalProperties: true } });
    expectIssueAt(validateConfigSchema(openTrue), 'configSchema.properties.headers.additionalProperties', 'false, or a non-empty schema');
    const nestedInArray = closed({ list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } });
    expectIssueAt(validateConfigSchema(nestedInArray), 'configSchema.properties.list.items.additionalProperties', 'false, or a non-empty schema');
  });

  it('decision: a typed map (additionalProperties: a schema) and closed nested objects are accepted', () => {
    const schema = closed({
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      auth: { type: 'object', additionalProperties: false, properties: { user: { type: 'string' } } },
    });
    expect(validateConfigSchema(schema)).toEqual([]);
  });

  it('decision: object schemas inside conditions (not) are not required to be closed', () => {
    const schema = closed({ value: { type: 'object', additionalProperties: false, not: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } } } });
    expect(validateConfigSchema(schema)).toEqual([]);
  });
});

describe('validateConfigSchema: Ajv draft-07 strict', () => {
  it('decision (DESIGN: strict): an unknown keyword is refused at its path, not ignored', () => {
    const schema = closed({ apiUrl: { type: 'string', minLenght: 1, 'x-widget': 'url' } });
    const issues = validateConfigSchema(schema);
    expectPaths(issues, ['configSchema.properties.apiUrl.minLenght', 'configSchema.properties.apiUrl["x-widget"]']);
    expectIssueAt(issues, 'configSchema.properties.apiUrl.minLenght', 'minLength');
  });

  it('a property named like a keyword is a property, not a keyword', () => {
    expect(validateConfigSchema(closed({ minLenght: { type: 'integer' }, description: { type: 'string' } }))).toEqual([]);
  });

  it('reports a malformed keyword value at its path (meta-schema), once per location', () => {
    const issues = validateConfigSchema(closed({ name: { type: 'strin' }, size: { type: 'integer', minimum: 'one' } }, { required: ['name', 'name'] }));
    expectPaths(issues, ['configSchema.properties.name.type', 'configSchema.properties.size.minimum', 'configSchema.required']);
    expectIssueAt(issues, 'configSchema.properties.name.type', 'a JSON type name');
    expectIssueAt(issues, 'configSchema.properties.size.minimum', 'a number');
    expectIssueAt(issues, 'configSchema.required', 'unique property names');
  });

  it('strict types: a type-specific keyword without its type is refused at its schema', () => {
    expectIssueAt(validateConfigSchema(closed({ name: { minLength: 1 } })), 'configSchema.properties.name', 'strict draft-07');
  });

  it('strict required: a required name not declared in properties is refused', () => {
    expectIssueAt(validateConfigSchema(closed({ a: { type: 'string' } }, { required: ['b'] })), 'configSchema', '"required" name declared');
  });

  it('decision: "format" is refused (no format vocabulary installed; use pattern)', () => {
    expectIssueAt(validateConfigSchema(closed({ url: { type: 'string', format: 'uri' } })), 'configSchema.properties.url', 'no "format"');
  });

  it('only draft-07 is accepted as $schema', () => {
    expect(validateConfigSchema({ $schema: 'http://json-schema.org/draft-07/schema#', ...closed({}) })).toEqual([]);
    expectIssueAt(validateConfigSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...closed({}) }), 'configSchema.$schema', 'draft-07');
  });

  it('an invalid regular expression in pattern or patternProperties is refused at its path', () => {
    const issues = validateConfigSchema(closed({ a: { type: 'string', pattern: '(' }, m: { type: 'object', additionalProperties: false, patternProperties: { '[': { type: 'string' } } } }));
    expectIssueAt(issues, 'configSchema.properties.a.pattern', 'regular expression');
    expectIssueAt(issues, 'configSchema.properties.m.patternProperties["["]', 'regular expression');
  });

  it('an unresolvable $ref is refused', () => {
    expectIssueAt(validateConfigSchema(closed({ a: { $ref: '#/definitions/missing' } })), 'configSchema', '"$ref" only to "definitions"');
  });

  it('a $ref into definitions is accepted, and definitions are walked for closedness', () => {
    expect(validateConfigSchema(closed({ a: { $ref: '#/definitions/name' } }, { definitions: { name: { type: 'string' } } }))).toEqual([]);
    expectIssueAt(validateConfigSchema(closed({}, { definitions: { auth: { type: 'object' } } })), 'configSchema.definitions.auth.additionalProperties', 'false');
  });

  it('two schemas sharing an $id compile independently (one package cannot shadow another)', () => {
    expect(validateConfigSchema(closed({ a: { type: 'string' } }, { $id: 'https://example.com/config' }))).toEqual([]);
    expect(validateConfigSchema(closed({ b: { type: 'number' } }, { $id: 'https://example.com/config' }))).toEqual([]);
  });

  it('refuses a schema with a reference cycle instead of looping', () => {
    const schema = closed({});
    (schema['properties'] as Record<string, unknown>)['self'] = schema;
    expectIssueAt(validateConfigSchema(schema), 'configSchema.properties.self', 'without cycles');
  });
});
