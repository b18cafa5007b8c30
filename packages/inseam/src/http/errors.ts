/**
 * Errors on the wire. Every error answer is JSON:
 *
 *   { "error": { "code": "<a code of docs/errors.md>", "message": "…", "details": { … } } }
 *
 * with the HTTP status its code maps to (HTTP_STATUS; docs/http.md has the table). Three codes
 * exist only on the wire: `unauthenticated` (401: no, a malformed, an unknown, a revoked or an
 * expired token), `unsupported_media_type` (415: a body of a type the route does not take) and
 * `internal` (500: a bug; the cause is logged with the request id, never sent).
 *
 * Every refusal takes this form — the server's own, Fastify's (routing, body parsing, validation)
 * and Node's HTTP parser's (clientErrorAnswer) — and none repeats the URL, a header or the body,
 * any of which may carry a secret.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, isConnectorError, type ErrorCode, type ErrorDetails } from '@neuralis/package-system/contracts';

/** The codes only the HTTP surface answers with. */
export const HTTP_ONLY_CODES = ['unauthenticated', 'unsupported_media_type', 'internal'] as const;
export type HttpOnlyCode = (typeof HTTP_ONLY_CODES)[number];
export type WireCode = ErrorCode | HttpOnlyCode;

/** Every error code's HTTP status. */
export const HTTP_STATUS: Readonly<Record<WireCode, number>> = Object.freeze({
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  not_a_directory: 409,
  is_a_directory: 409,
  precondition_failed: 412,
  unsupported: 501,
  invalid_uri: 400,
  invalid_path: 400,
  invalid_argument: 400,
  invalid_config: 400,
  containment_violation: 403,
  unsupported_file_type: 415,
  unavailable: 503,
  rate_limited: 429,
  timeout: 504,
  too_large: 413,
  capability_mismatch: 502,
  os_uri_unresolvable: 422,
  manifest_invalid: 400,
  trust_violation: 403,
  port_version_unsupported: 502,
  binding_conflict: 409,
  kind_not_registered: 400,
  orphan_source: 409,
  connector_failed: 502,
  egress_refused: 502,
  sandbox_limit: 502,
  description_invalid: 400,
  scope_invalid: 400,
  store_damaged: 503,
  document_unreadable: 422,
  unauthenticated: 401,
  unsupported_media_type: 415,
  internal: 500,
});

export interface ErrorBody {
  readonly error: { readonly code: WireCode; readonly message: string; readonly details: ErrorDetails };
}

/** An error the HTTP layer itself raises, with a status of its own when it differs from its code's. */
export class HttpError extends Error {
  readonly code: WireCode;
  readonly status: number;
  readonly details: ErrorDetails;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: WireCode, message: string, options: { readonly status?: number; readonly details?: ErrorDetails; readonly headers?: Readonly<Record<string, string>> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = options.status ?? HTTP_STATUS[code];
    this.details = Object.freeze({ ...(options.details ?? {}) });
    this.headers = options.headers ?? {};
  }
}

/** The 401 every unauthenticated call gets; `WWW-Authenticate` tells the client how to authenticate. */
export function unauthenticated(message: string, reason: string): HttpError {
  return new HttpError('unauthenticated', message, { details: { reason }, headers: { 'www-authenticate': `Bearer realm="inseam", error="invalid_token"` } });
}

interface Rendered {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
  /** True for a bug: log it. */
  readonly unexpected: boolean;
}

/** Turns anything thrown in a handler into the answer to send. Never puts an untyped error's message on the wire. */
export function renderError(error: unknown, requestId: string): Rendered {
  if (error instanceof HttpError) return { status: error.status, body: body(error.code, error.message, error.details), headers: error.headers, unexpected: false };
  if (isConnectorError(error)) {
    const code = (ERROR_CODES as readonly string[]).includes(error.code) ? error.code : 'internal';
    return { status: HTTP_STATUS[code], body: body(code, error.message, error.details), headers: retryAfter(code, error.details), unexpected: code === 'internal' };
  }
  const fastify = error as Partial<FastifyError> & { validationContext?: string };
  if (Array.isArray(fastify.validation)) {
    const first = fastify.validation[0];
    const where = `${fastify.validationContext ?? 'request'}${first?.instancePath ?? ''}`.replace(/\//g, '.');
    const missing = (first?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
    const extra = (first?.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
    const argument = typeof missing === 'string' ? `${where}.${missing}` : typeof extra === 'string' ? `${where}.${extra}` : where;
    const message =
      typeof extra === 'string'
        ? `${where} has an unknown field "${extra}"; check its spelling against the OpenAPI description (/v1/openapi.json).`
        : first?.keyword === 'pattern'
          ? // Ajv's message shows the regular expression; the OpenAPI description says the form in words.
            `${where} is not in the form it takes; see its description in /v1/openapi.json.`
          : `${where} ${first?.message ?? 'is invalid'}.`;
    return { status: 400, body: body('invalid_argument', message, { argument }), headers: {}, unexpected: false };
  }
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500 && typeof fastify.code === 'string' && fastify.code.startsWith('FST_')) {
    // Fastify's own messages repeat the URL or the media type the client sent: each gets one of ours.
    const known = FASTIFY_REFUSALS[fastify.code];
    if (known !== undefined) return { status: known.status ?? HTTP_STATUS[known.code], body: body(known.code, known.message, known.details), headers: {}, unexpected: false };
    return { status: fastify.statusCode, body: body('invalid_argument', 'The request is malformed.', { reason: fastify.code.toLowerCase() }), headers: {}, unexpected: false };
  }
  return {
    status: 500,
    body: body('internal', `An unexpected error occurred; it was logged as request ${requestId}. Please report it.`, { requestId }),
    headers: {},
    unexpected: true,
  };
}

interface Refusal {
  readonly code: WireCode;
  readonly status?: number;
  readonly message: string;
  readonly details: ErrorDetails;
}

/** Fastify's refusals before a handler runs, by its error code. */
const FASTIFY_REFUSALS: Readonly<Record<string, Refusal>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'too_large', message: 'The request body is larger than this route accepts.', details: { reason: 'body_too_large' } },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'This route takes a JSON body: send it with `Content-Type: application/json`.',
    details: { argument: 'content-type', accepted: ['application/json'] },
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_argument', message: 'The body is empty; send a JSON object.', details: { argument: 'body', reason: 'empty_json_body' } },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_argument', message: 'The body is not as long as its Content-Length says.', details: { argument: 'content-length', reason: 'content_length_mismatch' } },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'too_large', status: 414, message: 'A part of the URL\'s path is longer than the server accepts (100 characters).', details: { reason: 'path_parameter_too_long' } },
  FST_ERR_BAD_URL: { code: 'invalid_argument', message: 'The URL\'s path is malformed (a broken percent-encoding).', details: { reason: 'bad_url' } },
};

/** The bytes of a whole HTTP answer to a request Node's parser refused (Fastify's `clientErrorHandler`): the envelope, then the connection closes. */
export function clientErrorAnswer(error: { readonly code?: unknown }): string {
  const refusal: Refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? { code: 'too_large', status: 431, message: 'The request line and headers are larger than the server accepts (16 KiB); send long values in a body.', details: { reason: 'headers_too_large' } }
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { code: 'timeout', status: 408, message: 'The request did not arrive in time.', details: { reason: 'request_timeout' } }
        : { code: 'invalid_argument', message: 'The request is not valid HTTP/1.1.', details: { reason: 'malformed_request' } };
  const status = refusal.status ?? HTTP_STATUS[refusal.code];
  const text = JSON.stringify(body(refusal.code, refusal.message, refusal.details));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/** Fastify's error handler: logs bugs, answers the JSON error. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const rendered = renderError(error, request.id);
  if (rendered.unexpected) request.log.error({ err: error }, 'unexpected error');
  return reply.status(rendered.status).headers(rendered.headers).type('application/json; charset=utf-8').send(rendered.body);
}

function body(code: WireCode, message: string, details: ErrorDetails): ErrorBody {
  return { error: { code, message, details } };
}

/** A rate limit without a known delay: the client waits this long (seconds). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * `Retry-After` in whole seconds: the error's `retryAfterMs` when it knows it (429 and 503), else
 * DEFAULT_RETRY_AFTER_SECONDS for a 429, which always carries one.
 */
function retryAfter(code: WireCode, details: ErrorDetails): Record<string, string> {
  const ms = details['retryAfterMs'];
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
  return code === 'rate_limited' ? { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) } : {};
}
