/**
 * The `exchange` acquisition: one HTTP request built from the host's stored fields
 * (`{{fieldName}}` templates, see template.ts) whose JSON answer yields the values `present`
 * uses. `extract` maps each value's name to a JSON path (json-path.ts); every value must be a
 * string or a finite number (kept as its decimal text).
 *
 * Expiry: `expiresIn` is a number of seconds, a string of digits (seconds), or a JSON path to a
 * number of seconds (or a string of digits); `expiresAt` is a JSON path to an RFC 3339 / ISO 8601
 * date-time or to epoch seconds. With both, the earlier wins; with neither, the values are
 * used until a `renewOn` status. Values are renewed a minute before they expire.
 *
 * The answer must be a 2xx JSON object; redirects are not followed. 401 and 403 mean the stored
 * fields were refused (`invalid_config`); other failures are `unavailable`. No message quotes
 * the request or the answer.
 */
import type { ExchangeAcquire } from '@inseam/connector';
import { InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';
import type { ExchangeGrant } from './host-record.js';
import { readJson, send } from './http.js';
import type { HttpPolicy } from './http.js';
import { parseJsonPath, selectJsonPath } from './json-path.js';
import { renderHeader, renderJson, renderTemplate, renderUrl } from './template.js';

function extracted(document: unknown, path: string, where: string): unknown {
  return selectJsonPath(document, parseJsonPath(path, where));
}

function secondsFrom(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) && Number(value) > 0) return Number(value);
  return undefined;
}

function expiryOf(acquire: ExchangeAcquire, document: unknown, now: number, origin: string): number | undefined {
  const candidates: number[] = [];
  if (acquire.expiresIn !== undefined) {
    const literal = typeof acquire.expiresIn === 'number' ? acquire.expiresIn : /^\d+$/.test(acquire.expiresIn) ? Number(acquire.expiresIn) : undefined;
    const seconds = literal ?? secondsFrom(extracted(document, acquire.expiresIn as string, 'auth.acquire.expiresIn'));
    if (seconds === undefined) throw missingValue(origin, 'expiresIn');
    candidates.push(now + seconds * 1000);
  }
  if (acquire.expiresAt !== undefined) {
    const value = extracted(document, acquire.expiresAt, 'auth.acquire.expiresAt');
    const at = typeof value === 'number' && Number.isFinite(value) ? value * 1000 : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(at)) throw missingValue(origin, 'expiresAt');
    candidates.push(at);
  }
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}

function missingValue(origin: string, name: string): InvalidConfigError {
  return new InvalidConfigError(`The exchange answer from ${origin} has no usable value for "${name}" at the declared JSON path; check auth.acquire.`, {
    details: { origin, reason: 'exchange_extract', value: name },
  });
}

/**
 * Runs the exchange with `fields` and returns the values and their expiry (not yet stored).
 * `acquire` must have passed `exchangeAcquire` (origin declared, https).
 */
export async function runExchange(acquire: ExchangeAcquire, spec: string, fields: Readonly<Record<string, string>>, policy: HttpPolicy, now: () => number): Promise<ExchangeGrant> {
  const { request } = acquire;
  const url = new URL(renderUrl(request.url, fields));
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = renderHeader(name, value, fields);
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(renderJson(request.json, fields));
    headers['content-type'] = 'application/json';
  } else if (request.form !== undefined) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(request.form)) form.set(name, renderTemplate(value, fields));
    body = form.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await send(policy, url, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      throw new InvalidConfigError(`The exchange endpoint ${url.origin} refused the stored credential (HTTP ${response.status}); check the host's fields.`, {
        details: { origin: url.origin, reason: 'exchange_refused', status: response.status },
      });
    }
    throw new UnavailableError(`The exchange endpoint ${url.origin} answered HTTP ${response.status}; retry later.`, { details: { origin: url.origin, reason: 'exchange_failed', status: response.status } });
  }
  const document = await readJson(response, url.origin);
  const tokens: Record<string, string> = {};
  for (const [name, path] of Object.entries(acquire.extract)) {
    const value = extracted(document, path, `auth.acquire.extract.${name}`);
    if (typeof value === 'string' && value !== '') tokens[name] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) tokens[name] = String(value);
    else throw missingValue(url.origin, name);
  }
  const expiresAt = expiryOf(acquire, document, now(), url.origin);
  return { spec, tokens, ...(expiresAt === undefined ? {} : { expiresAt }) };
}
