/**
 * Address paths: segments joined by `/`, each percent-encoded by the contracts' `encodeSegment`
 * (only the unreserved characters `A-Z a-z 0-9 - . _ ~` stay literal, every escape is uppercase).
 * Parsing decodes each segment and encodes it again, so `%7e`, `%7E` and `~` are one spelling and
 * `a%2fb` becomes `a%2Fb`. A decoded segment may contain `/` (it stays `%2F`); whether a host
 * accepts such a name is the host's business.
 *
 * Refused, always with the 1-based segment number: an empty segment (`//`, a leading `/`), a `.`
 * or `..` segment (also when encoded), a NUL (raw or `%00`), a `%` not followed by two hex
 * digits, escapes that are not UTF-8, a lone surrogate, a raw control character. Other raw
 * characters (space, `é`, `"`) are taken literally and encoded. In an address string a raw `?` or
 * `#` is refused, because in a URI it would start a query or fragment; in a host path it is part
 * of the name.
 */
import { InvalidUriError, encodeSegment } from '@neuralis/package-system/contracts';

export interface ParsedPath {
  /** Decoded segments; [] for the root. */
  readonly segments: readonly string[];
  /** The canonical path; '' for the root. */
  readonly path: string;
}

export interface PathGrammar {
  /** One trailing `/` is forgiven (people type `notes://docs/`). */
  readonly trailingSlash: boolean;
  /** Raw `?` and `#` are name characters (host paths) rather than refused (address strings). */
  readonly literalQueryChars: boolean;
}

export const ADDRESS_PATH: PathGrammar = { trailingSlash: true, literalQueryChars: false };
export const HOST_PATH: PathGrammar = { trailingSlash: false, literalQueryChars: true };

const PLAIN = /^[A-Za-z0-9._~-]+$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/** Parses a path in its text form. Throws `invalid_uri` saying which segment is wrong and why. */
export function parsePath(text: string, grammar: PathGrammar): ParsedPath {
  if (text === '') return { segments: [], path: '' };
  if (text.startsWith('/')) fail('The path starts with "/"; a path is relative to its host, so drop the leading "/".');
  let body = text;
  if (body.endsWith('/')) {
    if (!grammar.trailingSlash) fail('The path ends with "/"; a canonical path has no trailing "/".');
    body = body.slice(0, -1);
  }
  const segments: string[] = [];
  const canonical: string[] = [];
  body.split('/').forEach((raw, index) => {
    const [decoded, encoded] = canonicalSegment(raw, index + 1, grammar);
    segments.push(decoded);
    canonical.push(encoded);
  });
  return { segments, path: canonical.join('/') };
}

/** Checks decoded segments and builds their canonical path. Throws `invalid_uri`. */
export function pathOfSegments(segments: readonly unknown[]): ParsedPath {
  if (!Array.isArray(segments)) fail('The segments are not an array of names.');
  const checked: string[] = [];
  const canonical: string[] = [];
  segments.forEach((segment, index) => {
    const number = index + 1;
    if (typeof segment !== 'string') fail(`Segment ${number} of the path is not a string.`, number);
    if (segment === '') fail(`Segment ${number} of the path is empty.`, number);
    checkDecoded(segment, number);
    checked.push(segment);
    canonical.push(encodeChecked(segment, number));
  });
  return { segments: checked, path: canonical.join('/') };
}

function canonicalSegment(raw: string, number: number, grammar: PathGrammar): [decoded: string, encoded: string] {
  if (raw === '') fail(`Segment ${number} of the path is empty ("//"); canonical paths have no empty segments.`, number);
  if (PLAIN.test(raw)) {
    checkDecoded(raw, number);
    return [raw, raw];
  }
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0) fail(`Segment ${number} of the path contains a NUL byte.`, number);
    if (code < 0x20 || code === 0x7f) {
      const escape = `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
      fail(`Segment ${number} of the path contains a raw control character (U+00${escape.slice(1)}); write it as ${escape}.`, number);
    }
    if (code === 0x25 && !HEX.test(raw.slice(i + 1, i + 3))) {
      fail(`Segment ${number} of the path (${shown(raw)}) has a "%" not followed by two hex digits; write a literal "%" as %25.`, number);
    }
    if (!grammar.literalQueryChars && (code === 0x3f || code === 0x23)) {
      const char = raw[i]!;
      fail(`Segment ${number} of the path (${shown(raw)}) contains a raw "${char}"; an address has no query or fragment, so write it as ${char === '?' ? '%3F' : '%23'}.`, number);
    }
  }
  let decoded = raw;
  if (raw.includes('%')) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      fail(`Segment ${number} of the path (${shown(raw)}) has percent-escapes that are not valid UTF-8.`, number);
    }
  }
  checkDecoded(decoded, number);
  return [decoded, encodeChecked(decoded, number)];
}

function checkDecoded(segment: string, number: number): void {
  if (segment === '.' || segment === '..') {
    fail(`Segment ${number} of the path is "${segment}"; paths are canonical and never contain dot segments.`, number);
  }
  if (segment.includes('\0')) fail(`Segment ${number} of the path contains a NUL byte.`, number);
}

function encodeChecked(segment: string, number: number): string {
  if (PLAIN.test(segment)) return segment;
  try {
    return encodeSegment(segment);
  } catch {
    // encodeURIComponent throws URIError on a lone surrogate: the name is not valid Unicode.
    return fail(`Segment ${number} of the path contains a lone surrogate, so it is not valid Unicode text.`, number);
  }
}

function fail(message: string, segment?: number): never {
  throw new InvalidUriError(message, { details: { part: 'path', ...(segment === undefined ? {} : { segment }) } });
}

function shown(raw: string): string {
  return JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);
}
