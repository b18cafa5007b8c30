/**
 * What of an entry's bytes goes into the content index: UTF-8 text only. Binary content is
 * recognised by its media type before anything is read when the type says so, and otherwise by
 * its bytes: a NUL in the first 8 KiB, or bytes that are not UTF-8.
 */

const BINARY_TYPES = new Set([
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/x-7z-compressed',
  'application/vnd.rar',
  'application/wasm',
]);
const BINARY_FAMILIES = ['image/', 'audio/', 'video/', 'font/'];
// Text that lives under a binary family.
const TEXT_EXCEPTIONS = new Set(['image/svg+xml']);
const SNIFF_BYTES = 8192;

/** True when the media type alone says the content is not text (parameters such as charset are ignored). */
export function isBinaryMime(mime: string | undefined | null): boolean {
  if (mime === undefined || mime === null) return false;
  const type = mime.split(';', 1)[0]!.trim().toLowerCase();
  if (TEXT_EXCEPTIONS.has(type)) return false;
  return BINARY_TYPES.has(type) || BINARY_FAMILIES.some((family) => type.startsWith(family));
}

/** The text of `bytes` (a leading byte-order mark dropped), or null when they are not UTF-8 text. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
