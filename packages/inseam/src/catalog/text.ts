/**
 * What of an entry's bytes goes into the content index: UTF-8 text only. Binary content is
 * recognised by its media type before anything is read when the type says so, and otherwise by
 * its bytes: a NUL in the first 8 KiB, or bytes that are not UTF-8.
 *
 * The types below are every binary format the shared name table (`mimeFromName`) gives that no
 * extraction worker reads (archives, compressed streams, old Office formats, databases, e-books),
 * plus the image, audio, video and font families: a crawl never opens such a file. A type this
 * list does not name (`application/octet-stream`, a vendor type) is read once and sniffed.
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
  'application/x-bzip2',
  'application/x-xz',
  'application/zstd',
  'application/java-archive',
  'application/vnd.apache.parquet',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.oasis.opendocument.text',
  'application/epub+zip',
  'application/vnd.sqlite3',
  'application/x-executable',
  'application/x-sharedlib',
  'application/x-mach-binary',
  'application/vnd.microsoft.portable-executable',
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

/**
 * True when the first bytes of a content read already show it is not text (a NUL within the
 * first 8 KiB), so the read can stop there; false while they may still be text.
 */
export function sniffedBinary(head: Uint8Array): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
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
