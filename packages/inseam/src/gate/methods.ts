/**
 * Method rules. Methods are upper-cased before any check, so `get` is `GET`.
 *
 * Read methods — the only ones audit mode lets through: GET, HEAD, OPTIONS, and the WebDAV
 * reads PROPFIND, REPORT and SEARCH. Everything else (POST, PUT, PATCH, DELETE, and WebDAV
 * writes such as MKCOL, COPY, MOVE, LOCK, PROPPATCH) is a write. A read API that uses POST (a
 * search endpoint, GraphQL) is a write to the gate — audit mode cannot tell it from one that
 * changes data — unless the connector declares that exact origin and path in
 * `auth.readEndpoints` (gate.ts checks those).
 *
 * Never sent, in any mode: TRACE and TRACK (they reflect request headers, credential included)
 * and CONNECT (a tunnel would escape every check).
 *
 * Audit mode also refuses a read that asks the server to treat it as another method: the
 * `X-HTTP-Method-Override`, `X-Method-Override` and `X-HTTP-Method` headers (any case), which
 * many servers and frameworks honour on any method, and a `_method` query parameter (Rails,
 * Laravel, Symfony and Express's method-override read it, on POST by default — but a server
 * configured otherwise, or written by hand, reads it on GET, and no read needs it).
 */

export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT', 'SEARCH']);

export const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['TRACE', 'TRACK', 'CONNECT']);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isMethodToken(method: string): boolean {
  return TOKEN.test(method);
}

export const METHOD_OVERRIDE_HEADERS: ReadonlySet<string> = new Set(['x-http-method-override', 'x-method-override', 'x-http-method']);

/** The method-override header (lower case) or `_method` parameter a request carries, if any. */
export function methodOverrideIn(url: URL, headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of Object.keys(headers)) if (METHOD_OVERRIDE_HEADERS.has(name.toLowerCase())) return name.toLowerCase();
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    const raw = pair.split('=')[0] ?? '';
    let name = raw;
    try {
      name = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      // A malformed escape is compared as written.
    }
    if (name.trim().toLowerCase() === '_method') return '_method';
  }
  return undefined;
}
