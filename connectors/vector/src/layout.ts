/**
 * How the vector source lays the index out as files:
 *
 *   vector://                         one folder per host of the network that has records
 *   vector://notes/                   that host's folders, as on the host itself
 *   vector://notes/docs/plan.md       one file per indexed entry: its records, as JSON
 *
 * so the address of an entry's record is the vector source's scheme, the entry's host slug, then
 * the entry's path on its host exactly — `underlyingEntry` maps one back, which is how a caller
 * checks the entry's own host before showing anything of it (docs/search.md).
 */
import { InvalidArgumentError, InvalidUriError, encodeSegment, parseSourceUri } from '@neuralis/package-system/contracts';

/** A place in the vector source: the root, a host's folder, or a path under a host (a file or a folder). */
export type VectorLocation = { readonly kind: 'root' } | { readonly kind: 'host'; readonly host: string } | { readonly kind: 'path'; readonly host: string; readonly path: string };

/** Parses a URI of the source. Throws `invalid_uri` (another source, dot segments, NUL, bad escapes). */
export function locate(uri: string, source: string): VectorLocation {
  const { segments } = parseSourceUri(uri, source);
  if (segments.length === 0) return { kind: 'root' };
  const [host, ...rest] = segments as [string, ...string[]];
  if (!/^[a-z][a-z0-9+.-]*$/.test(host)) throw new InvalidUriError('The first segment of a vector address is a host slug (a lowercase letter, then a-z, 0-9, "+", "." or "-").');
  if (rest.length === 0) return { kind: 'host', host };
  return { kind: 'path', host, path: rest.map(encodeSegment).join('/') };
}

/**
 * The entry a vector address stands for — its host slug and canonical path — or null for the root
 * and a host's folder. Throws `invalid_uri` as `locate` does.
 */
export function underlyingEntry(uri: string, source: string): { readonly host: string; readonly path: string } | null {
  const location = locate(uri, source);
  return location.kind === 'path' ? { host: location.host, path: location.path } : null;
}

/** The URI of `path` (canonical) under `host`. */
export function pathUri(source: string, host: string, path: string): string {
  return `${source}://${host}/${path}`;
}

export function hostUri(source: string, host: string): string {
  return `${source}://${host}`;
}

/** The decoded name of a canonical segment. */
export function segmentName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Sorts after every path that starts with `folder/`, for keyset paging past a folder. */
export function pastFolder(folderPath: string): string {
  return `${folderPath}/\u{10FFFF}`;
}

interface CursorBody {
  /** The listing's folder: '' the root, `host` or `host/path`. */
  readonly d: string;
  /** The last name (root: host slug; else the last child's canonical path) listed. */
  readonly a: string;
}

const CURSOR_PREFIX = 'vc1.';

export function encodeCursor(folder: string, after: string): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify({ d: folder, a: after } satisfies CursorBody)).toString('base64url');
}

/** The `after` of a cursor this listing issued. Throws `invalid_argument` for any other string. */
export function decodeCursor(cursor: string, folder: string): string {
  const refuse = (): never => {
    throw new InvalidArgumentError('The cursor was not issued by this listing of this folder; start again without it.', { details: { argument: 'cursor' } });
  };
  if (typeof cursor !== 'string' || !cursor.startsWith(CURSOR_PREFIX)) refuse();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    refuse();
  }
  const { d, a } = (body ?? {}) as Partial<CursorBody>;
  if (d !== folder || typeof a !== 'string' || a === '') refuse();
  return a as string;
}
