/**
 * Addresses on a folder source. A source URI `{source}://{path}` and a host path (the same
 * `{path}` without the scheme) both name an entry by percent-encoded segments; here they become
 * the decoded names the containment primitives take, joined by `/`.
 *
 * Beyond parseSourceUri's rules (no empty, `.` or `..` segment, no NUL, even when encoded), a
 * decoded segment may not contain `/`: `a%2F..%2Fb` is one name to the URI grammar but three to
 * the filesystem, so it is refused instead of being split.
 */
import { InvalidUriError, encodeSegment, parseSourceUri } from '@neuralis/package-system/contracts';

export interface Address {
  /** Decoded names below the root; [] is the root. */
  readonly names: readonly string[];
  /** The names joined by `/`, as resolveContained takes them ('' for the root). */
  readonly relative: string;
}

/** Parses a URI on `source`. Throws `invalid_uri` saying what is wrong. */
export function addressOfUri(uri: string, source: string): Address {
  return fromSegments(parseSourceUri(uri, source).segments);
}

// Any valid slug works: host paths are parsed with the URI grammar so both forms agree exactly.
const HOST_PATH_SCHEME = 'host://';

/**
 * Parses a host path (`docs/a%20b.md`; '' is the root). Canonical paths have no leading or
 * trailing slash. Throws `invalid_uri`.
 */
export function addressOfHostPath(path: string): Address {
  if (typeof path !== 'string') throw new InvalidUriError('A path must be a string.');
  if (path.startsWith('/')) throw new InvalidUriError('A path is relative to the host: drop the leading "/".');
  return fromSegments(parseSourceUri(HOST_PATH_SCHEME + path).segments);
}

function fromSegments(segments: readonly string[]): Address {
  segments.forEach((segment, index) => {
    if (segment.includes('/')) {
      throw new InvalidUriError(`Segment ${index + 1} of the path contains an encoded "/"; a file name cannot contain "/".`);
    }
  });
  return { names: segments, relative: segments.join('/') };
}

/** Characters encodeSegment leaves alone; most names need no work at all. */
const PLAIN_NAME = /^[A-Za-z0-9_.~-]+$/;

/** encodeSegment with a fast path for the common plain name. */
export function encodeName(name: string): string {
  return PLAIN_NAME.test(name) ? name : encodeSegment(name);
}

/** The canonical encoded path of `names` ('' for the root). */
export function encodePath(names: readonly string[]): string {
  let path = '';
  for (const name of names) path = path === '' ? encodeName(name) : `${path}/${encodeName(name)}`;
  return path;
}

/** Joins an encoded directory path and an encoded child name. */
export function childPath(directory: string, encodedName: string): string {
  return directory === '' ? encodedName : `${directory}/${encodedName}`;
}
