/**
 * Source URIs: `{source}://{path}`, the address form every ConnectorPort method takes. `{path}` is
 * canonical: segments joined by `/`, each percent-encoded, no empty, `.` or `..` segment after
 * decoding, no NUL. The root is `{source}://`.
 */
import { InvalidUriError } from './errors.js';

export interface SourceUri {
  readonly source: string;
  /** Decoded segments; [] for the root. */
  readonly segments: readonly string[];
}

const SLUG = /^[a-z][a-z0-9+.-]*$/;

/** Parses a source URI and checks it names `expectedSource`. Throws `invalid_uri`, saying what is wrong. */
export function parseSourceUri(uri: string, expectedSource?: string): SourceUri {
  if (typeof uri !== 'string') throw new InvalidUriError('A URI must be a string.');
  const schemeEnd = uri.indexOf('://');
  if (schemeEnd <= 0) throw new InvalidUriError('A source URI has the form {source}://{path}; the "://" is missing.');
  const source = uri.slice(0, schemeEnd);
  if (!SLUG.test(source)) {
    throw new InvalidUriError('The source slug must start with a lowercase letter and use only a-z, 0-9, "+", "." or "-".');
  }
  if (expectedSource !== undefined && source !== expectedSource) {
    throw new InvalidUriError(`This connector is bound to source "${expectedSource}", not "${source}".`);
  }
  const rest = uri.slice(schemeEnd + 3).replace(/\/+$/, '');
  if (rest === '') return { source, segments: [] };
  const segments = rest.split('/').map((raw, index) => decodeSegment(raw, index));
  return { source, segments };
}

function decodeSegment(raw: string, index: number): string {
  if (raw === '') throw new InvalidUriError(`Segment ${index + 1} of the path is empty ("//").`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new InvalidUriError(`Segment ${index + 1} of the path has a malformed percent-escape.`);
  }
  if (decoded === '.' || decoded === '..') {
    throw new InvalidUriError(`Segment ${index + 1} of the path is "${decoded}"; paths are canonical and never contain dot segments.`);
  }
  if (decoded.includes('\0')) throw new InvalidUriError(`Segment ${index + 1} of the path contains a NUL byte.`);
  return decoded;
}

/** Encodes one segment: everything but unreserved characters is percent-encoded. */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Formats decoded segments as a canonical source URI. */
export function formatSourceUri(source: string, segments: readonly string[]): string {
  return `${source}://${segments.map(encodeSegment).join('/')}`;
}
