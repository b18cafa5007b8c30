/**
 * The egress port: the one narrow way a connector reaches the network. A connector builds plain
 * HTTP requests to its declared origins and hands them to an `EgressPort`; the side that
 * implements the port (the egress gate) checks the origin, attaches the credential the host's
 * AuthSpec `present` names (a header, basic auth, a SigV4 signature…) and streams the answer
 * back. The connector never sees a secret and never signs anything.
 *
 * Edge cases every implementation honours:
 * - The origin of `url` must be one of the host's declared origins; anything else rejects with
 *   `EgressError` `origin_refused` and nothing is sent.
 * - Redirects are returned as they are (3xx with its `location`), never followed: the connector
 *   decides, and a followed hop could leave the declared origins.
 * - The gate owns `host`, `authorization`, `proxy-authorization`, `cookie`, and for SigV4 hosts
 *   every `x-amz-*` header: values the connector supplies for those are dropped, so a connector
 *   cannot override the credential or forge part of a signed request.
 * - Bodies stream both ways; neither side buffers a whole body. A streamed request body that the
 *   service needs a length for (S3 PUT does) comes with a `content-length` header.
 * - HTTP error statuses (4xx, 5xx) are answers, not failures: they resolve like any response.
 *   Only a request that got no answer rejects, with `EgressError`.
 */

/**
 * The HTTP methods plus the WebDAV ones (RFC 4918, RFC 3253 REPORT, RFC 5323 SEARCH), so a WebDAV
 * connector can list with PROPFIND and move with MOVE. Audit mode passes only the reads (GET,
 * HEAD, OPTIONS, PROPFIND, REPORT, SEARCH).
 */
export type EgressMethod =
  | 'GET'
  | 'HEAD'
  | 'PUT'
  | 'POST'
  | 'DELETE'
  | 'PATCH'
  | 'OPTIONS'
  | 'PROPFIND'
  | 'PROPPATCH'
  | 'MKCOL'
  | 'COPY'
  | 'MOVE'
  | 'LOCK'
  | 'UNLOCK'
  | 'REPORT'
  | 'SEARCH';

export interface EgressRequest {
  readonly method: EgressMethod;
  /**
   * Absolute `http:` or `https:` URL. Path and query are sent exactly as written, so encode them
   * first (percent-encode each path segment); the port does not normalise them.
   */
  readonly url: string;
  /** Header names are case-insensitive. See the module comment for the names the gate owns. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: ReadableStream<Uint8Array> | Uint8Array;
  /** Aborting rejects the pending call with `EgressError` `aborted` and cancels both bodies. */
  readonly signal?: AbortSignal;
}

export interface EgressResponse {
  readonly status: number;
  /** Lower-case header names; a repeated header's values are joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The response body, or null when there is none (HEAD, 204, 304). The caller reads it to the
   * end or cancels it; an unread body holds a connection.
   */
  readonly body: ReadableStream<Uint8Array> | null;
}

/**
 * Why a request got no answer.
 * - `unreachable`: no connection could be made (refused, DNS failure, reset before an answer).
 * - `timeout`: the connection or the answer's headers took too long.
 * - `origin_refused`: the URL's origin is not one of the host's declared origins.
 * - `credential_missing`: the host's AuthSpec needs a credential that is not stored.
 * - `aborted`: the request's signal fired.
 * - `invalid_request`: the request itself is malformed (not an absolute http(s) URL, a header
 *   value with a line break).
 */
export type EgressFailure = 'unreachable' | 'timeout' | 'origin_refused' | 'credential_missing' | 'aborted' | 'invalid_request';

export const EGRESS_FAILURES = [
  'unreachable',
  'timeout',
  'origin_refused',
  'credential_missing',
  'aborted',
  'invalid_request',
] as const satisfies readonly EgressFailure[];

/**
 * The one rejection an `EgressPort` uses. The message names the origin and the failure, never a
 * credential, a header value or a request body.
 */
export class EgressError extends Error {
  readonly failure: EgressFailure;
  /** The request's origin (scheme, host and port), or '' when the URL could not be parsed. */
  readonly origin: string;

  constructor(failure: EgressFailure, origin: string, message: string) {
    super(message);
    this.name = 'EgressError';
    this.failure = failure;
    this.origin = origin;
  }
}

export function isEgressError(value: unknown): value is EgressError {
  return value instanceof EgressError;
}

export interface EgressPort {
  /**
   * Sends one request through the gate. Resolves with the answer, whatever its status; rejects
   * only with `EgressError` (see EgressFailure) when no answer came.
   */
  fetch(request: EgressRequest): Promise<EgressResponse>;
}
