/**
 * Method rules. Methods are upper-cased before any check, so `get` is `GET`.
 *
 * Read methods — the only ones audit mode lets through: GET, HEAD, OPTIONS, and the WebDAV
 * reads PROPFIND, REPORT and SEARCH. Everything else (POST, PUT, PATCH, DELETE, and WebDAV
 * writes such as MKCOL, COPY, MOVE, LOCK, PROPPATCH) is a write. A read API that uses POST (a
 * search endpoint, GraphQL) is a write to the gate: audit mode cannot tell it from one that
 * changes data.
 *
 * Never sent, in any mode: TRACE and TRACK (they reflect request headers, credential included)
 * and CONNECT (a tunnel would escape every check).
 */

export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT', 'SEARCH']);

export const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['TRACE', 'TRACK', 'CONNECT']);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isMethodToken(method: string): boolean {
  return TOKEN.test(method);
}
