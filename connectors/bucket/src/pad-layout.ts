/**
 * How the pad lays keys out on disk. Each key segment becomes one directory entry:
 *
 *   key "a"      →  a.o               (a file: header + content)
 *   key "a/b"    →  a.d/b.o           (a.d is the folder of every key starting "a/")
 *
 * so an object `a` and an object `a/b` coexist, as in S3. A segment's name is encoded so that any
 * segment is safe on any filesystem, including case-insensitive and normalising ones (APFS, NTFS):
 * `a-z 0-9 _ - .` stay as they are, every other byte of its UTF-8 (upper case letters included)
 * becomes `%XX`, and a leading `.` becomes `%2E` — names starting with `.` are the pad's own (temp
 * files, `.seg`). Two different segments therefore never map to names that differ only in case
 * or normalisation. An encoded name longer than 240 bytes is replaced by `~` + the SHA-256 of the
 * segment; the segment itself is then kept in the object's header, or in a `.seg` file inside
 * the folder.
 *
 * Because folders sort as their segment plus `/`, reading each directory in order of those sort
 * keys walks the pad in exactly S3's key order.
 */
import { createHash } from 'node:crypto';

export type PadEntryKind = 'object' | 'folder';

const OBJECT_SUFFIX = '.o';
const FOLDER_SUFFIX = '.d';
const MAX_ENCODED_BYTES = 240;
/** The file inside a hashed folder that holds its real segment. */
export const SEGMENT_FILE = '.seg';

/** The directory-entry name for a segment. */
export function entryName(segment: string, kind: PadEntryKind): string {
  const encoded = encodeSegmentName(segment);
  const base = encoded.length <= MAX_ENCODED_BYTES ? encoded : `~${createHash('sha256').update(segment).digest('hex')}`;
  return base + (kind === 'object' ? OBJECT_SUFFIX : FOLDER_SUFFIX);
}

/** True when entryName had to hash the segment (so the segment is stored beside it). */
export function isHashedName(name: string): boolean {
  return name.startsWith('~');
}

/** The pad-relative path of an object's file. */
export function objectPath(segments: readonly string[]): string {
  return segments.map((segment, index) => entryName(segment, index === segments.length - 1 ? 'object' : 'folder')).join('/');
}

/** The pad-relative path of a folder ('' for the root). */
export function folderPath(segments: readonly string[]): string {
  return segments.map((segment) => entryName(segment, 'folder')).join('/');
}

export interface ParsedEntryName {
  readonly kind: PadEntryKind;
  /** The decoded segment; undefined for a hashed name (read it from the header or `.seg`). */
  readonly segment: string | undefined;
}

/** Reads a directory-entry name back; undefined for names the pad did not make (or its own dot files). */
export function parseEntryName(name: string): ParsedEntryName | undefined {
  if (name.startsWith('.')) return undefined;
  const kind: PadEntryKind | undefined = name.endsWith(OBJECT_SUFFIX) ? 'object' : name.endsWith(FOLDER_SUFFIX) ? 'folder' : undefined;
  if (kind === undefined) return undefined;
  const base = name.slice(0, -2);
  if (isHashedName(base)) return /^~[0-9a-f]{64}$/.test(base) ? { kind, segment: undefined } : undefined;
  const segment = decodeSegmentName(base);
  // Only the canonical spelling counts, so no two names on disk can mean the same key.
  if (segment === undefined || base.length > MAX_ENCODED_BYTES || encodeSegmentName(segment) !== base) return undefined;
  return { kind, segment };
}

export function encodeSegmentName(segment: string): string {
  let out = '';
  const bytes = Buffer.from(segment, 'utf8');
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!;
    const plain =
      (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d || (byte === 0x2e && index > 0);
    out += plain ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function decodeSegmentName(name: string): string | undefined {
  if (name === '' || !/^(?:[a-z0-9_.-]|%[0-9A-F]{2})+$/.test(name)) return undefined;
  const bytes: number[] = [];
  for (let index = 0; index < name.length; ) {
    if (name[index] === '%') {
      bytes.push(Number.parseInt(name.slice(index + 1, index + 3), 16));
      index += 3;
    } else {
      bytes.push(name.charCodeAt(index));
      index += 1;
    }
  }
  const decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoded.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/** Temp files: dot names the listing skips. */
export function tempName(random: string): string {
  return `.${random}.tmp`;
}

/** Temp files (`.x.tmp`) and the staging folders hashed folders are born in (`.x.tmpdir`). */
export function isTempName(name: string): boolean {
  return name.startsWith('.') && (name.endsWith('.tmp') || name.endsWith('.tmpdir'));
}
