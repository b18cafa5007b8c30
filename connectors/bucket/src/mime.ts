/**
 * The bucket's own MIME pieces on top of the shared table (`@neuralis/package-system/contracts`).
 * An entry's `mime` comes from the key's last segment, so a listing (which carries no Content-Type
 * on S3) and a stat of the same object always agree. A read uses the object's stored Content-Type
 * when it is more specific than the guess, and sniffs an object whose type says nothing.
 */
import { UNKNOWN_MIME, mimeEssence, mimeFromName, mimeReadClass } from '@neuralis/package-system/contracts';
import type { MimeReadClass } from '@neuralis/package-system/contracts';
import { baseName } from './keys.js';

/** The MIME type the key's last segment implies, or application/octet-stream. */
export function mimeFromKey(key: string): string {
  return mimeFromName(baseName(key));
}

/** How a read returns an object: the shared classes, plus `unknown` for a type that says nothing (sniffed). */
export type ReadClass = MimeReadClass | 'unknown';

/** Types that tell nothing about the bytes; `binary/octet-stream` is what some S3 clients store. */
function saysNothing(essence: string): boolean {
  return essence === '' || essence === UNKNOWN_MIME || essence === 'binary/octet-stream';
}

export function readClassOf(mime: string): ReadClass {
  return saysNothing(mimeEssence(mime)) ? 'unknown' : mimeReadClass(mime);
}

/** The stored Content-Type when it says more than the extension does, else the guess. */
export function effectiveMime(guess: string, stored: string | undefined): string {
  if (stored === undefined || saysNothing(mimeEssence(stored))) return guess;
  return stored;
}
