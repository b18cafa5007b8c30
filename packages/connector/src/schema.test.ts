/**
 * The describe() JSON Schema agrees with validateDescription: on a corpus of good and bad
 * descriptions both accept or both refuse, except for the rules the schema says it cannot state,
 * which validateDescription alone refuses.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { validateDescription } from './describe.js';
import { DESCRIPTION_RULES_BEYOND_SCHEMA, DESCRIPTION_SCHEMA } from './schema.js';

const ajv = new Ajv({ strict: true, allErrors: true, logger: false });
const schemaAccepts = ajv.compile(DESCRIPTION_SCHEMA);

function accepted(value: unknown): boolean {
  try {
    validateDescription(value);
    return true;
  } catch {
    return false;
  }
}

const GOOD = {
  kind: 'tickets',
  capabilities: ['list', 'stat', 'read', 'watch', 'write', 'delete'],
  auth: {
    fields: [{ name: 'token', label: 'API token', secret: true, pattern: '^tk_[A-Za-z0-9]+$', help: 'Settings → Tokens.' }],
    instructions: 'Create a token at https://tickets.example.com/settings.\n\nGive it read and write access.',
    acquire: { type: 'static' },
    present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
    origins: ['https://tickets.example.com', 'https://*.files.example.com:8443'],
  },
  dimensions: {
    updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last change.' },
    status: { type: 'enum', from: 'extra.status', values: ['open', 'closed'], description: 'Status.' },
    size: { type: 'bytes', from: 'size', description: 'Size.' },
    folder: { type: 'path', from: 'extra.folder', description: 'Folder.' },
  },
  listing: 'metered',
  defaultScope: { rules: [{ exclude: { dim: 'status', op: 'eq', value: 'closed' } }] },
  writes: { mimes: ['text/markdown', 'image/*'], create: true, replace: true, delete: true, maxBytes: 1048576, roundTrip: 'exact' },
};

type Patch = (copy: Record<string, any>) => void;

function variant(patch: Patch): Record<string, unknown> {
  const copy = structuredClone(GOOD) as Record<string, any>;
  patch(copy);
  return copy;
}

/** Both accept. */
const AGREED_GOOD: readonly [string, Patch][] = [
  ['the full description', () => undefined],
  ['read-only, no stat, no defaultScope', (d) => {
    d.capabilities = ['list', 'read'];
    delete d.writes;
    delete d.defaultScope;
  }],
  ['a declared category, known or not', (d) => (d.category = 'Ticketing — Zürich')],
  ['a one-character category', (d) => (d.category = 'x')],
  ['no credential', (d) => (d.auth = { acquire: { type: 'none' }, present: [], origins: ['http://127.0.0.1:8080'] })],
  ['oauth2 device code', (d) => {
    d.auth = {
      acquire: { type: 'oauth2', grant: 'device_code', deviceUrl: 'https://a.test/device', tokenUrl: 'https://a.test/token', scopes: ['read'], pkce: true, clientSources: ['inseam', 'network'] },
      present: [{ in: 'query', name: 'access_token', value: '{{ access_token }}' }],
      origins: ['https://a.test'],
    };
  }],
  ['exchange with a cookie', (d) => {
    d.auth.fields = [{ name: 'user', label: 'User', secret: false }, { name: 'password', label: 'Password', secret: true }];
    d.auth.acquire = { type: 'exchange', request: { method: 'POST', url: 'https://a.test/login', json: { user: '{{user}}', password: '{{password}}' } }, extract: { sid: '$.session' }, expiresIn: 3600, renewOn: [401, 419] };
    d.auth.present = [{ in: 'cookie', name: 'sid', value: '{{sid}}' }];
  }],
  ['basic and sigv4', (d) => {
    d.auth.fields = [{ name: 'user', label: 'User', secret: false }, { name: 'token', label: 'Token', secret: true }];
    d.auth.present = [{ in: 'basic', username: '{{user}}', password: '{{token}}' }, { in: 'aws_sigv4', accessKeyId: '{{user}}', secretAccessKey: '{{token}}', region: 'auto', service: 's3' }];
  }],
  ['writes of any type, create only', (d) => (d.writes = { mimes: '*', create: true, replace: false, delete: true, roundTrip: 'normalised' })],
  ['a single brace in a template value', (d) => (d.auth.present[0].value = 'Token {a} {{token}}')],
  ['delete-only writes (a mail catcher)', (d) => {
    d.capabilities = ['list', 'stat', 'read', 'delete'];
    d.writes = { create: false, replace: false, delete: true };
  }],
  ['a declared write sample of a fixed shape', (d) => (d.writes.samples = [{ mime: 'text/markdown', path: '{name}/doc.md', body: '# One', replacement: '# Two', markers: ['One', 'Two'] }])],
  ['a POST endpoint declared as a read', (d) => (d.auth.readEndpoints = [{ method: 'POST', origin: 'https://tickets.example.com', path: '/graphql' }])],
];

/** Both refuse. */
const AGREED_BAD: readonly [string, Patch][] = [
  ['an unknown top-level key', (d) => (d.capabilites = ['list'])],
  ['a kind with capitals', (d) => (d.kind = 'Tickets')],
  ['an empty category', (d) => (d.category = '')],
  ['a category of 41 characters', (d) => (d.category = 'c'.repeat(41))],
  ['a category with a control character', (d) => (d.category = 'api\u0007')],
  ['a category with a line break', (d) => (d.category = 'api\ndb')],
  ['a category with a bidi override', (d) => (d.category = '\u202Eipa')],
  ['a category with a trailing space', (d) => (d.category = 'api ')],
  ['a category that is not a string', (d) => (d.category = ['api'])],
  ['list missing', (d) => (d.capabilities = ['read', 'write', 'delete'])],
  ['a repeated capability', (d) => d.capabilities.push('read')],
  ['an unknown capability', (d) => d.capabilities.push('search')],
  ['write claimed without writes', (d) => delete d.writes],
  ['writes without the write capability', (d) => (d.capabilities = ['list', 'read', 'delete'])],
  ['delete claimed but writes.delete false', (d) => (d.writes.delete = false)],
  ['writes.delete true without the delete capability', (d) => (d.capabilities = ['list', 'read', 'write'])],
  ['write claimed by a delete-only host', (d) => Object.assign(d.writes, { create: false, replace: false })],
  ['writes that change nothing', (d) => {
    d.capabilities = ['list', 'read'];
    d.writes = { mimes: '*', create: false, replace: false, delete: false };
  }],
  ['delete claimed without writes', (d) => {
    d.capabilities = ['list', 'read', 'delete'];
    delete d.writes;
  }],
  ['mimes left out by a host that creates', (d) => delete d.writes.mimes],
  ['samples on a delete-only host', (d) => {
    d.capabilities = ['list', 'read', 'delete'];
    d.writes = { create: false, replace: false, delete: true, samples: [{ mime: 'text/plain', path: '{name}.txt', body: 'a', replacement: 'b' }] };
  }],
  ['a sample path without {name}', (d) => (d.writes.samples = [{ mime: 'text/markdown', path: 'doc.md', body: 'a', replacement: 'b' }])],
  ['a sample path that is absolute', (d) => (d.writes.samples = [{ mime: 'text/markdown', path: '/{name}.md', body: 'a', replacement: 'b' }])],
  ['a read endpoint with GET', (d) => (d.auth.readEndpoints = [{ method: 'GET', origin: 'https://tickets.example.com', path: '/graphql' }])],
  ['a read endpoint with a query', (d) => (d.auth.readEndpoints = [{ method: 'POST', origin: 'https://tickets.example.com', path: '/search?q=1' }])],
  ['a read endpoint on a wildcard origin', (d) => (d.auth.readEndpoints = [{ method: 'POST', origin: 'https://*.files.example.com:8443', path: '/graphql' }])],
  ['an empty mimes list', (d) => (d.writes.mimes = [])],
  ['a bad MIME type', (d) => (d.writes.mimes = ['markdown'])],
  ['maxBytes zero', (d) => (d.writes.maxBytes = 0)],
  ['an unknown roundTrip', (d) => (d.writes.roundTrip = 'semantic')],
  ['no origins', (d) => (d.auth.origins = [])],
  ['an origin with a path', (d) => (d.auth.origins = ['https://a.test/api'])],
  ['an ftp origin', (d) => (d.auth.origins = ['ftp://a.test'])],
  ['a wildcard inside a name', (d) => (d.auth.origins = ['https://a.*.test'])],
  ['an origin twice', (d) => (d.auth.origins = ['https://a.test', 'https://a.test'])],
  ['an unknown acquire type', (d) => (d.auth.acquire = { type: 'magic' })],
  ['pkce false', (d) => {
    d.auth.acquire = { type: 'oauth2', grant: 'authorization_code', authorizationUrl: 'https://a.test/a', tokenUrl: 'https://a.test/t', scopes: [], pkce: false, clientSources: ['inseam'] };
    d.auth.present = [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }];
    d.auth.fields = [];
  }],
  ['authorization_code without authorizationUrl', (d) => {
    d.auth.acquire = { type: 'oauth2', grant: 'authorization_code', tokenUrl: 'https://a.test/t', scopes: [], pkce: true, clientSources: ['inseam'] };
    d.auth.present = [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }];
  }],
  ['oauth2 whose token is never presented', (d) => {
    d.auth.acquire = { type: 'oauth2', grant: 'device_code', deviceUrl: 'https://a.test/d', tokenUrl: 'https://a.test/t', scopes: [], pkce: true, clientSources: ['inseam'] };
  }],
  ['a field named access_token with oauth2', (d) => {
    d.auth.acquire = { type: 'oauth2', grant: 'device_code', deviceUrl: 'https://a.test/d', tokenUrl: 'https://a.test/t', scopes: [], pkce: true, clientSources: ['inseam'] };
    d.auth.fields = [{ name: 'access_token', label: 'Token', secret: true }];
    d.auth.present = [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }];
  }],
  ['an exchange with json and form', (d) => {
    d.auth.acquire = { type: 'exchange', request: { method: 'POST', url: 'https://a.test/login', json: {}, form: {} }, extract: { sid: '$.s' } };
    d.auth.present = [{ in: 'cookie', name: 'sid', value: '{{sid}}' }];
  }],
  ['an extract name that is not an identifier', (d) => {
    d.auth.acquire = { type: 'exchange', request: { method: 'GET', url: 'https://a.test/login' }, extract: { 'session-id': '$.s' } };
    d.auth.present = [{ in: 'cookie', name: 'sid', value: '{{token}}' }];
  }],
  ['acquire none with a present form', (d) => (d.auth.acquire = { type: 'none' })],
  ['acquire static without fields', (d) => delete d.auth.fields],
  ['a malformed template', (d) => (d.auth.present[0].value = 'Bearer {{token}')],
  ['a colon in a basic username', (d) => (d.auth.present = [{ in: 'basic', username: 'svc:{{token}}', password: '{{token}}' }])],
  ['a field name with a dash', (d) => (d.auth.fields[0].name = 'api-token')],
  ['a label of 101 characters', (d) => (d.auth.fields[0].label = 'x'.repeat(101))],
  ['HTML in the instructions', (d) => (d.auth.instructions = 'See <b>Settings</b>.')],
  ['instructions of 2,001 characters', (d) => (d.auth.instructions = 'x'.repeat(2001))],
  ['no dimension', (d) => (d.dimensions = {})],
  ['no ordering dimension', (d) => delete d.dimensions.updated.ordering],
  ['ordering: false', (d) => (d.dimensions.status.ordering = false)],
  ['a boolean ordering dimension', (d) => (d.dimensions = { flag: { type: 'boolean', from: 'extra.flag', ordering: true, description: 'F.' } })],
  ['an unknown dimension type', (d) => (d.dimensions.status.type = 'colour')],
  ['an enum without values', (d) => delete d.dimensions.status.values],
  ['values on a string', (d) => (d.dimensions.folder.values = ['a'])],
  ['repeated enum values', (d) => (d.dimensions.status.values = ['open', 'open'])],
  ['mtime read as an integer', (d) => (d.dimensions.updated.type = 'integer')],
  ['size read as a string', (d) => (d.dimensions.size.type = 'string')],
  ['from "extra."', (d) => (d.dimensions.folder.from = 'extra.')],
  ['from "etag"', (d) => (d.dimensions.folder.from = 'etag')],
  ['a blank description', (d) => (d.dimensions.size.description = '  ')],
  ['a dimension name starting with a digit', (d) => (d.dimensions['1st'] = { type: 'string', from: 'path', description: 'x' })],
  ['an unknown key in defaultScope', (d) => (d.defaultScope = { rulez: [] })],
  ['an unknown listing', (d) => (d.listing = 'cheap')],
];

/** validateDescription refuses, the schema accepts: each is one of DESCRIPTION_RULES_BEYOND_SCHEMA. */
const BEYOND: readonly [rule: number, Patch][] = [
  [0, (d) => (d.dimensions.size.ordering = true)],
  [1, (d) => d.auth.fields.push({ name: 'token', label: 'Again', secret: true })],
  [2, (d) => (d.auth.present[0].value = 'Bearer {{tokn}}')],
  [3, (d) => {
    d.auth.fields.push({ name: 'other', label: 'Other', secret: false });
    d.auth.present = [{ in: 'header', name: 'X-Static', value: 'constant' }];
  }],
  [4, (d) => (d.auth.fields[0].pattern = '(')],
  [5, (d) => (d.auth.origins = ['https://*.com'])],
  [6, (d) => (d.auth.acquire = { type: 'exchange', request: { method: 'GET', url: 'https://a b' }, extract: { sid: '$' } })],
  [8, (d) => (d.auth.readEndpoints = [{ method: 'POST', origin: 'https://b.test', path: '/graphql' }])],
  [9, (d) => (d.writes.samples = [{ mime: 'application/json', path: '{name}/doc.json', body: '{}', replacement: '[]' }])],
  [9, (d) => (d.writes.samples = [{ mime: 'text/markdown', path: '{name}/{name}.md', body: 'a', replacement: 'b' }])],
];

describe('DESCRIPTION_SCHEMA', () => {
  it('compiles under strict draft-07 and is frozen', () => {
    expect(DESCRIPTION_SCHEMA['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(Object.isFrozen(DESCRIPTION_SCHEMA)).toBe(true);
  });

  it.each(AGREED_GOOD)('accepts, as validateDescription does: %s', (_name, patch) => {
    const value = variant(patch);
    expect(accepted(value)).toBe(true);
    expect(schemaAccepts(value), JSON.stringify(schemaAccepts.errors)).toBe(true);
  });

  it.each(AGREED_BAD)('refuses, as validateDescription does: %s', (_name, patch) => {
    const value = variant(patch);
    expect(accepted(value)).toBe(false);
    expect(schemaAccepts(value)).toBe(false);
  });

  it('refuses what is not an object, as validateDescription does', () => {
    for (const value of ['describe', null, [GOOD], 42]) {
      expect(accepted(value)).toBe(false);
      expect(schemaAccepts(value)).toBe(false);
    }
  });

  it.each(BEYOND)('names the rule it cannot state (%i) and validateDescription alone refuses it', (rule, patch) => {
    const value = variant(patch);
    expect(DESCRIPTION_RULES_BEYOND_SCHEMA[rule]).toBeDefined();
    expect(accepted(value)).toBe(false);
    expect(schemaAccepts(value)).toBe(true);
  });

  it('lists each rule beyond it in its own description', () => {
    for (const rule of DESCRIPTION_RULES_BEYOND_SCHEMA) expect(DESCRIPTION_SCHEMA['description']).toContain(rule);
  });
});
