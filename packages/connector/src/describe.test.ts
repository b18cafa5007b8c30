import { describe, expect, it } from 'vitest';
import { DescriptionValidationError, hasErrorCode } from '@neuralis/package-system/contracts';
import { orderingDimension, validateDescription } from './describe.js';

const VALID = {
  kind: 'notion',
  capabilities: ['list', 'read', 'stat', 'write', 'delete'],
  auth: {
    fields: [{ name: 'token', label: 'Integration token', secret: true, pattern: '^secret_' }],
    instructions: 'Create an internal integration.',
    acquire: { type: 'static' },
    present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
    origins: ['https://api.notion.com', 'https://*.notion-static.com:8443'],
  },
  dimensions: {
    edited: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last edit.' },
    kind: { type: 'enum', from: 'extra.object', values: ['page', 'database'], description: 'Object type.' },
    size: { type: 'bytes', from: 'size', description: 'Size.' },
    archived: { type: 'boolean', from: 'extra.flags.archived', description: 'Archived.' },
  },
  listing: 'metered',
  defaultScope: { rules: [{ exclude: { dim: 'archived', op: 'eq', value: true } }] },
  writes: { mimes: ['text/markdown'], create: true, replace: true, delete: true, maxBytes: 1048576 },
};

function problems(value: unknown): { path: string; message: string }[] {
  try {
    validateDescription(value);
  } catch (error) {
    expect(error).toBeInstanceOf(DescriptionValidationError);
    expect(hasErrorCode(error, 'description_invalid')).toBe(true);
    return (error as DescriptionValidationError).issues.map(({ path, message }) => ({ path, message }));
  }
  throw new Error('expected the description to be refused');
}

function paths(value: unknown): string[] {
  return problems(value).map((issue) => issue.path);
}

function without<T extends object>(value: T, key: string): T {
  const copy = structuredClone(value) as Record<string, unknown>;
  delete copy[key];
  return copy as T;
}

describe('validateDescription', () => {
  it('accepts a full description and returns a frozen copy of the known fields only', () => {
    const result = validateDescription(VALID);
    expect(result).toEqual(VALID);
    expect(result).not.toBe(VALID);
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.dimensions['kind']!.values)).toBe(true);
    expect(orderingDimension(result)).toBe('edited');
  });

  it('accepts oauth2 and exchange acquire forms and every present form', () => {
    const oauth = {
      ...VALID,
      auth: {
        acquire: { type: 'oauth2', grant: 'authorization_code', authorizationUrl: 'https://a.test/auth', tokenUrl: 'https://a.test/token', scopes: ['read'], pkce: true, clientSources: ['inseam', 'dcr'] },
        present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{ access_token }}' }],
        origins: ['http://127.0.0.1:9000'],
      },
    };
    expect(validateDescription(oauth).auth.acquire.type).toBe('oauth2');
    const keys = {
      ...VALID,
      auth: {
        fields: [{ name: 'user', label: 'User', secret: false }, { name: 'pass', label: 'Password', secret: true }, { name: 'id', label: 'Key id', secret: false }, { name: 'key', label: 'Key', secret: true }],
        acquire: { type: 'static' },
        present: [{ in: 'basic', username: '{{user}}', password: '{{pass}}' }, { in: 'aws_sigv4', accessKeyId: '{{id}}', secretAccessKey: '{{key}}', region: 'auto', service: 's3' }],
        origins: ['http://127.0.0.1:9000'],
      },
    };
    expect(validateDescription(keys).auth.present).toHaveLength(2);
    const exchange = {
      ...VALID,
      auth: {
        fields: [{ name: 'user', label: 'User', secret: false }],
        acquire: { type: 'exchange', request: { method: 'POST', url: 'https://a.test/login', form: { user: '{{user}}' } }, extract: { token: '$.token' }, expiresIn: 3600, renewOn: [401] },
        present: [{ in: 'cookie', name: 'sid', value: '{{token}}' }],
        origins: ['https://a.test'],
      },
    };
    expect(validateDescription(exchange).auth.acquire).toMatchObject({ type: 'exchange', extract: { token: '$.token' } });
  });

  it('lists every problem at once, each with its JSON path', () => {
    const bad = {
      kind: 'Not A Kind',
      capabilities: ['list', 'fly', 'list'],
      auth: { acquire: { type: 'magic' }, present: [{ in: 'header', name: '' }], origins: [] },
      dimensions: {
        a: { type: 'datetime', from: 'mtime', ordering: true, description: 'A' },
        b: { type: 'colour', from: 'extra.c', ordering: true, description: '' },
        c: { type: 'enum', from: 'nowhere', description: 'C' },
        d: { type: 'string', from: 'path', values: ['x'], ordering: false, description: 'D' },
      },
      listing: 'cheap',
      capabilties: [],
    };
    expect(paths(bad)).toEqual(
      expect.arrayContaining([
        'capabilties',
        'kind',
        'capabilities[1]',
        'capabilities[2]',
        'capabilities',
        'auth.acquire.type',
        'auth.present[0].name',
        'auth.present[0].value',
        'auth.origins',
        'dimensions.b.type',
        'dimensions.b.description',
        'dimensions.c.from',
        'dimensions.c.values',
        'dimensions.d.ordering',
        'dimensions.d.values',
        'listing',
      ]),
    );
    const error = (() => {
      try {
        validateDescription(bad);
      } catch (caught) {
        return caught as DescriptionValidationError;
      }
      throw new Error('unreachable');
    })();
    expect(error.message).toContain('capabilities[1]');
    expect(error.details['paths']).toEqual(error.issues.map((issue) => issue.path));
  });

  it('requires list and read, and exactly one ordering dimension', () => {
    expect(problems({ ...VALID, capabilities: ['stat'], writes: undefined })).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'capabilities', message: expect.stringContaining('"list" is missing') })]),
    );
    const none = { ...VALID, dimensions: { a: { type: 'string', from: 'path', description: 'A' } } };
    expect(problems(none)).toEqual([{ path: 'dimensions', message: 'No dimension is marked ordering: true.' }]);
    const two = { ...VALID, dimensions: { a: { type: 'string', from: 'path', ordering: true, description: 'A' }, b: { type: 'integer', from: 'size', ordering: true, description: 'B' } } };
    expect(problems(two)[0]?.message).toMatch(/2 dimensions are marked ordering: true \(a, b\)/);
    expect(paths({ ...VALID, dimensions: {} })).toEqual(['dimensions']);
    const boolOrdering = { ...VALID, dimensions: { flag: { type: 'boolean', from: 'extra.flag', ordering: true, description: 'F' } } };
    expect(paths(boolOrdering)).toEqual(['dimensions.flag.ordering']);
  });

  it('checks that a fixed Entry field is read as a fitting type', () => {
    const mismatch = { ...VALID, dimensions: { ...VALID.dimensions, size: { type: 'datetime', from: 'size', description: 'S' } } };
    expect(paths(mismatch)).toEqual(['dimensions.size.type']);
    expect(paths({ ...VALID, dimensions: { ...VALID.dimensions, x: { type: 'string', from: 'extra.', description: 'X' } } })).toEqual(['dimensions.x.from']);
    expect(paths({ ...VALID, dimensions: { ...VALID.dimensions, x: { type: 'enum', from: 'mime', values: ['a', 'a'], description: 'X' } } })).toEqual(['dimensions.x.values']);
  });

  it('accepts only http(s) origins without path, query or credentials; wildcards only as a leading label', () => {
    const withOrigins = (origins: unknown[]) => ({ ...VALID, auth: { ...VALID.auth, origins } });
    expect(validateDescription(withOrigins(['http://[::1]:8080', 'https://*.example.co.uk'])).auth.origins).toHaveLength(2);
    for (const bad of ['ftp://a.test', 'https://a.test/path', 'https://a.test?q', 'https://u:p@a.test', 'https://a.*.test', 'https://*.com', 'https://*.10.0.0.1', 'a.test', 'https://', 42, 'https://a.test#x']) {
      expect(paths(withOrigins([bad]))).toEqual(['auth.origins[0]']);
    }
    expect(paths(withOrigins(['https://a.test', 'https://a.test']))).toEqual(['auth.origins[1]']);
  });

  it('checks acquire forms', () => {
    const acquire = (form: unknown) => ({ ...VALID, auth: { ...VALID.auth, acquire: form } });
    expect(paths(acquire({ type: 'oauth2', grant: 'device_code', tokenUrl: 'not a url', scopes: [], pkce: false, clientSources: ['me'] }))).toEqual(
      expect.arrayContaining(['auth.acquire.deviceUrl', 'auth.acquire.tokenUrl', 'auth.acquire.pkce', 'auth.acquire.clientSources[0]']),
    );
    expect(paths(acquire({ type: 'exchange', request: { method: 'PUT', url: 'https://a.test', json: {}, form: {} }, extract: {}, renewOn: [700] }))).toEqual(
      expect.arrayContaining(['auth.acquire.request.method', 'auth.acquire.request', 'auth.acquire.extract', 'auth.acquire.renewOn[0]']),
    );
    expect(paths({ ...VALID, auth: { acquire: { type: 'none', extra: 1 }, present: [], origins: ['https://a.test'] } })).toEqual(['auth.acquire.extra']);
    expect(paths({ ...VALID, auth: { ...VALID.auth, present: [{ in: 'smoke signal' }] } })).toEqual(['auth.present[0].in']);
    expect(paths({ ...VALID, auth: { ...VALID.auth, fields: [{ name: 'a', label: 'A', secret: 'yes', pattern: '(' }, { name: 'a', label: 'B', secret: false }] } })).toEqual([
      'auth.fields[0].secret',
      'auth.fields[0].pattern',
      'auth.fields[1].name',
    ]);
  });

  it('ties write and delete capabilities to writes', () => {
    expect(paths(without(VALID, 'writes'))).toEqual(['writes']);
    expect(paths({ ...VALID, capabilities: ['list', 'read'] })).toEqual(expect.arrayContaining(['capabilities', 'writes.delete']));
    expect(paths({ ...VALID, writes: { ...VALID.writes, delete: false } })).toEqual(['writes.delete']);
    expect(paths({ ...VALID, writes: { mimes: [], create: false, replace: false, delete: false, maxBytes: 0 } })).toEqual(['writes', 'writes.mimes', 'writes.maxBytes']);
    expect(paths({ ...VALID, writes: { ...VALID.writes, mimes: ['not a mime'] } })).toEqual(['writes.mimes[0]']);
    expect(validateDescription({ ...VALID, writes: { ...VALID.writes, mimes: '*' } }).writes?.mimes).toBe('*');
  });

  it('accepts a delete-only host, which claims delete without write and may leave out mimes', () => {
    const deleteOnly = { ...VALID, capabilities: ['list', 'read', 'stat', 'delete'], writes: { create: false, replace: false, delete: true } };
    expect(validateDescription(deleteOnly).writes).toEqual({ mimes: [], create: false, replace: false, delete: true });
    expect(problems({ ...deleteOnly, capabilities: [...deleteOnly.capabilities, 'write'] })).toEqual([
      { path: 'capabilities', message: 'The "write" capability is claimed but writes accepts neither create nor replace (a delete-only host).' },
    ]);
    expect(paths({ ...deleteOnly, writes: { ...deleteOnly.writes, delete: false }, capabilities: ['list', 'read'] })).toEqual(['writes']);
    expect(paths({ ...VALID, writes: { create: true, replace: true, delete: true } })).toEqual(['writes.mimes']);
    expect(paths({ ...deleteOnly, writes: { ...deleteOnly.writes, samples: [{ mime: 'text/plain', path: '{name}.txt', body: 'a', replacement: 'b' }] } })).toEqual(['writes.samples']);
  });

  it('reads declared write samples: a type it accepts, {name} once in a relative path, two different bodies', () => {
    const sample = { mime: 'text/markdown', path: '{name}/doc.md', body: '# One\n', replacement: '# Two\n', markers: ['One', 'Two'] };
    const withSamples = (samples: unknown) => ({ ...VALID, writes: { ...VALID.writes, samples } });
    expect(validateDescription(withSamples([sample])).writes?.samples).toEqual([sample]);
    expect(paths(withSamples([]))).toEqual(['writes.samples']);
    expect(paths(withSamples([{ ...sample, mime: 'application/json' }]))).toEqual(['writes.samples[0].mime']);
    for (const path of ['doc.md', '{name}/{name}.md', '/{name}.md', '{name}/../x.md', '{name}//x.md', '{name}.md?x', 'a\\{name}.md']) {
      expect(paths(withSamples([{ ...sample, path }])), path).toEqual(['writes.samples[0].path']);
    }
    expect(paths(withSamples([{ ...sample, replacement: sample.body }]))).toEqual(['writes.samples[0].replacement']);
    expect(paths(withSamples([{ ...sample, body: 'x'.repeat(65_537) }]))).toEqual(['writes.samples[0].body']);
    expect(paths(withSamples([{ ...sample, markers: ['One'] }]))).toEqual(['writes.samples[0].markers']);
    expect(paths(withSamples([{ ...sample, size: 3 }]))).toEqual(['writes.samples[0].size']);
  });

  it('reads POST endpoints declared as reads: exact declared origins, plain paths', () => {
    const endpoint = { method: 'POST', origin: 'https://api.notion.com', path: '/v1/search' };
    const withEndpoints = (readEndpoints: unknown) => ({ ...VALID, auth: { ...VALID.auth, readEndpoints } });
    expect(validateDescription(withEndpoints([endpoint])).auth.readEndpoints).toEqual([endpoint]);
    expect(paths(withEndpoints({}))).toEqual(['auth.readEndpoints']);
    expect(paths(withEndpoints([{ ...endpoint, method: 'PUT' }]))).toEqual(['auth.readEndpoints[0].method']);
    expect(paths(withEndpoints([{ ...endpoint, origin: 'https://api.notion.com/' }]))).toEqual(['auth.readEndpoints[0].origin']);
    expect(paths(withEndpoints([{ ...endpoint, origin: 'https://*.notion-static.com:8443' }]))).toEqual(['auth.readEndpoints[0].origin']);
    for (const path of ['v1/search', '/v1/search?q=a', '/v1/../admin', '/v1/%zz', '/v 1', '/v1#x']) {
      expect(paths(withEndpoints([{ ...endpoint, path }])), path).toEqual(['auth.readEndpoints[0].path']);
    }
    expect(paths(withEndpoints([endpoint, endpoint]))).toEqual(['auth.readEndpoints[1]']);
    expect(paths(withEndpoints([{ ...endpoint, body: '{}' }]))).toEqual(['auth.readEndpoints[0].body']);
  });

  it('refuses non-objects, prototype tricks and a malformed defaultScope', () => {
    expect(paths(null)).toEqual(['$']);
    expect(paths([])).toEqual(['$']);
    expect(paths(JSON.parse(`{"__proto__": {"kind": "x"}, ${JSON.stringify(VALID).slice(1)}`))).toEqual(['__proto__']);
    expect(paths({ ...VALID, defaultScope: { window: 3, rules: {}, limits: [], extra: 1 } })).toEqual([
      'defaultScope.extra',
      'defaultScope.window',
      'defaultScope.rules',
      'defaultScope.limits',
    ]);
    expect(paths({ ...VALID, dimensions: { '1bad': { type: 'string', from: 'path', ordering: true, description: 'x' } } })).toEqual(['dimensions["1bad"]']);
  });

  it('checks every credential template against the fields and the acquired tokens', () => {
    const auth = (extra: Record<string, unknown>) => ({ ...VALID, auth: { ...VALID.auth, ...extra } });
    expect(problems(auth({ present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{tokn}}' }] }))).toEqual([
      { path: 'auth.present[0].value', message: '{{tokn}} names no declared field and no token the acquisition produces.' },
      { path: 'auth.present', message: 'acquire is "static" but present uses none of the fields.' },
    ]);
    expect(paths(auth({ present: [{ in: 'header', name: 'Authorization', value: 'Bearer {token}}' }] }))).toEqual(['auth.present[0].value', 'auth.present']);
    expect(paths(auth({ present: [{ in: 'basic', username: 'svc:{{token}}', password: '{{token}}' }] }))).toEqual(['auth.present[0].username']);
    expect(paths(auth({ acquire: { type: 'none' } }))).toEqual(['auth.fields', 'auth.present']);
    expect(paths(auth({ fields: undefined, present: [] }))).toEqual(['auth.fields']);
    const oauth = { type: 'oauth2', grant: 'device_code', deviceUrl: 'https://a.test/device', tokenUrl: 'https://a.test/token', scopes: [], pkce: true, clientSources: ['inseam'] };
    expect(paths(auth({ acquire: oauth }))).toEqual(['auth.present']);
    expect(paths(auth({ acquire: oauth, fields: [{ name: 'access_token', label: 'Token', secret: true }], present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }] }))).toEqual(['auth.fields[0].name']);
    const exchange = (request: unknown, extract: unknown = { session: '$.sid' }) =>
      auth({ acquire: { type: 'exchange', request, extract }, present: [{ in: 'cookie', name: 'sid', value: '{{session}}' }] });
    expect(validateDescription(exchange({ method: 'POST', url: 'https://a.test/login?u={{token}}', json: { secret: ['{{token}}'] } })).auth.acquire.type).toBe('exchange');
    expect(paths(exchange({ method: 'POST', url: 'https://a.test/login', headers: { 'X-Key': '{{session}}' }, json: { nested: { key: '{{nope}}' } } }))).toEqual([
      'auth.acquire.request.headers["X-Key"]',
      'auth.acquire.request.json.nested.key',
    ]);
    expect(paths(exchange({ method: 'GET', url: 'https://a.test/login' }, { 'session-id': '$.sid' }))).toEqual(['auth.acquire.extract["session-id"]']);
  });

  it('keeps text for people short and plain, and knows writes.roundTrip', () => {
    expect(paths({ ...VALID, auth: { ...VALID.auth, instructions: 'See <a href="https://x.test">the docs</a>.' } })).toEqual(['auth.instructions']);
    expect(paths({ ...VALID, auth: { ...VALID.auth, instructions: 'x'.repeat(2001) } })).toEqual(['auth.instructions']);
    expect(paths({ ...VALID, auth: { ...VALID.auth, fields: [{ name: 'token', label: 'L'.repeat(101), secret: true, help: 'h'.repeat(501) }] } })).toEqual(['auth.fields[0].label', 'auth.fields[0].help']);
    expect(validateDescription({ ...VALID, auth: { ...VALID.auth, instructions: 'Open https://x.test/settings.\n\nPaste the token (it starts with secret_ < 40 chars).' } }).auth.instructions).toContain('\n\n');
    expect(validateDescription({ ...VALID, writes: { ...VALID.writes, roundTrip: 'normalised' } }).writes?.roundTrip).toBe('normalised');
    expect(paths({ ...VALID, writes: { ...VALID.writes, roundTrip: 'semantic' } })).toEqual(['writes.roundTrip']);
  });

  it('keeps a declared category as declared, and refuses one that is not short printable text', () => {
    expect(validateDescription({ ...VALID, category: 'db' }).category).toBe('db');
    expect(validateDescription({ ...VALID, category: 'Knowledge base · 知识' }).category).toBe('Knowledge base · 知识');
    expect(validateDescription({ ...VALID, category: '🗂'.repeat(40) }).category).toBe('🗂'.repeat(40));
    expect(validateDescription(VALID)).not.toHaveProperty('category');
    for (const category of ['', '   ', 'x'.repeat(41), 'api\u0000', 'tab\tbed', 'two\nlines', 'para\u2029graph', 'zero\u200Bwidth', '\u202Eipa', ' api', 'api ', 42, null, ['api'], { name: 'api' }]) {
      const issues = problems({ ...VALID, category });
      expect(issues.map((issue) => issue.path), JSON.stringify(category)).toEqual(['category']);
    }
    expect(problems({ ...VALID, category: 'x'.repeat(41) })[0]!.message).toBe('category is 41 characters long.');
    expect(problems({ ...VALID, category: 'a\u0007' })[0]!.message).toBe('category contains a control or other unprintable character.');
  });
});
