/**
 * Keys and paths. A bucket is flat: an object is named by its key, and `/` only means something
 * when listing by folder. The ConnectorPort face uses keys relative to the configured prefix. The
 * host face's `Entry.path` is the canonical address path (see docs/scope.md, "Addresses"): the
 * same key with each `/`-separated segment percent-encoded, so `a b/c%d` is `a%20b/c%25d` and
 * every object has exactly one spelling. Keys that cannot be a canonical path — an empty segment
 * (`a//b`, a leading or trailing `/`), a `.` or `..` segment, a NUL — are not addressable:
 * listings leave them out, and every operation refuses them.
 */
import { InvalidArgumentError, InvalidPathError, encodeSegment } from '@neuralis/package-system/contracts';
import { MAX_KEY_BYTES } from './config.js';

/** True when `key` can be a canonical path (see the module comment). */
export function isAddressableKey(key: string): boolean {
  if (key === '' || key.includes('\0')) return false;
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return false;
  }
  return true;
}

/**
 * Checks a host path (a relative key) before it reaches a store.
 * Throws `invalid_path`: not a string, empty, an empty/`.`/`..` segment, a NUL byte, or longer
 * than S3's 1024-byte key limit once `prefix` is added.
 */
export function checkObjectPath(path: unknown, prefix: string): string {
  if (typeof path !== 'string' || path === '') {
    throw new InvalidPathError('An object path must be a non-empty string such as "reports/2024.csv".', { details: { reason: 'empty' } });
  }
  if (!isAddressableKey(path)) {
    throw new InvalidPathError(
      'An object path may not start or end with "/", contain "//", a "." or ".." segment, or a NUL byte.',
      { details: { reason: 'not_canonical' } },
    );
  }
  if (Buffer.byteLength(prefix) + Buffer.byteLength(path) > MAX_KEY_BYTES) {
    throw new InvalidPathError(`An object key may be at most ${MAX_KEY_BYTES} bytes of UTF-8, the configured prefix included.`, {
      details: { reason: 'too_long' },
    });
  }
  return path;
}

/**
 * Orders keys by their UTF-8 bytes, the order S3 lists in. JavaScript's `<` compares UTF-16 code
 * units, which puts astral characters (surrogates) before U+E000–U+FFFF; UTF-8 puts them after.
 */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** The last segment of a key. */
export function baseName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/** The host path (canonical, per-segment encoded) of an addressable key. */
export function hostPathOfKey(key: string): string {
  return key.split('/').map(encodeSegment).join('/');
}

/**
 * The key a host path names. Throws `invalid_path` for a malformed percent-escape or a segment
 * that decodes to a `/` (a key segment never contains one); the result still goes through
 * checkObjectPath.
 */
export function keyOfHostPath(path: unknown): string {
  if (typeof path !== 'string') return checkObjectPath(path, '');
  return path.split('/').map((segment, index) => decodeSegment(segment, index, () => new InvalidPathError(
    `Segment ${index + 1} of the object path is not canonical: it has a malformed percent-escape or an encoded "/".`,
    { details: { reason: 'not_canonical' } },
  ))).join('/');
}

/** The key prefix a host `list({ prefix })` names; the prefix is a string prefix of host paths. */
export function keyPrefixOfHostPrefix(prefix: string): string {
  const invalid = () => new InvalidArgumentError('prefix must be a prefix of canonical (percent-encoded) paths.', { details: { argument: 'prefix' } });
  const cut = /%[0-9A-Fa-f]?$/.exec(prefix);
  if (cut !== null) throw invalid();
  return prefix.split('/').map((segment, index) => decodeSegment(segment, index, invalid)).join('/');
}

function decodeSegment(segment: string, _index: number, invalid: () => Error): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw invalid();
  }
  if (decoded.includes('/')) throw invalid();
  return decoded;
}
