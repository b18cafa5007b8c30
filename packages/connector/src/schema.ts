/**
 * The JSON Schema (draft-07) of what describe() returns: for editors, agents and tools that check
 * a description without running inseam. It states every rule of `validateDescription` that a
 * JSON Schema can state; `DESCRIPTION_RULES_BEYOND_SCHEMA` lists the few it cannot (they need
 * counting, cross-references between fields, or a URL or regular-expression parser). A test
 * keeps the two in agreement on a corpus of good and bad descriptions.
 *
 * Written by hand and checked in (nothing is generated at build time).
 */

const IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]*$';
const NON_BLANK = '\\S';
const HTML_TAG = '</?[A-Za-z!][^>]*>';
const TEMPLATE = '\\{\\{\\s*[A-Za-z0-9_.-]+\\s*\\}\\}';
/** Text in which every `{{` and `}}` belongs to a `{{name}}` template. */
const TEMPLATE_TEXT = `^(?:[^{}]|\\{(?!\\{)|\\}(?!\\})|${TEMPLATE})*$`;
/** The same, without a literal `:` (a Basic auth username). */
const TEMPLATE_TEXT_NO_COLON = `^(?:[^{}:]|\\{(?!\\{)|\\}(?!\\})|${TEMPLATE})*$`;
const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+';
const ORIGIN = '^[Hh][Tt][Tt][Pp][Ss]?://(\\*\\.)?[^/?#@\\s\\\\*]+$';
/** A read endpoint's path: absolute, percent-encoded, no query or fragment. */
const ENDPOINT_PATH = "^/[A-Za-z0-9\\-._~!$&'()*+,;=:@%/]*$";
const MIME = '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/(\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)$';
/** Printable text without leading or trailing spaces (describe()'s `category`). */
const PRINTABLE_TRIMMED = '^[^\\p{C}\\p{Zl}\\p{Zp}\\s](?:[^\\p{C}\\p{Zl}\\p{Zp}]*[^\\p{C}\\p{Zl}\\p{Zp}\\s])?$';
const CAPABILITIES = ['list', 'stat', 'read', 'watch', 'write', 'delete'];
const TYPES = ['string', 'path', 'enum', 'bytes', 'integer', 'datetime', 'boolean'];
const PRESENT_KEYS = ['value', 'username', 'password', 'accessKeyId', 'secretAccessKey', 'region', 'service'];

const plainText = (max: number): Record<string, unknown> => ({ type: 'string', maxLength: max, not: { pattern: HTML_TAG } });
const nonEmpty = { type: 'string', pattern: NON_BLANK };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const httpUrl = { type: 'string', pattern: HTTP_URL };

/** Requires `present` to use `{{token}}` somewhere. */
function presentUses(token: string): Record<string, unknown> {
  const uses = { type: 'string', pattern: `\\{\\{\\s*${token}\\s*\\}\\}` };
  return { type: 'array', contains: { anyOf: PRESENT_KEYS.map((key) => ({ type: 'object', required: [key], properties: { [key]: uses } })) } };
}

/** `required` with the names declared beside it, as Ajv's strict mode asks of a subschema. */
function need(...keys: string[]): Record<string, unknown> {
  return { type: 'object', required: keys, properties: Object.fromEntries(keys.map((key) => [key, {}])) };
}

function when(condition: Record<string, unknown>, then: Record<string, unknown>, otherwise?: Record<string, unknown>): Record<string, unknown> {
  return { if: condition, then, ...(otherwise === undefined ? {} : { else: otherwise }) };
}

const acquireIs = (type: string): Record<string, unknown> => ({
  type: 'object',
  required: ['acquire'],
  properties: { acquire: { type: 'object', required: ['type'], properties: { type: { const: type } } } },
});

const field = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'label', 'secret'],
  properties: {
    name: { type: 'string', pattern: IDENTIFIER },
    label: { ...plainText(100), pattern: NON_BLANK },
    secret: { type: 'boolean' },
    pattern: { type: 'string', description: 'A JavaScript regular expression source, compiled with the u flag and matched against the whole value.' },
    help: plainText(500),
  },
};

const oauth2 = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'grant', 'tokenUrl', 'scopes', 'pkce', 'clientSources'],
  properties: {
    type: { const: 'oauth2' },
    grant: { enum: ['authorization_code', 'device_code'] },
    authorizationUrl: httpUrl,
    deviceUrl: httpUrl,
    tokenUrl: httpUrl,
    scopes: { type: 'array', items: { type: 'string', minLength: 1 } },
    pkce: { const: true },
    clientSources: { type: 'array', minItems: 1, items: { enum: ['inseam', 'dcr', 'network'] } },
  },
  allOf: [
    when({ type: 'object', properties: { grant: { const: 'authorization_code' } } }, need('authorizationUrl')),
    when({ type: 'object', properties: { grant: { const: 'device_code' } } }, need('deviceUrl')),
  ],
};

const exchange = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'request', 'extract'],
  properties: {
    type: { const: 'exchange' },
    request: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'url'],
      properties: {
        method: { enum: ['GET', 'POST'] },
        url: httpUrl,
        headers: stringMap,
        json: {},
        form: stringMap,
      },
      not: need('json', 'form'),
    },
    extract: { type: 'object', minProperties: 1, propertyNames: { pattern: IDENTIFIER }, additionalProperties: { type: 'string' } },
    expiresIn: { anyOf: [{ type: 'string' }, { type: 'number', exclusiveMinimum: 0 }] },
    expiresAt: { type: 'string' },
    renewOn: { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 } },
  },
};

const present = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['in', 'name', 'value'],
      properties: { in: { enum: ['header', 'query', 'cookie'] }, name: nonEmpty, value: { type: 'string', pattern: TEMPLATE_TEXT } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['in', 'username', 'password'],
      properties: { in: { const: 'basic' }, username: { type: 'string', pattern: TEMPLATE_TEXT_NO_COLON }, password: { type: 'string', pattern: TEMPLATE_TEXT } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['in', 'accessKeyId', 'secretAccessKey', 'region', 'service'],
      properties: Object.fromEntries([['in', { const: 'aws_sigv4' }], ...['accessKeyId', 'secretAccessKey', 'region', 'service'].map((key) => [key, { type: 'string', allOf: [{ pattern: NON_BLANK }, { pattern: TEMPLATE_TEXT }] }])]),
    },
  ],
};

const auth = {
  type: 'object',
  additionalProperties: false,
  required: ['acquire', 'present', 'origins'],
  properties: {
    fields: { type: 'array', items: field },
    instructions: plainText(2000),
    acquire: {
      anyOf: [
        { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: ['none', 'static'] } } },
        oauth2,
        exchange,
      ],
    },
    present: { type: 'array', items: present },
    origins: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: ORIGIN } },
    readEndpoints: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['method', 'origin', 'path'],
        properties: {
          method: { const: 'POST' },
          origin: { type: 'string', pattern: ORIGIN, not: { pattern: '\\*' } },
          path: { type: 'string', pattern: ENDPOINT_PATH, not: { pattern: '(^|/)\\.\\.?(/|$)' } },
        },
      },
    },
  },
  allOf: [
    when(acquireIs('none'), { type: 'object', properties: { fields: { type: 'array', maxItems: 0 }, present: { type: 'array', maxItems: 0 } } }),
    when(acquireIs('static'), { type: 'object', required: ['fields'], properties: { fields: { type: 'array', minItems: 1 } } }),
    when(
      acquireIs('oauth2'),
      { type: 'object', properties: { present: presentUses('access_token'), fields: { type: 'array', items: { type: 'object', properties: { name: { not: { const: 'access_token' } } } } } } },
    ),
  ],
};

const dimension = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'from', 'description'],
  properties: {
    type: { enum: TYPES },
    from: { anyOf: [{ enum: ['path', 'size', 'mtime', 'mime'] }, { type: 'string', pattern: '^extra\\.[^.]+(\\.[^.]+)*$' }] },
    ordering: { const: true },
    values: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    description: nonEmpty,
  },
  allOf: [
    when({ type: 'object', properties: { type: { const: 'enum' } } }, need('values'), { not: need('values') }),
    when({ type: 'object', properties: { from: { const: 'path' } } }, { type: 'object', properties: { type: { enum: ['path', 'string'] } } }),
    when({ type: 'object', properties: { from: { const: 'size' } } }, { type: 'object', properties: { type: { enum: ['bytes', 'integer'] } } }),
    when({ type: 'object', properties: { from: { const: 'mtime' } } }, { type: 'object', properties: { type: { const: 'datetime' } } }),
    when({ type: 'object', properties: { from: { const: 'mime' } } }, { type: 'object', properties: { type: { enum: ['string', 'enum'] } } }),
    when(need('ordering'), { type: 'object', properties: { type: { not: { const: 'boolean' } } } }),
  ],
};

/** `writes` of a delete-only host: neither create nor replace. */
const deleteOnly = { type: 'object', required: ['create', 'replace'], properties: { create: { const: false }, replace: { const: false } } };

const writeSample = {
  type: 'object',
  additionalProperties: false,
  required: ['mime', 'path', 'body', 'replacement'],
  properties: {
    mime: { type: 'string', pattern: '^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$' },
    path: { type: 'string', pattern: '\\{name\\}', not: { pattern: '^/|[?#\\\\]|//|/$' } },
    body: { type: 'string', minLength: 1 },
    replacement: { type: 'string', minLength: 1 },
    markers: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string', minLength: 1 } },
  },
};

const writes = {
  type: 'object',
  additionalProperties: false,
  required: ['create', 'replace', 'delete'],
  properties: {
    mimes: { anyOf: [{ const: '*' }, { type: 'array', minItems: 1, items: { type: 'string', pattern: MIME } }] },
    create: { type: 'boolean' },
    replace: { type: 'boolean' },
    delete: { type: 'boolean' },
    maxBytes: { type: 'integer', minimum: 1 },
    roundTrip: { enum: ['exact', 'normalised'] },
    samples: { type: 'array', minItems: 1, items: writeSample },
  },
  allOf: [
    when(deleteOnly, { type: 'object', properties: { delete: { const: true } }, not: need('samples') }, need('mimes')),
  ],
};

const claims = (capability: string): Record<string, unknown> => ({ type: 'object', required: ['capabilities'], properties: { capabilities: { type: 'array', contains: { const: capability } } } });

/**
 * Rules `validateDescription` enforces that the schema cannot state. A description the schema
 * accepts may still be refused for one of these.
 */
export const DESCRIPTION_RULES_BEYOND_SCHEMA: readonly string[] = Object.freeze([
  'at most one dimension is marked ordering: true (the schema requires at least one)',
  'auth.fields names are unique',
  'every {{name}} in auth.present names a declared field or a token the acquisition produces; an exchange request names fields only; no field takes an extract name',
  'with acquire "static", auth.present uses a field; with acquire "exchange", it uses an extract name',
  'auth.fields[].pattern compiles as a JavaScript regular expression with the u flag',
  'an origin\'s host parses as a URL host, and a "*." wildcard covers a domain of two or more labels, never an IP address',
  'authorizationUrl, deviceUrl, tokenUrl and the exchange request url parse as absolute http(s) URLs',
  'defaultScope is a JSON object (its grammar and dimensions are check 7\'s: docs/scope.md)',
  'each auth.readEndpoints origin is an entry of auth.origins, and each endpoint is listed once',
  'each writes.samples entry has a type writes.mimes accepts, "{name}" exactly once and only canonical segments (no "." or "..") in its path, a replacement that differs from its body, and bodies of at most 65,536 bytes',
]);

/** The JSON Schema (draft-07) of a describe() result. Frozen. */
export const DESCRIPTION_SCHEMA: Readonly<Record<string, unknown>> = deepFreeze({
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://inseam.io/schemas/connector-description.json',
  title: 'inseam connector describe()',
  description:
    'What a sandboxed connector\'s describe() returns (docs/connectors/authoring.md). Rules beyond this schema, checked by describe() validation: ' +
    `${DESCRIPTION_RULES_BEYOND_SCHEMA.join('; ')}.`,
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'capabilities', 'auth', 'dimensions', 'listing'],
  properties: {
    kind: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,62}$' },
    category: { type: 'string', minLength: 1, maxLength: 40, pattern: PRINTABLE_TRIMMED },
    capabilities: { type: 'array', uniqueItems: true, items: { enum: CAPABILITIES }, allOf: [{ contains: { const: 'list' } }, { contains: { const: 'read' } }] },
    auth,
    dimensions: {
      type: 'object',
      minProperties: 1,
      not: { additionalProperties: { not: need('ordering') } },
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,62}$' },
      additionalProperties: dimension,
    },
    listing: { enum: ['free', 'metered'] },
    defaultScope: {
      type: 'object',
      additionalProperties: false,
      properties: { window: { type: 'object' }, rules: { type: 'array' }, limits: { type: 'object' } },
    },
    writes,
  },
  allOf: [
    when(
      claims('write'),
      { type: 'object', required: ['writes'], properties: { writes: { not: deleteOnly } } },
      { type: 'object', properties: { writes: deleteOnly } },
    ),
    when(claims('delete'), need('writes')),
    when(
      claims('delete'),
      { type: 'object', properties: { writes: { type: 'object', properties: { delete: { const: true } } } } },
      { type: 'object', properties: { writes: { type: 'object', properties: { delete: { const: false } } } } },
    ),
  ],
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
