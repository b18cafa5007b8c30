import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { compiledOnFirstUse } from './lazy-validator.js';

describe('compiledOnFirstUse', () => {
  it('compiles nothing until the first call, then answers and reports errors as the compiled validator does', () => {
    const ajv = new Ajv();
    let compiles = 0;
    const compile = ajv.compile.bind(ajv);
    ajv.compile = ((schema: object) => {
      compiles += 1;
      return compile(schema);
    }) as typeof ajv.compile;
    const validate = compiledOnFirstUse(ajv, { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    expect(compiles).toBe(0);
    expect(validate({ n: 1 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate({ n: 'one' })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/n', keyword: 'type' });
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'required' });
    expect(compiles).toBe(1);
  });

  it('fails at the first call when the schema does not compile', () => {
    const validate = compiledOnFirstUse(new Ajv(), { type: 'nonsense' });
    expect(() => validate({})).toThrow();
  });
});

describe('the API routes', () => {
  it('each compile every schema they validate with, since the server now compiles them only on first use', async () => {
    const { API_ROUTES, AJV_OPTIONS } = await import('./server.js');
    const bodies = new Ajv(AJV_OPTIONS);
    const texts = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });
    let schemas = 0;
    for (const route of API_ROUTES) {
      for (const part of ['params', 'querystring', 'headers', 'body'] as const) {
        const schema = route[part];
        if (schema === undefined) continue;
        expect(() => (part === 'body' ? bodies : texts).compile(schema), `${route.operationId} ${part}`).not.toThrow();
        schemas += 1;
      }
    }
    expect(schemas).toBeGreaterThan(40);
  });
});
