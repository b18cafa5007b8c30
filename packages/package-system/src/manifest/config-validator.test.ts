import { describe, expect, it } from 'vitest';
import { InvalidConfigError, ManifestValidationError } from '../contracts/errors.js';
import { NOTION_CONNECTOR } from './__fixtures__/spec-examples.js';
import { compileConfigValidator, describeSchema } from './config-validator.js';

function configErrorOf(run: () => unknown): InvalidConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).code).toBe('invalid_config');
    return error as InvalidConfigError;
  }
  throw new Error('expected an InvalidConfigError');
}

const notion = compileConfigValidator(NOTION_CONNECTOR.configSchema);

describe('compileConfigValidator', () => {
  it('spec: "the registry validates configs against" configSchema — a valid config comes back frozen, the input untouched', () => {
    const input = { workspaceId: 'ws-1', apiKey: 'k' };
    const config = notion(input);
    expect(config).toEqual(input);
    expect(config).not.toBe(input);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('spec: "a typo\'d source config" is a validation error — an unknown key is named with the accepted fields', () => {
    const error = configErrorOf(() => notion({ workspaceId: 'ws-1', apiKey: 'k', workspaceID: 'x' }));
    expect(error.details['fields']).toEqual(['workspaceID']);
    expect(error.message).toContain('field "workspaceID" is not a declared config field');
    expect(error.message).toContain('only the declared fields workspaceId, apiKey');
  });

  it('names every bad field (missing, wrong type, too short) with what it accepts', () => {
    const error = configErrorOf(() => notion({ workspaceId: '' }));
    expect(error.details['fields']).toEqual(['apiKey', 'workspaceId']);
    expect(error.details['expected']).toEqual(['apiKey: a string at least 1 character long', 'workspaceId: a string at least 1 character long']);
    expect(error.message).toContain('field "apiKey" is required');
  });

  it('never puts a config value (possibly a secret) in the message or details', () => {
    const error = configErrorOf(() => notion({ workspaceId: 42, apiKey: 'sk-live-SECRET-123', extra: 'sk-other-SECRET' }));
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('SECRET');
  });

  it('refuses a config that is not an object, and values JSON cannot carry', () => {
    expect(configErrorOf(() => notion(['ws'])).details['fields']).toEqual(['(config)']);
    expect(configErrorOf(() => notion({ workspaceId: 'ws', apiKey: () => 'k' })).details['fields']).toEqual(['apiKey']);
  });

  it('a "__proto__" key is data, refused as an undeclared field, and pollutes nothing', () => {
    const attack = JSON.parse('{"workspaceId":"ws","apiKey":"k","__proto__":{"polluted":true}}') as unknown;
    const error = configErrorOf(() => notion(attack));
    expect(error.details['fields']).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reports nested fields by path, enums with their values, and anyOf once with its alternatives', () => {
    const validate = compileConfigValidator({
      type: 'object',
      additionalProperties: false,
      properties: {
        region: { enum: ['eu', 'us'] },
        auth: { type: 'object', additionalProperties: false, properties: { user: { type: 'string' } }, required: ['user'] },
        limit: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\d+$' }] },
        tags: { type: 'array', items: { type: 'string' } },
      },
    });
    const error = configErrorOf(() => validate({ region: 'asia', auth: {}, limit: false, tags: ['a', 3] }));
    expect(error.details['fields']).toEqual(['region', 'auth.user', 'limit', 'tags[1]']);
    expect(error.details['expected']).toEqual([
      'region: one of "eu", "us"',
      'auth.user: a string',
      'limit: an integer >= 1 or a string of digits only',
      'tags[1]: a string',
    ]);
  });

  it('says what a pattern asks for in words, never its regular expression', () => {
    const validate = compileConfigValidator({
      type: 'object',
      additionalProperties: false,
      properties: {
        root: { type: 'string', minLength: 1, pattern: '^/' },
        endpoint: { type: 'string', pattern: '^https?://' },
        code: { type: 'string', pattern: '^[A-Z]{2}$', description: 'Two capital letters, e.g. DE.' },
        tag: { type: 'string', pattern: '^t-[0-9]+$' },
      },
    });
    const error = configErrorOf(() => validate({ root: 'relative/path', endpoint: 'ftp://x', code: 'de', tag: 'x' }));
    expect(error.message).toContain('field "root" must be an absolute path (expected a string at least 1 character long, starting with /)');
    expect(error.message).toContain('field "endpoint" must be an http or https URL (expected a string starting with http:// or https://)');
    expect(error.message).toContain('field "code" is not in the form the field takes (expected a string in the form described as: Two capital letters, e.g. DE)');
    expect(error.message).toContain('field "tag" is not in the form the field takes (expected a string in the form the kind defines)');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/pattern|\^|\$"|\[A-Z\]|\[0-9\]/);
  });

  it('decision: schema defaults are filled into the returned copy', () => {
    const validate = compileConfigValidator({
      type: 'object',
      additionalProperties: false,
      properties: { pageSize: { type: 'integer', default: 100 }, name: { type: 'string' } },
    });
    const input = { name: 'x' };
    expect(validate(input)).toEqual({ name: 'x', pageSize: 100 });
    expect(input).toEqual({ name: 'x' });
  });

  it('throws ManifestValidationError for a schema that is not closed, naming the issue path', () => {
    try {
      compileConfigValidator({ type: 'object', properties: {} });
      throw new Error('expected a failure');
    } catch (error) {
      expect(error).toBeInstanceOf(ManifestValidationError);
      expect((error as ManifestValidationError).issues.map((issue) => issue.path)).toEqual(['configSchema.additionalProperties']);
    }
  });

  it('validators compiled from equal schemas (by JSON) share one compiled function, and a mutated schema is recompiled', () => {
    const schema: Record<string, unknown> = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } };
    const first = compileConfigValidator(schema);
    (schema['properties'] as Record<string, unknown>)['b'] = { type: 'number' };
    const second = compileConfigValidator(schema);
    expect(() => first({ a: 'x', b: 1 })).toThrow(InvalidConfigError);
    expect(second({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
    expect(compileConfigValidator(JSON.parse(JSON.stringify(schema)))({ b: 2 })).toEqual({ b: 2 });
  });
});

describe('describeSchema', () => {
  it('describes what a schema accepts from the schema alone', () => {
    expect(describeSchema({ type: 'integer', minimum: 1, maximum: 10 })).toBe('an integer >= 1, <= 10');
    expect(describeSchema({ type: ['string', 'null'] })).toBe('a string or null');
    expect(describeSchema({ type: 'array', items: { type: 'string' }, minItems: 1 })).toBe('a list of a string with at least 1 item');
    expect(describeSchema({ const: 'v1' })).toBe('exactly "v1"');
    expect(describeSchema({ type: 'boolean' })).toBe('true or false');
    expect(describeSchema(undefined)).toBe('any value');
  });
});
