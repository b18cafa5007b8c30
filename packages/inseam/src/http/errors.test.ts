/**
 * Every error code has an HTTP status, docs/http.md lists exactly the statuses the code uses, and
 * no untyped error's message reaches the wire.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, RateLimitedError, NotFoundError } from '@neuralis/package-system/contracts';
import { HTTP_ONLY_CODES, HTTP_STATUS, renderError } from './errors.js';

const DOC = readFileSync(new URL('../../../../docs/http.md', import.meta.url), 'utf8');
const ERRORS_DOC = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

describe('error statuses', () => {
  it('maps every code, and docs/http.md lists each with the same status', () => {
    const documented = new Map<string, number>();
    for (const match of DOC.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) documented.set(match[1]!, Number(match[2]));
    const codes = [...ERROR_CODES, ...HTTP_ONLY_CODES];
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
    for (const code of codes) expect(documented.get(code), code).toBe(HTTP_STATUS[code]);
  });

  it('docs/errors.md names exactly the HTTP-only codes', () => {
    const sentence = /HTTP API adds \w+ codes of its own[^.]*\./s.exec(ERRORS_DOC)?.[0] ?? '';
    expect([...sentence.matchAll(/`([a-z_]+)` \(\d{3}\)/g)].map((match) => match[1]).sort()).toEqual([...HTTP_ONLY_CODES].sort());
  });

  it('renders a typed error as its code, message and details', () => {
    const rendered = renderError(new NotFoundError('Nothing at inseam://home/files/x.', { details: { host: 'files' } }), 'req-1');
    expect(rendered).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'Nothing at inseam://home/files/x.', details: { host: 'files' } } }, unexpected: false });
  });

  it('always gives a 429 a Retry-After, from the error when it knows', () => {
    expect(renderError(new RateLimitedError('slow down', 2500), 'r').headers).toEqual({ 'retry-after': '3' });
    expect(renderError(new RateLimitedError('slow down'), 'r').headers).toEqual({ 'retry-after': '5' });
  });

  it('a value refused by a schema pattern is named without the regular expression', () => {
    // The shape Fastify gives a request that fails its Ajv schema (GET /v1/connectors/:sha with a bad sha).
    const refused = Object.assign(new Error('params/sha must match pattern "^[0-9a-fA-F]+$"'), {
      validation: [{ keyword: 'pattern', instancePath: '/sha', schemaPath: '#/properties/sha/pattern', params: { pattern: '^[0-9a-fA-F]+$' }, message: 'must match pattern "^[0-9a-fA-F]+$"' }],
      validationContext: 'params',
    });
    const rendered = renderError(refused, 'r');
    expect(rendered).toMatchObject({ status: 400, body: { error: { code: 'invalid_argument', message: 'params.sha is not in the form it takes; see its description in /v1/openapi.json.', details: { argument: 'params.sha' } } } });
    expect(JSON.stringify(rendered.body)).not.toMatch(/pattern|\^|\[0-9/);
  });

  it('never puts an untyped error\'s message on the wire', () => {
    const rendered = renderError(new Error('EACCES: open /etc/shadow with secret s3cr3t'), 'req-9');
    expect(rendered.status).toBe(500);
    expect(rendered.unexpected).toBe(true);
    expect(rendered.body.error.code).toBe('internal');
    expect(JSON.stringify(rendered.body)).not.toMatch(/shadow|s3cr3t/);
    expect(rendered.body.error.details).toEqual({ requestId: 'req-9' });
  });
});
