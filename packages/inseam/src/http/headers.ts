/**
 * The HTTP headers the filesystem routes speak: Range (RFC 9110 §14), ETag, If-Match and
 * If-None-Match (§13).
 *
 * Range: one `bytes=` range — `a-b`, `a-` or `-n`. Anything else (another unit, several ranges, a
 * malformed or backwards range) is ignored, as RFC 9110 allows, and the whole object is sent.
 *
 * Etags: the `ETag` header is the JSON `etag` in double quotes (as it is when the host's own etag
 * is quoted already). `If-Match` takes one etag, quoted or bare, or `*`; a weak etag (`W/"…"`)
 * never matches a write, so it is refused; `If-None-Match` on a write takes only `*`.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

export type RangeRequest =
  | { readonly kind: 'none' }
  /** Bytes `offset` to `last` inclusive (`last` absent: to the end). */
  | { readonly kind: 'bytes'; readonly offset: number; readonly last?: number }
  /** The last `length` bytes. */
  | { readonly kind: 'suffix'; readonly length: number };

const RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

export function parseRange(header: string | undefined): RangeRequest {
  if (header === undefined) return { kind: 'none' };
  const match = RANGE.exec(header.trim());
  if (match === null) return { kind: 'none' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'none' };
  if (first === '') {
    const length = Number(last);
    return Number.isSafeInteger(length) ? { kind: 'suffix', length } : { kind: 'none' };
  }
  const offset = Number(first);
  if (!Number.isSafeInteger(offset)) return { kind: 'none' };
  if (last === '') return { kind: 'bytes', offset };
  const end = Number(last);
  if (!Number.isSafeInteger(end) || end < offset) return { kind: 'none' };
  return { kind: 'bytes', offset, last: end };
}

const ETAG_CHARS = /^[\x21\x23-\x7e]+$/;
const QUOTED = /^(W\/)?"([\x21\x23-\x7e]*)"$/;

/** The ETag header for a JSON etag, or undefined when it cannot be written as one. */
export function formatEtag(etag: string | undefined): string | undefined {
  if (etag === undefined || etag === '') return undefined;
  if (QUOTED.test(etag)) return etag;
  return ETAG_CHARS.test(etag) ? `"${etag}"` : undefined;
}

/**
 * The etag an `If-Match` header names: `'*'`, the etag, or undefined without the header. Throws
 * `invalid_argument` for a list of etags or a weak one.
 */
export function parseIfMatch(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const quoted = QUOTED.exec(value);
  if (quoted !== null) {
    if (quoted[1] !== undefined) throw new InvalidArgumentError('If-Match takes a strong etag; a weak one (W/"…") never matches a write.', { details: { argument: 'if-match' } });
    return quoted[2]!;
  }
  if (value === '' || value.includes(',') || value.includes('"') || /\s/.test(value)) {
    throw new InvalidArgumentError('If-Match takes one etag (the ETag header or the JSON etag of the object), or *.', { details: { argument: 'if-match' } });
  }
  return value;
}

/** Whether `If-None-Match` on a write asks for create-only. Throws `invalid_argument` for anything but `*`. */
export function parseIfNoneMatchWrite(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  throw new InvalidArgumentError('On a write, If-None-Match takes only * (create the object only if nothing is there).', { details: { argument: 'if-none-match' } });
}

/** Whether a GET's `If-None-Match` names the object's etag (answer 304). */
export function noneMatchHits(header: string | undefined, etag: string | undefined): boolean {
  if (header === undefined || etag === undefined) return false;
  const wanted = formatEtag(etag)?.replace(/^W\//, '');
  if (wanted === undefined) return false;
  return header.split(',').some((item) => {
    const value = item.trim();
    return value === '*' || value.replace(/^W\//, '') === wanted;
  });
}
