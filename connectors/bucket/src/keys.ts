/**
 * Keys and paths. A bucket is flat: an object is named by its key, and `/` only means something
 * when listing by folder. A host path is the object's key relative to the configured prefix,
 * exactly (no encoding). Keys that cannot be a canonical path — an empty segment (`a//b`, a
 * leading or trailing `/`), a `.` or `..` segment, a NUL — are not addressable: listings leave them
 * out, and every operation refuses them.
 */
import { InvalidPathError } from '@neuralis/package-system/contracts';
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
