/**
 * Network and host slugs.
 *
 * - A network slug is a DNS label: 1–63 characters, lowercase letters, digits and `-`, starting
 *   with a letter and not ending with `-`. It can therefore also name a subdomain
 *   (`home.inseam.example`) and a path segment without escaping.
 * - A host slug is a URI scheme, because the short form `{host}://{path}` uses it as one: 1–64
 *   characters, a lowercase letter, then lowercase letters, digits, `+`, `.` or `-` — the package
 *   system's source-slug rule, since a host is a source. `inseam` is reserved: it is the scheme
 *   of the global form, so `inseam://…` is never read as a short form.
 *
 * Uppercase is refused rather than folded: an address has one spelling.
 */
import { InvalidUriError } from '@neuralis/package-system/contracts';

export const NETWORK_SLUG_MAX = 63;
export const HOST_SLUG_MAX = 64;
/** The scheme of the global form; never a host slug. */
export const GLOBAL_SCHEME = 'inseam';

const NETWORK_SLUG = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HOST_SLUG = /^[a-z][a-z0-9+.-]{0,63}$/;

export function isNetworkSlug(value: unknown): value is string {
  return typeof value === 'string' && NETWORK_SLUG.test(value);
}

export function isHostSlug(value: unknown): value is string {
  return typeof value === 'string' && HOST_SLUG.test(value) && value !== GLOBAL_SCHEME;
}

/** Returns `value` when it is a network slug; throws `invalid_uri` naming the first problem. */
export function checkNetworkSlug(value: unknown): string {
  if (isNetworkSlug(value)) return value;
  throw new InvalidUriError(`The network slug ${shown(value)} is not valid: ${slugProblem(value, NETWORK_SLUG_MAX, /[a-z0-9-]/, '"-"')}`, {
    details: { part: 'network' },
  });
}

/** Returns `value` when it is a host slug; throws `invalid_uri` naming the first problem. */
export function checkHostSlug(value: unknown): string {
  if (isHostSlug(value)) return value;
  const problem =
    value === GLOBAL_SCHEME
      ? `"${GLOBAL_SCHEME}" is reserved for the global form inseam://{network}/{host}/{path}; choose another host slug.`
      : slugProblem(value, HOST_SLUG_MAX, /[a-z0-9+.-]/, '"+", "." or "-"');
  throw new InvalidUriError(`The host slug ${shown(value)} is not valid: ${problem}`, { details: { part: 'host' } });
}

function slugProblem(value: unknown, max: number, allowed: RegExp, punctuation: string): string {
  if (typeof value !== 'string') return 'it is not a string.';
  if (value === '') return 'it is empty.';
  if (value.length > max) return `it is ${value.length} characters long; at most ${max} are allowed.`;
  const first = value[0]!;
  if (!/[a-z]/.test(first)) return `it starts with ${JSON.stringify(first)}; it must start with a lowercase letter (a-z).`;
  for (const char of value) {
    if (!allowed.test(char)) return `it contains ${JSON.stringify(char)}; only lowercase letters, digits and ${punctuation} are allowed.`;
  }
  return 'it may not end with "-".';
}

function shown(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  return JSON.stringify(value.length > 70 ? `${value.slice(0, 70)}…` : value);
}
