/**
 * describe() validation: checks a value against the `Description` of the host Connector interface
 * and returns a clean, frozen copy holding only the fields the interface defines.
 *
 * Every problem is collected (not just the first) and thrown together as one
 * `DescriptionValidationError` (`description_invalid`) whose `issues` name each problem's JSON
 * path — `capabilities[2]`, `auth.origins[0]`, `dimensions.date.type` — and what is accepted.
 * Unknown keys are problems too: a misspelt optional field would otherwise vanish silently.
 *
 * Rules beyond the plain types:
 * - `capabilities` come from the closed host list, without repeats, and include `list` and `read`.
 *   `write` is claimed exactly when `writes` accepts create or replace; `delete` exactly when
 *   `writes.delete` (a delete-only host claims `delete` without `write`).
 * - `auth.origins` is non-empty; each is `http(s)://host[:port]` with no path, query, fragment or
 *   credentials; a leading `*.` label is allowed (not on an IP literal, not on a one-label domain).
 * - `dimensions` has exactly one `ordering: true` (never `ordering: false`; omit it instead), each
 *   type is from the closed list, `enum` carries non-empty unique `values` (and only enum does),
 *   `from` is `path`, `size`, `mtime`, `mime` or `extra.<dotted.path>`, and fixed fields carry a
 *   fitting type (`size` → bytes/integer, `mtime` → datetime, `path` → path/string, `mime` →
 *   string/enum). The ordering dimension may not be boolean.
 * - Credentials (docs/connectors/authoring.md#auth-present-templates): every `{{name}}` in a
 *   `present` value names a declared field or a token the acquisition produces (`access_token`
 *   for oauth2, each `extract` name for exchange); an exchange request's templates name fields
 *   only; text with a `{{` or `}}` that is not a template is refused; a `basic` username has no
 *   literal `:`. `acquire: none` has no fields and an empty `present`; `static` has fields and a
 *   `present` that uses one; `oauth2` presents `{{access_token}}`; `exchange` presents one of its
 *   `extract` names, each an identifier. No field may take a token's name.
 * - Text for people: a field's `label` at most 100 characters, `help` at most 500, `instructions`
 *   at most 2,000, all plain text (no HTML tags).
 * - `writes.roundTrip` is "exact" or "normalised"; `writes.mimes` may be left out only by a
 *   delete-only host; each `writes.samples` entry is of a declared type, has `{name}` exactly once
 *   in a relative canonical path, and two different bodies of at most 65,536 bytes.
 * - `auth.readEndpoints`: each is `{ method: "POST", origin, path }` with an exact (non-wildcard)
 *   entry of `auth.origins` and an absolute path without query, fragment or dot segments.
 */
import { DescriptionValidationError, type ManifestIssue } from '@neuralis/package-system/contracts';
import {
  DIMENSION_TYPES,
  HOST_CAPABILITIES,
  MAX_CATEGORY,
  WRITE_ROUND_TRIPS,
  type AuthAcquire,
  type AuthField,
  type AuthPresent,
  type AuthSpec,
  type Description,
  type Dimension,
  type HostCapability,
  type Scope,
  type ReadEndpoint,
  type WriteSampleDeclaration,
  type Writes,
} from './types.js';

type Issues = ManifestIssue[];
type Json = Record<string, unknown>;

/**
 * Validates what a connector's describe() returned. Returns a deep-frozen copy with only the
 * interface's fields. Throws `DescriptionValidationError` (`description_invalid`) listing every
 * problem with its JSON path.
 */
export function validateDescription(value: unknown): Description {
  const issues: Issues = [];
  const description = readDescription(value, issues);
  if (issues.length > 0 || description === undefined) throw DescriptionValidationError.fromIssues(issues);
  return deepFreeze(description);
}

/** Exactly one dimension with `ordering: true`: the name of the window's dimension. */
export function orderingDimension(description: Description): string {
  const name = Object.keys(description.dimensions).find((key) => description.dimensions[key]?.ordering === true);
  if (name === undefined) throw DescriptionValidationError.fromIssues([{ path: 'dimensions', message: 'No dimension is marked ordering: true.', expected: 'exactly one ordering dimension' }]);
  return name;
}

const DESCRIPTION_KEYS = ['kind', 'category', 'capabilities', 'auth', 'dimensions', 'listing', 'defaultScope', 'writes'];
const KIND = /^[a-z][a-z0-9-]{0,62}$/;
const DIMENSION_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,62}$/;
const MIME = /^([a-z0-9][a-z0-9!#$&^_.+-]*)\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/i;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_LABEL = 100;
const MAX_HELP = 500;
const MAX_INSTRUCTIONS = 2000;
/** Printable: no control, format, surrogate, private-use or unassigned code points, no line or paragraph separators. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

function readDescription(value: unknown, issues: Issues): Description | undefined {
  if (!isObject(value)) {
    issues.push({ path: '$', message: 'describe() did not return an object.', expected: 'an object with kind, capabilities, auth, dimensions and listing' });
    return undefined;
  }
  unknownKeys(value, DESCRIPTION_KEYS, '', issues);
  const kind = value['kind'];
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    issues.push({ path: 'kind', message: `The kind ${shown(kind)} is not a valid kind name.`, expected: 'a lowercase name of letters, digits and "-", starting with a letter (at most 63 characters)' });
  }
  const category = value['category'] === undefined ? undefined : readCategory(value['category'], issues);
  const capabilities = readCapabilities(value['capabilities'], issues);
  const auth = readAuth(value['auth'], issues);
  const dimensions = readDimensions(value['dimensions'], issues);
  const listing = value['listing'];
  if (listing !== 'free' && listing !== 'metered') {
    issues.push({ path: 'listing', message: `listing is ${shown(listing)}.`, expected: '"free" or "metered"' });
  }
  const defaultScope = value['defaultScope'] === undefined ? undefined : readScope(value['defaultScope'], issues);
  const writes = value['writes'] === undefined ? undefined : readWrites(value['writes'], issues);
  checkWriteClaims(capabilities, writes, value['writes'] !== undefined, issues);
  if (issues.length > 0 || capabilities === undefined || auth === undefined || dimensions === undefined) return undefined;
  return {
    kind: kind as string,
    ...(category === undefined ? {} : { category }),
    capabilities,
    auth,
    dimensions,
    listing: listing as 'free' | 'metered',
    ...(defaultScope === undefined ? {} : { defaultScope }),
    ...(writes === undefined ? {} : { writes }),
  };
}

/** Free text, as a manifest's `category`: shown as declared, an unknown one with a generic chip. */
function readCategory(value: unknown, issues: Issues): string | undefined {
  const expected = `printable text of 1 to ${MAX_CATEGORY} characters without leading or trailing spaces, such as "api", "db" or "tickets"`;
  if (typeof value !== 'string') {
    issues.push({ path: 'category', message: `category is ${shown(value)}, not a string.`, expected });
    return undefined;
  }
  const length = [...value].length;
  const problem =
    value.trim() === ''
      ? 'category is empty.'
      : length > MAX_CATEGORY
        ? `category is ${length} characters long.`
        : UNPRINTABLE.test(value)
          ? 'category contains a control or other unprintable character.'
          : value.trim() !== value
            ? 'category has leading or trailing spaces.'
            : undefined;
  if (problem === undefined) return value;
  issues.push({ path: 'category', message: problem, expected });
  return undefined;
}

function readCapabilities(value: unknown, issues: Issues): HostCapability[] | undefined {
  const expected = `an array of ${HOST_CAPABILITIES.map((c) => `"${c}"`).join(', ')} including "list" and "read"`;
  if (!Array.isArray(value)) {
    issues.push({ path: 'capabilities', message: 'capabilities is not an array.', expected });
    return undefined;
  }
  const seen = new Set<HostCapability>();
  value.forEach((item, index) => {
    if (typeof item !== 'string' || !(HOST_CAPABILITIES as readonly string[]).includes(item)) {
      issues.push({ path: `capabilities[${index}]`, message: `${shown(item)} is not a host capability.`, expected: `one of ${HOST_CAPABILITIES.join(', ')}` });
    } else if (seen.has(item as HostCapability)) {
      issues.push({ path: `capabilities[${index}]`, message: `"${item}" is listed twice.`, expected: 'each capability once' });
    } else {
      seen.add(item as HostCapability);
    }
  });
  for (const required of ['list', 'read'] as const) {
    if (!seen.has(required)) issues.push({ path: 'capabilities', message: `"${required}" is missing; every connector lists and reads.`, expected });
  }
  return [...seen];
}

function checkWriteClaims(capabilities: HostCapability[] | undefined, writes: Writes | undefined, declared: boolean, issues: Issues): void {
  if (capabilities === undefined) return;
  if (!declared) {
    const claimed = capabilities.find((capability) => capability === 'write' || capability === 'delete');
    if (claimed !== undefined) {
      issues.push({ path: 'writes', message: `The "${claimed}" capability is claimed but writes is not declared.`, expected: 'writes { mimes, create, replace, delete } when "write" or "delete" is claimed' });
    }
    return;
  }
  // An invalid writes was reported where it failed.
  if (writes === undefined) return;
  const writable = writes.create || writes.replace;
  if (capabilities.includes('write') !== writable) {
    issues.push(
      writable
        ? { path: 'capabilities', message: 'writes accepts create or replace but the "write" capability is not claimed.', expected: '"write" in capabilities, or no writes' }
        : { path: 'capabilities', message: 'The "write" capability is claimed but writes accepts neither create nor replace (a delete-only host).', expected: '"delete" without "write" for a delete-only host' },
    );
  }
  if (capabilities.includes('delete') !== writes.delete) {
    issues.push({
      path: 'writes.delete',
      message: writes.delete ? 'writes.delete is true but the "delete" capability is not claimed.' : 'The "delete" capability is claimed but writes.delete is false.',
      expected: 'writes.delete true exactly when "delete" is in capabilities',
    });
  }
}

// ---- auth ---------------------------------------------------------------------------------------

function readAuth(value: unknown, issues: Issues): AuthSpec | undefined {
  if (!isObject(value)) {
    issues.push({ path: 'auth', message: 'auth is not an object.', expected: 'an AuthSpec { acquire, present, origins, fields?, instructions? }' });
    return undefined;
  }
  unknownKeys(value, ['fields', 'instructions', 'acquire', 'present', 'origins', 'readEndpoints'], 'auth', issues);
  const fields = value['fields'] === undefined ? undefined : readFields(value['fields'], issues);
  const instructions = value['instructions'];
  if (instructions !== undefined && typeof instructions !== 'string') {
    issues.push({ path: 'auth.instructions', message: 'instructions is not a string.', expected: 'text for the person setting the host up' });
  }
  const acquire = readAcquire(value['acquire'], issues);
  const present = readPresent(value['present'], issues);
  const origins = readOrigins(value['origins'], issues);
  const readEndpoints = value['readEndpoints'] === undefined ? undefined : readReadEndpoints(value['readEndpoints'], origins ?? [], issues);
  if (typeof instructions === 'string') plainText(instructions, 'auth.instructions', MAX_INSTRUCTIONS, issues);
  // Templates are checked only against fields and present forms that read cleanly, so one broken item is reported once.
  const cleanFields = value['fields'] === undefined ? [] : Array.isArray(value['fields']) && fields?.length === value['fields'].length ? fields : undefined;
  const cleanPresent = Array.isArray(value['present']) && present?.length === value['present'].length;
  if (acquire !== undefined && present !== undefined && cleanPresent && cleanFields !== undefined) checkCredentialUse(cleanFields, acquire, present, issues);
  if (acquire === undefined || present === undefined || origins === undefined) return undefined;
  return {
    ...(fields === undefined ? {} : { fields }),
    ...(typeof instructions === 'string' ? { instructions } : {}),
    acquire,
    present,
    origins,
    ...(readEndpoints === undefined ? {} : { readEndpoints }),
  };
}

const ENDPOINT_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

/** Why `path` is not a path a request can send exactly so, or undefined when it is. */
function endpointPathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || !ENDPOINT_PATH.test(path)) return 'it must be an absolute, percent-encoded path such as "/graphql", without query or fragment.';
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) return 'a "%" must start a percent-escape.';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return 'it may not have "." or ".." segments (a URL would not be sent so).';
  return undefined;
}

function readReadEndpoints(value: unknown, origins: readonly string[], issues: Issues): ReadEndpoint[] | undefined {
  const path = 'auth.readEndpoints';
  if (!Array.isArray(value)) {
    issues.push({ path, message: 'readEndpoints is not an array.', expected: 'an array of { method: "POST", origin, path }' });
    return undefined;
  }
  const endpoints: ReadEndpoint[] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(item)) {
      issues.push({ path: at, message: 'A read endpoint is not an object.', expected: '{ method: "POST", origin, path }' });
      return;
    }
    unknownKeys(item, ['method', 'origin', 'path'], at, issues);
    const { method, origin } = item;
    const before = issues.length;
    if (method !== 'POST') issues.push({ path: `${at}.method`, message: `method is ${shown(method)}.`, expected: '"POST" (GET, HEAD, OPTIONS, PROPFIND, REPORT and SEARCH are reads already)' });
    if (typeof origin !== 'string' || !origins.includes(origin) || origin.includes('*')) {
      issues.push({ path: `${at}.origin`, message: `${shown(origin)} is not an exact entry of auth.origins.`, expected: 'one of the declared origins, written the same way, without a wildcard' });
    }
    const problem = endpointPathProblem(item['path']);
    if (problem !== undefined) issues.push({ path: `${at}.path`, message: `${shown(item['path'])} is not an endpoint path: ${problem}`, expected: 'a path such as "/graphql" or "/v1/search"' });
    if (issues.length > before) return;
    const key = `${origin as string}${item['path'] as string}`;
    if (seen.has(key)) {
      issues.push({ path: at, message: 'This endpoint is listed twice.', expected: 'each endpoint once' });
      return;
    }
    seen.add(key);
    endpoints.push({ method: 'POST', origin: origin as string, path: item['path'] as string });
  });
  return endpoints;
}

function readFields(value: unknown, issues: Issues): AuthField[] | undefined {
  if (!Array.isArray(value)) {
    issues.push({ path: 'auth.fields', message: 'fields is not an array.', expected: 'an array of { name, label, secret, pattern?, help? }' });
    return undefined;
  }
  const names = new Set<string>();
  const fields: AuthField[] = [];
  value.forEach((item, index) => {
    const path = `auth.fields[${index}]`;
    if (!isObject(item)) {
      issues.push({ path, message: 'A field is not an object.', expected: '{ name, label, secret, pattern?, help? }' });
      return;
    }
    unknownKeys(item, ['name', 'label', 'secret', 'pattern', 'help'], path, issues);
    const { name, label, secret, pattern, help } = item;
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      issues.push({ path: `${path}.name`, message: `The field name ${shown(name)} is not an identifier.`, expected: 'letters, digits and "_", not starting with a digit' });
    } else if (names.has(name)) {
      issues.push({ path: `${path}.name`, message: `The field name "${name}" is used twice.`, expected: 'unique field names' });
    } else {
      names.add(name);
    }
    if (nonEmptyString(label, `${path}.label`, 'a label for the person filling it in', issues)) plainText(label as string, `${path}.label`, MAX_LABEL, issues);
    if (typeof secret !== 'boolean') issues.push({ path: `${path}.secret`, message: 'secret is not a boolean.', expected: 'true or false' });
    if (pattern !== undefined) {
      if (typeof pattern !== 'string' || !compiles(pattern)) issues.push({ path: `${path}.pattern`, message: 'pattern is not a valid regular expression.', expected: 'a JavaScript regular expression source' });
    }
    if (help !== undefined && typeof help !== 'string') issues.push({ path: `${path}.help`, message: 'help is not a string.', expected: 'text' });
    else if (typeof help === 'string') plainText(help, `${path}.help`, MAX_HELP, issues);
    if (typeof name === 'string' && typeof label === 'string' && typeof secret === 'boolean') {
      fields.push({
        name,
        label,
        secret,
        ...(typeof pattern === 'string' ? { pattern } : {}),
        ...(typeof help === 'string' ? { help } : {}),
      });
    }
  });
  return fields;
}

function readAcquire(value: unknown, issues: Issues): AuthAcquire | undefined {
  const path = 'auth.acquire';
  if (!isObject(value)) {
    issues.push({ path, message: 'acquire is not an object.', expected: 'one of { type: "none" }, { type: "static" }, an oauth2 or an exchange form' });
    return undefined;
  }
  switch (value['type']) {
    case 'none':
    case 'static':
      unknownKeys(value, ['type'], path, issues);
      return { type: value['type'] };
    case 'oauth2':
      return readOAuth2(value, path, issues);
    case 'exchange':
      return readExchange(value, path, issues);
    default:
      issues.push({ path: `${path}.type`, message: `The acquire type ${shown(value['type'])} is unknown.`, expected: '"none", "static", "oauth2" or "exchange"' });
      return undefined;
  }
}

function readOAuth2(value: Json, path: string, issues: Issues): AuthAcquire | undefined {
  unknownKeys(value, ['type', 'grant', 'authorizationUrl', 'deviceUrl', 'tokenUrl', 'scopes', 'pkce', 'clientSources'], path, issues);
  const { grant, authorizationUrl, deviceUrl, tokenUrl, scopes, pkce, clientSources } = value;
  const before = issues.length;
  if (grant !== 'authorization_code' && grant !== 'device_code') {
    issues.push({ path: `${path}.grant`, message: `The grant ${shown(grant)} is unknown.`, expected: '"authorization_code" or "device_code"' });
  }
  if (authorizationUrl !== undefined) httpUrl(authorizationUrl, `${path}.authorizationUrl`, issues);
  if (deviceUrl !== undefined) httpUrl(deviceUrl, `${path}.deviceUrl`, issues);
  if (grant === 'authorization_code' && authorizationUrl === undefined) {
    issues.push({ path: `${path}.authorizationUrl`, message: 'The authorization_code grant needs an authorizationUrl.', expected: 'an https URL' });
  }
  if (grant === 'device_code' && deviceUrl === undefined) {
    issues.push({ path: `${path}.deviceUrl`, message: 'The device_code grant needs a deviceUrl.', expected: 'an https URL' });
  }
  httpUrl(tokenUrl, `${path}.tokenUrl`, issues);
  stringArray(scopes, `${path}.scopes`, 'an array of scope strings', issues, false);
  if (pkce !== true) issues.push({ path: `${path}.pkce`, message: 'pkce must be true; inseam always uses PKCE.', expected: 'true' });
  const sources = ['inseam', 'dcr', 'network'];
  if (!Array.isArray(clientSources) || clientSources.length === 0) {
    issues.push({ path: `${path}.clientSources`, message: 'clientSources is not a non-empty array.', expected: `a non-empty array of ${sources.join(', ')}` });
  } else {
    clientSources.forEach((item, index) => {
      if (typeof item !== 'string' || !sources.includes(item)) {
        issues.push({ path: `${path}.clientSources[${index}]`, message: `${shown(item)} is not a client source.`, expected: `one of ${sources.join(', ')}` });
      }
    });
  }
  if (issues.length > before) return undefined;
  return {
    type: 'oauth2',
    grant: grant as 'authorization_code' | 'device_code',
    ...(typeof authorizationUrl === 'string' ? { authorizationUrl } : {}),
    ...(typeof deviceUrl === 'string' ? { deviceUrl } : {}),
    tokenUrl: tokenUrl as string,
    scopes: [...(scopes as string[])],
    pkce: true,
    clientSources: [...(clientSources as ('inseam' | 'dcr' | 'network')[])],
  };
}

function readExchange(value: Json, path: string, issues: Issues): AuthAcquire | undefined {
  unknownKeys(value, ['type', 'request', 'extract', 'expiresIn', 'expiresAt', 'renewOn'], path, issues);
  const before = issues.length;
  const { request, extract, expiresIn, expiresAt, renewOn } = value;
  let cleanRequest: Json | undefined;
  if (!isObject(request)) {
    issues.push({ path: `${path}.request`, message: 'request is not an object.', expected: '{ method, url, headers?, json?, form? }' });
  } else {
    unknownKeys(request, ['method', 'url', 'headers', 'json', 'form'], `${path}.request`, issues);
    if (request['method'] !== 'GET' && request['method'] !== 'POST') {
      issues.push({ path: `${path}.request.method`, message: `The method ${shown(request['method'])} is not allowed.`, expected: '"GET" or "POST"' });
    }
    httpUrl(request['url'], `${path}.request.url`, issues);
    if (request['headers'] !== undefined) stringRecord(request['headers'], `${path}.request.headers`, issues);
    if (request['form'] !== undefined) stringRecord(request['form'], `${path}.request.form`, issues);
    if (request['json'] !== undefined && request['form'] !== undefined) {
      issues.push({ path: `${path}.request`, message: 'request has both json and form.', expected: 'at most one body: json or form' });
    }
    if (request['json'] !== undefined && !isJson(request['json'])) {
      issues.push({ path: `${path}.request.json`, message: 'json is not plain JSON data.', expected: 'JSON data' });
    }
    cleanRequest = {
      method: request['method'],
      url: request['url'],
      ...(request['headers'] === undefined ? {} : { headers: { ...(request['headers'] as Json) } }),
      ...(request['json'] === undefined ? {} : { json: structuredCloneJson(request['json']) }),
      ...(request['form'] === undefined ? {} : { form: { ...(request['form'] as Json) } }),
    };
  }
  if (stringRecord(extract, `${path}.extract`, issues)) {
    if (Object.keys(extract as Json).length === 0) {
      issues.push({ path: `${path}.extract`, message: 'extract names nothing to take from the answer.', expected: 'at least one field name → JSON path' });
    }
    for (const name of Object.keys(extract as Json)) {
      if (!IDENTIFIER.test(name)) issues.push({ path: `${path}.extract${member(name)}`, message: `The token name ${shown(name)} is not an identifier.`, expected: 'letters, digits and "_", not starting with a digit (present uses it as {{name}})' });
    }
  }
  if (expiresIn !== undefined && typeof expiresIn !== 'string' && !(typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0)) {
    issues.push({ path: `${path}.expiresIn`, message: 'expiresIn is neither a positive number of seconds nor a string.', expected: 'seconds, or a path into the answer' });
  }
  if (expiresAt !== undefined && typeof expiresAt !== 'string') {
    issues.push({ path: `${path}.expiresAt`, message: 'expiresAt is not a string.', expected: 'a path into the answer' });
  }
  if (renewOn !== undefined) {
    if (!Array.isArray(renewOn)) {
      issues.push({ path: `${path}.renewOn`, message: 'renewOn is not an array.', expected: 'an array of HTTP status codes' });
    } else {
      renewOn.forEach((status, index) => {
        if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) {
          issues.push({ path: `${path}.renewOn[${index}]`, message: `${shown(status)} is not an HTTP status.`, expected: 'an integer from 100 to 599' });
        }
      });
    }
  }
  if (issues.length > before || cleanRequest === undefined) return undefined;
  return {
    type: 'exchange',
    request: cleanRequest as unknown as Extract<AuthAcquire, { type: 'exchange' }>['request'],
    extract: { ...(extract as Record<string, string>) },
    ...(expiresIn === undefined ? {} : { expiresIn: expiresIn as string | number }),
    ...(expiresAt === undefined ? {} : { expiresAt: expiresAt as string }),
    ...(renewOn === undefined ? {} : { renewOn: [...(renewOn as number[])] }),
  };
}

function readPresent(value: unknown, issues: Issues): AuthPresent[] | undefined {
  const path = 'auth.present';
  if (!Array.isArray(value)) {
    issues.push({ path, message: 'present is not an array.', expected: 'an array of header/query/cookie, basic or aws_sigv4 forms (empty when nothing is attached)' });
    return undefined;
  }
  const present: AuthPresent[] = [];
  value.forEach((item, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(item)) {
      issues.push({ path: at, message: 'A present form is not an object.', expected: '{ in, ... }' });
      return;
    }
    const before = issues.length;
    switch (item['in']) {
      case 'header':
      case 'query':
      case 'cookie':
        unknownKeys(item, ['in', 'name', 'value'], at, issues);
        nonEmptyString(item['name'], `${at}.name`, 'the header, query or cookie name', issues);
        stringValue(item['value'], `${at}.value`, issues);
        if (issues.length === before) present.push({ in: item['in'], name: item['name'] as string, value: item['value'] as string });
        return;
      case 'basic':
        unknownKeys(item, ['in', 'username', 'password'], at, issues);
        stringValue(item['username'], `${at}.username`, issues);
        stringValue(item['password'], `${at}.password`, issues);
        if (issues.length === before) present.push({ in: 'basic', username: item['username'] as string, password: item['password'] as string });
        return;
      case 'aws_sigv4': {
        const keys = ['accessKeyId', 'secretAccessKey', 'region', 'service'] as const;
        unknownKeys(item, ['in', ...keys], at, issues);
        for (const key of keys) nonEmptyString(item[key], `${at}.${key}`, 'a value or a {{field}} reference', issues);
        if (issues.length === before) {
          present.push({
            in: 'aws_sigv4',
            accessKeyId: item['accessKeyId'] as string,
            secretAccessKey: item['secretAccessKey'] as string,
            region: item['region'] as string,
            service: item['service'] as string,
          });
        }
        return;
      }
      default:
        issues.push({ path: `${at}.in`, message: `${shown(item['in'])} is not a way to present a credential.`, expected: '"header", "query", "cookie", "basic" or "aws_sigv4"' });
    }
  });
  return present;
}

function readOrigins(value: unknown, issues: Issues): string[] | undefined {
  const path = 'auth.origins';
  if (!Array.isArray(value) || value.length === 0) {
    issues.push({ path, message: 'origins is missing or empty; a connector reaches only the origins it declares.', expected: 'a non-empty array of origins such as "https://api.example.com"' });
    return undefined;
  }
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const problem = originProblem(item);
    if (problem !== undefined) {
      issues.push({ path: `${path}[${index}]`, message: `${shown(item)} is not a valid origin: ${problem}`, expected: 'http(s)://host[:port], optionally with a leading "*." label' });
    } else if (seen.has(item as string)) {
      issues.push({ path: `${path}[${index}]`, message: `${shown(item)} is listed twice.`, expected: 'each origin once' });
    } else {
      seen.add(item as string);
    }
  });
  return [...seen];
}

const ORIGIN = /^(https?):\/\/(\*\.)?([^/?#@\s\\]+)$/i;

/** Why `value` is not an acceptable origin, or undefined when it is. */
function originProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'it is not a string.';
  const match = ORIGIN.exec(value);
  if (match === null) return 'it must be scheme://host[:port] with scheme http or https, and no path, query, fragment or credentials.';
  const wildcard = match[2] !== undefined;
  const hostPort = match[3] ?? '';
  if (hostPort.includes('*')) return 'a wildcard is allowed only as the whole leading label ("*.example.com").';
  let url: URL;
  try {
    url = new URL(`${match[1]}://${wildcard ? 'w.' : ''}${hostPort}`);
  } catch {
    return 'the host does not parse.';
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return 'it must not carry a path, query, fragment or credentials.';
  }
  if (url.hostname === '') return 'the host is empty.';
  if (wildcard) {
    const base = url.hostname.slice(2);
    if (/^\d+(\.\d+){3}$/.test(base) || base.startsWith('[')) return 'a wildcard cannot cover an IP address.';
    if (!base.includes('.')) return 'a wildcard must cover a domain with at least two labels (not "*.com").';
  }
  return undefined;
}

// ---- credential templates ------------------------------------------------------------------------

/** `{{name}}` with optional spaces inside the braces: the gate's and the exchange's one syntax. */
const TEMPLATE = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** The names a template uses, or undefined when it holds a `{{` or `}}` that is not a template. */
export function templateNames(text: string): string[] | undefined {
  const names = [...text.matchAll(TEMPLATE)].map((match) => match[1]!);
  const rest = text.replace(TEMPLATE, '');
  return rest.includes('{{') || rest.includes('}}') ? undefined : names;
}

/** The tokens an acquisition produces, which `present` may use beside the fields. */
export function acquiredTokens(acquire: AuthAcquire): string[] {
  if (acquire.type === 'oauth2') return ['access_token'];
  if (acquire.type === 'exchange') return Object.keys(acquire.extract);
  return [];
}

function presentValues(form: AuthPresent): [key: string, value: string][] {
  switch (form.in) {
    case 'basic':
      return [['username', form.username], ['password', form.password]];
    case 'aws_sigv4':
      return [['accessKeyId', form.accessKeyId], ['secretAccessKey', form.secretAccessKey], ['region', form.region], ['service', form.service]];
    default:
      return [['value', form.value]];
  }
}

function exchangeTemplates(acquire: AuthAcquire): [path: string, value: string][] {
  if (acquire.type !== 'exchange') return [];
  const base = 'auth.acquire.request';
  const found: [string, string][] = [[`${base}.url`, acquire.request.url]];
  for (const [name, value] of Object.entries(acquire.request.headers ?? {})) found.push([`${base}.headers${member(name)}`, value]);
  for (const [name, value] of Object.entries(acquire.request.form ?? {})) found.push([`${base}.form${member(name)}`, value]);
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') found.push([path, value]);
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`));
    else if (isObject(value)) for (const key of Object.keys(value)) walk(value[key], `${path}${member(key)}`);
  };
  walk(acquire.request.json, `${base}.json`);
  return found;
}

function checkCredentialUse(fields: readonly AuthField[], acquire: AuthAcquire, present: readonly AuthPresent[], issues: Issues): void {
  const fieldNames = fields.map((field) => field.name);
  const tokens = acquiredTokens(acquire);
  const known = [...tokens, ...fieldNames];
  const used = new Set<string>();
  const expectedNames = known.length === 0 ? 'no template: this acquire form stores no value' : `one of ${known.map((name) => `{{${name}}}`).join(', ')}`;
  present.forEach((form, index) => {
    for (const [key, value] of presentValues(form)) {
      const path = `auth.present[${index}].${key}`;
      const names = templateNames(value);
      if (names === undefined) {
        issues.push({ path, message: `${shown(value)} holds a "{{" or "}}" that is not a {{name}} template.`, expected: 'plain text with {{name}} templates (letters, digits, "_", "." or "-" inside double braces)' });
        continue;
      }
      for (const name of names) {
        used.add(name);
        if (!known.includes(name)) issues.push({ path, message: `{{${name}}} names no declared field and no token the acquisition produces.`, expected: expectedNames });
      }
      if (form.in === 'basic' && key === 'username' && value.replace(TEMPLATE, '').includes(':')) {
        issues.push({ path, message: 'The basic username contains ":", which Basic auth cannot carry.', expected: 'a username without ":"' });
      }
    }
  });
  for (const [path, value] of exchangeTemplates(acquire)) {
    const names = templateNames(value);
    if (names === undefined) {
      issues.push({ path, message: `${shown(value)} holds a "{{" or "}}" that is not a {{name}} template.`, expected: 'plain text with {{field}} templates' });
      continue;
    }
    for (const name of names) {
      if (!fieldNames.includes(name)) issues.push({ path, message: `{{${name}}} names no declared field (an exchange request is filled from the stored fields only).`, expected: fieldNames.length === 0 ? 'declare the field in auth.fields' : `one of ${fieldNames.map((field) => `{{${field}}}`).join(', ')}` });
    }
  }
  fields.forEach((field, index) => {
    if (tokens.includes(field.name)) {
      issues.push({ path: `auth.fields[${index}].name`, message: `The field "${field.name}" has the name of a token the acquisition produces, which present would use instead.`, expected: 'a field name that is not a token name' });
    }
  });
  switch (acquire.type) {
    case 'none':
      if (fields.length > 0) issues.push({ path: 'auth.fields', message: 'acquire is "none" but fields are declared; nothing would use them.', expected: 'no fields with acquire "none", or acquire "static" to store and present them' });
      if (present.length > 0) issues.push({ path: 'auth.present', message: 'acquire is "none" but present attaches a credential.', expected: 'an empty present with acquire "none" (the host needs no credential)' });
      break;
    case 'static':
      if (fields.length === 0) issues.push({ path: 'auth.fields', message: 'acquire is "static" but no field is declared for a person to fill in.', expected: 'the fields whose values present attaches' });
      else if (![...used].some((name) => fieldNames.includes(name))) issues.push({ path: 'auth.present', message: 'acquire is "static" but present uses none of the fields.', expected: `a present value using ${fieldNames.map((name) => `{{${name}}}`).join(' or ')}` });
      break;
    default:
      if (!tokens.some((token) => used.has(token))) {
        issues.push({ path: 'auth.present', message: `present never uses the token the ${acquire.type} acquisition produces, so it would never be sent.`, expected: `a present value using ${tokens.map((token) => `{{${token}}}`).join(' or ')}` });
      }
  }
}

/** Text for people: at most `max` characters, no HTML tags (the web page shows it as plain text). */
function plainText(text: string, path: string, max: number, issues: Issues): void {
  if (text.length > max) issues.push({ path, message: `It is ${text.length} characters long.`, expected: `plain text of at most ${max} characters` });
  if (/<\/?[A-Za-z!][^>]*>/.test(text)) issues.push({ path, message: 'It contains an HTML tag, which is shown as typed, not rendered.', expected: 'plain text (blank lines between paragraphs; bare https URLs become links)' });
}

// ---- dimensions -------------------------------------------------------------------------------------

const FIXED_SOURCE_TYPES: Readonly<Record<string, readonly string[]>> = {
  path: ['path', 'string'],
  size: ['bytes', 'integer'],
  mtime: ['datetime'],
  mime: ['string', 'enum'],
};

function readDimensions(value: unknown, issues: Issues): Record<string, Dimension> | undefined {
  if (!isObject(value)) {
    issues.push({ path: 'dimensions', message: 'dimensions is not an object.', expected: 'a record of dimension name → { type, from, description, ordering?, values? }' });
    return undefined;
  }
  const names = Object.keys(value);
  if (names.length === 0) {
    issues.push({ path: 'dimensions', message: 'No dimension is declared.', expected: 'at least one dimension, exactly one with ordering: true' });
    return undefined;
  }
  const dimensions: Record<string, Dimension> = {};
  const ordering: string[] = [];
  for (const name of names) {
    const path = `dimensions${member(name)}`;
    if (!DIMENSION_NAME.test(name)) {
      issues.push({ path, message: `The dimension name ${shown(name)} is not allowed.`, expected: 'a name of letters, digits, "_", "." and "-", starting with a letter' });
    }
    const raw = value[name];
    if (isObject(raw) && raw['ordering'] === true) ordering.push(name);
    const dimension = readDimension(raw, path, issues);
    if (dimension === undefined) continue;
    Object.defineProperty(dimensions, name, { value: dimension, enumerable: true, writable: true, configurable: true });
  }
  if (ordering.length !== 1) {
    issues.push({
      path: 'dimensions',
      message: ordering.length === 0 ? 'No dimension is marked ordering: true.' : `${ordering.length} dimensions are marked ordering: true (${ordering.join(', ')}).`,
      expected: 'exactly one dimension with ordering: true',
    });
  }
  return dimensions;
}

function readDimension(value: unknown, path: string, issues: Issues): Dimension | undefined {
  if (!isObject(value)) {
    issues.push({ path, message: 'A dimension is not an object.', expected: '{ type, from, description, ordering?, values? }' });
    return undefined;
  }
  unknownKeys(value, ['type', 'from', 'ordering', 'values', 'description'], path, issues);
  const before = issues.length;
  const { type, from, ordering, values, description } = value;
  if (typeof type !== 'string' || !(DIMENSION_TYPES as readonly string[]).includes(type)) {
    issues.push({ path: `${path}.type`, message: `The type ${shown(type)} is not a dimension type.`, expected: `one of ${DIMENSION_TYPES.join(', ')}` });
  }
  const fromOk = typeof from === 'string' && (from in FIXED_SOURCE_TYPES || /^extra\.[^.]+(\.[^.]+)*$/.test(from));
  if (!fromOk) {
    issues.push({ path: `${path}.from`, message: `${shown(from)} names no Entry field.`, expected: '"path", "size", "mtime", "mime" or "extra.<name>" (dotted for nested fields)' });
  } else if (typeof type === 'string' && FIXED_SOURCE_TYPES[from] !== undefined && !FIXED_SOURCE_TYPES[from].includes(type)) {
    issues.push({ path: `${path}.type`, message: `Entry.${from} cannot be read as ${type}.`, expected: `one of ${FIXED_SOURCE_TYPES[from].join(', ')} for from: "${from}"` });
  }
  if (ordering !== undefined && ordering !== true) {
    issues.push({ path: `${path}.ordering`, message: 'ordering may only be true.', expected: 'true on the one ordering dimension, absent elsewhere' });
  }
  if (ordering === true && type === 'boolean') {
    issues.push({ path: `${path}.ordering`, message: 'A boolean dimension cannot order a window.', expected: 'a datetime, integer, bytes, string or path dimension as the ordering one' });
  }
  if (type === 'enum') {
    if (stringArray(values, `${path}.values`, 'a non-empty array of distinct strings', issues, true) && new Set(values as string[]).size !== (values as string[]).length) {
      issues.push({ path: `${path}.values`, message: 'values repeats a value.', expected: 'distinct strings' });
    }
  } else if (values !== undefined) {
    issues.push({ path: `${path}.values`, message: 'values is only for enum dimensions.', expected: 'no values, or type "enum"' });
  }
  nonEmptyString(description, `${path}.description`, 'a sentence saying what the dimension is', issues);
  if (issues.length > before) return undefined;
  return {
    type: type as Dimension['type'],
    from: from as Dimension['from'],
    ...(ordering === true ? { ordering: true } : {}),
    ...(type === 'enum' ? { values: [...(values as string[])] } : {}),
    description: description as string,
  };
}

// ---- defaultScope and writes --------------------------------------------------------------------------

function readScope(value: unknown, issues: Issues): Scope | undefined {
  if (!isObject(value) || !isJson(value)) {
    issues.push({ path: 'defaultScope', message: 'defaultScope is not a JSON object.', expected: 'a scope { window?, rules?, limits? } (see docs/scope.md)' });
    return undefined;
  }
  const before = issues.length;
  unknownKeys(value, ['window', 'rules', 'limits'], 'defaultScope', issues);
  if (value['window'] !== undefined && !isObject(value['window'])) issues.push({ path: 'defaultScope.window', message: 'window is not an object.', expected: '{ from?, to?, last?, outside? }' });
  if (value['rules'] !== undefined && !Array.isArray(value['rules'])) issues.push({ path: 'defaultScope.rules', message: 'rules is not an array.', expected: 'an ordered array of { include } or { exclude } rules' });
  if (value['limits'] !== undefined && !isObject(value['limits'])) issues.push({ path: 'defaultScope.limits', message: 'limits is not an object.', expected: '{ maxEntries?, maxBytes?, maxEntryBytes? }' });
  return issues.length > before ? undefined : (structuredCloneJson(value) as Scope);
}

const MAX_SAMPLE_BYTES = 65_536;

function readWrites(value: unknown, issues: Issues): Writes | undefined {
  const path = 'writes';
  if (!isObject(value)) {
    issues.push({ path, message: 'writes is not an object.', expected: '{ mimes, create, replace, delete, maxBytes?, roundTrip?, samples? }' });
    return undefined;
  }
  unknownKeys(value, ['mimes', 'create', 'replace', 'delete', 'maxBytes', 'roundTrip', 'samples'], path, issues);
  const before = issues.length;
  const { mimes, create, replace, maxBytes, roundTrip } = value;
  if (roundTrip !== undefined && !(WRITE_ROUND_TRIPS as readonly unknown[]).includes(roundTrip)) {
    issues.push({ path: `${path}.roundTrip`, message: `roundTrip is ${shown(roundTrip)}.`, expected: '"exact" (read gives back the bytes written; the default) or "normalised" (the host re-serialises what it stores)' });
  }
  for (const key of ['create', 'replace', 'delete'] as const) {
    if (typeof value[key] !== 'boolean') issues.push({ path: `${path}.${key}`, message: `${key} is not a boolean.`, expected: 'true or false' });
  }
  const deleteOnly = create === false && replace === false;
  if (deleteOnly && value['delete'] === false) {
    issues.push({ path, message: 'writes accepts neither create, replace nor delete, so nothing can be changed.', expected: 'create, replace or delete true (or no writes, for a read-only host)' });
  }
  if (mimes === undefined && !deleteOnly) {
    issues.push({ path: `${path}.mimes`, message: 'mimes is missing; only a delete-only host may leave it out.', expected: '"*" or an array of MIME types such as "text/markdown" or "image/*"' });
  } else if (mimes !== undefined && mimes !== '*') {
    if (!Array.isArray(mimes) || mimes.length === 0) {
      issues.push({ path: `${path}.mimes`, message: 'mimes is neither "*" nor a non-empty array.', expected: '"*" or an array of MIME types such as "text/markdown" or "image/*"' });
    } else {
      mimes.forEach((mime, index) => {
        if (typeof mime !== 'string' || !MIME.test(mime)) issues.push({ path: `${path}.mimes[${index}]`, message: `${shown(mime)} is not a MIME type.`, expected: 'type/subtype or type/*' });
      });
    }
  }
  if (maxBytes !== undefined && !(Number.isInteger(maxBytes) && (maxBytes as number) > 0)) {
    issues.push({ path: `${path}.maxBytes`, message: 'maxBytes is not a positive integer.', expected: 'a positive number of bytes' });
  }
  if (issues.length > before) return undefined;
  const accepted: readonly string[] | '*' = mimes === undefined ? [] : mimes === '*' ? '*' : [...(mimes as string[])];
  const samples = value['samples'] === undefined ? undefined : readWriteSamples(value['samples'], accepted, deleteOnly, issues);
  if (issues.length > before) return undefined;
  return {
    mimes: accepted,
    create: create as boolean,
    replace: replace as boolean,
    delete: value['delete'] as boolean,
    ...(maxBytes === undefined ? {} : { maxBytes: maxBytes as number }),
    ...(roundTrip === undefined ? {} : { roundTrip: roundTrip as 'exact' | 'normalised' }),
    ...(samples === undefined ? {} : { samples }),
  };
}

/** Whether `mime` is one `accepted` covers (`*`, `type/*` or the exact type). */
function acceptsMime(accepted: readonly string[] | '*', mime: string): boolean {
  if (accepted === '*') return true;
  return accepted.some((item) => {
    const lower = item.toLowerCase();
    return lower === mime || (lower.endsWith('/*') && mime.startsWith(lower.slice(0, -1)));
  });
}

const CANONICAL_SEGMENT = /^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})+$/;

/** `{name}` once, then canonical segments (as Entry paths are), none of them "." or "..". */
function samplePathOk(template: string): boolean {
  if (template.split('{name}').length !== 2) return false;
  return template
    .replace('{name}', 'name')
    .split('/')
    .every((segment) => CANONICAL_SEGMENT.test(segment) && segment !== '.' && segment !== '..');
}

function readWriteSamples(value: unknown, accepted: readonly string[] | '*', deleteOnly: boolean, issues: Issues): WriteSampleDeclaration[] | undefined {
  const path = 'writes.samples';
  const expected = '{ mime, path, body, replacement, markers? }';
  if (!Array.isArray(value) || value.length === 0 || deleteOnly) {
    issues.push({ path, message: deleteOnly ? 'A delete-only host writes nothing, so it has no samples.' : 'samples is not a non-empty array.', expected: deleteOnly ? 'no samples' : `an array of ${expected}` });
    return undefined;
  }
  const samples: WriteSampleDeclaration[] = [];
  value.forEach((item, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(item)) {
      issues.push({ path: at, message: 'A sample is not an object.', expected });
      return;
    }
    unknownKeys(item, ['mime', 'path', 'body', 'replacement', 'markers'], at, issues);
    const before = issues.length;
    const { mime, body, replacement, markers } = item;
    if (typeof mime !== 'string' || !MIME.test(mime) || mime.includes('*') || mime !== mime.toLowerCase()) {
      issues.push({ path: `${at}.mime`, message: `${shown(mime)} is not a lowercase MIME type.`, expected: 'type/subtype, such as "application/json"' });
    } else if (!acceptsMime(accepted, mime)) {
      issues.push({ path: `${at}.mime`, message: `${shown(mime)} is not one of writes.mimes.`, expected: 'a type writes.mimes accepts' });
    }
    const template = item['path'];
    if (typeof template !== 'string' || !samplePathOk(template)) {
      issues.push({ path: `${at}.path`, message: `${shown(template)} is not a sample path.`, expected: 'a relative canonical path with "{name}" exactly once, such as "{name}/doc.json" or "{name}.vcf"' });
    }
    for (const [key, text] of [['body', body], ['replacement', replacement]] as const) {
      if (typeof text !== 'string' || text === '' || new TextEncoder().encode(text).byteLength > MAX_SAMPLE_BYTES) {
        issues.push({ path: `${at}.${key}`, message: `${key} is not non-empty text of at most ${MAX_SAMPLE_BYTES} bytes.`, expected: 'a valid object of the type, as text' });
      }
    }
    if (typeof body === 'string' && body === replacement) issues.push({ path: `${at}.replacement`, message: 'replacement is the same as body.', expected: 'a second, different object' });
    if (markers !== undefined && (!Array.isArray(markers) || markers.length !== 2 || markers.some((marker) => typeof marker !== 'string' || marker === ''))) {
      issues.push({ path: `${at}.markers`, message: 'markers is not two phrases.', expected: '[a phrase of body, a phrase of replacement]' });
    }
    if (issues.length > before) return;
    samples.push({
      mime: mime as string,
      path: template as string,
      body: body as string,
      replacement: replacement as string,
      ...(markers === undefined ? {} : { markers: [(markers as string[])[0]!, (markers as string[])[1]!] as const }),
    });
  });
  return samples;
}

// ---- helpers -----------------------------------------------------------------------------------------------

function isObject(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
  if (isObject(value)) return Object.keys(value).every((key) => isJson(value[key], depth + 1));
  return false;
}

function structuredCloneJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function unknownKeys(value: Json, allowed: readonly string[], path: string, issues: Issues): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      issues.push({ path: path === '' ? key : `${path}${member(key)}`, message: `"${key}" is not a field here.`, expected: `only ${allowed.join(', ')}` });
    }
  }
}

function member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function nonEmptyString(value: unknown, path: string, expected: string, issues: Issues): boolean {
  if (typeof value === 'string' && value.trim() !== '') return true;
  issues.push({ path, message: value === undefined ? 'It is missing.' : `${shown(value)} is not a non-empty string.`, expected });
  return false;
}

function stringValue(value: unknown, path: string, issues: Issues): void {
  if (typeof value !== 'string') issues.push({ path, message: value === undefined ? 'It is missing.' : `${shown(value)} is not a string.`, expected: 'a string (a value or a {{field}} reference)' });
}

function stringArray(value: unknown, path: string, expected: string, issues: Issues, nonEmpty: boolean): boolean {
  if (!Array.isArray(value) || (nonEmpty && value.length === 0)) {
    issues.push({ path, message: value === undefined ? 'It is missing.' : 'It is not a suitable array.', expected });
    return false;
  }
  let ok = true;
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item === '') {
      issues.push({ path: `${path}[${index}]`, message: `${shown(item)} is not a non-empty string.`, expected: 'a non-empty string' });
      ok = false;
    }
  });
  return ok;
}

function stringRecord(value: unknown, path: string, issues: Issues): boolean {
  if (!isObject(value)) {
    issues.push({ path, message: value === undefined ? 'It is missing.' : 'It is not an object.', expected: 'an object of string values' });
    return false;
  }
  let ok = true;
  for (const key of Object.keys(value)) {
    if (typeof value[key] !== 'string') {
      issues.push({ path: `${path}${member(key)}`, message: `${shown(value[key])} is not a string.`, expected: 'a string' });
      ok = false;
    }
  }
  return ok;
}

function httpUrl(value: unknown, path: string, issues: Issues): void {
  let ok = false;
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      ok = url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      ok = false;
    }
  }
  if (!ok) issues.push({ path, message: `${shown(value)} is not an http(s) URL.`, expected: 'an absolute https URL' });
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** A short rendering of a bad value for a message. */
function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a${typeof value === 'object' ? 'n object' : ` ${typeof value}`}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
