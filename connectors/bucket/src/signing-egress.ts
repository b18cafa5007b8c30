/**
 * INTERIM GATE SIDE. The platform-side implementation of `EgressPort` for SigV4 hosts, used until
 * the egress gate (packages/inseam/src/gate) exists; the gate replaces it. It belongs to the
 * platform, not to the connector: it holds the credential, the connector only ever holds the
 * port.
 *
 * What it does with each request:
 * - refuses a URL whose origin is not declared (`origin_refused`, nothing sent) and never follows
 *   a redirect;
 * - drops the headers the gate owns (`host`, `authorization`, `proxy-authorization`, `cookie`,
 *   every `x-amz-*`), so the connector cannot forge part of the signature;
 * - signs with SigV4 (`@smithy/signature-v4`): a byte body is hashed, a streamed body is sent as
 *   UNSIGNED-PAYLOAD with the connector's `content-length` (TLS protects it in transit; S3 still
 *   checks `content-md5` when given);
 * - sends with undici 7 through its own connection pool, streaming both bodies;
 * - rejects only with `EgressError`, whose message names the origin and the failure — never a
 *   credential, a header value or the system error (a credential can reach neither a message
 *   nor a `cause`).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import { EgressError } from '@inseam/connector';
import type { EgressPort, EgressRequest, EgressResponse } from '@inseam/connector';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Supplies the credential per request (so a rotated key takes effect); null when none is stored. */
export type AwsCredentialSource = () => Promise<AwsCredentials | null>;

export interface SigningEgressOptions {
  /** Origins (`scheme://host[:port]`) requests may go to. */
  readonly origins: readonly string[];
  readonly region: string;
  /** SigV4 service name. Default `s3`. */
  readonly service?: string;
  readonly credentials: AwsCredentialSource;
  /** Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Time allowed for the answer's headers after the request is sent. Default 300 s. */
  readonly headersTimeoutMs?: number;
  /** Longest silence while a body streams. Default 300 s. */
  readonly bodyTimeoutMs?: number;
  /** Where requests are sent (a proxy agent, say). Default: a pool of its own, closed by close(). */
  readonly dispatcher?: Dispatcher;
  /** The signing clock. Default: the system clock. */
  readonly now?: () => Date;
}

const GATE_OWNED_HEADERS = new Set(['host', 'authorization', 'proxy-authorization', 'cookie']);
/** Hop-by-hop headers undici manages itself and refuses from callers. */
// undici and the signer load with the first bucket egress, not with every process that loads
// this package (every inseam command loads the built-in kinds' packages).
const requireModule = createRequire(import.meta.url);
let undiciLoaded: typeof import('undici') | undefined;
function undici(): typeof import('undici') {
  undiciLoaded ??= requireModule('undici') as typeof import('undici');
  return undiciLoaded;
}

const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export class SigningEgress implements EgressPort {
  private readonly origins: ReadonlySet<string>;
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent: Agent | undefined;

  constructor(private readonly options: SigningEgressOptions) {
    this.origins = new Set(options.origins.map((origin) => new URL(origin).origin));
    this.ownAgent =
      options.dispatcher === undefined
        ? new (undici().Agent)({
            connectTimeout: options.connectTimeoutMs ?? 10_000,
            headersTimeout: options.headersTimeoutMs ?? 300_000,
            bodyTimeout: options.bodyTimeoutMs ?? 300_000,
          })
        : undefined;
    this.dispatcher = options.dispatcher ?? (this.ownAgent as Agent);
  }

  async fetch(request: EgressRequest): Promise<EgressResponse> {
    const url = parseUrl(request.url);
    if (!this.origins.has(url.origin)) {
      throw new EgressError('origin_refused', url.origin, `Requests to ${url.origin} are refused: it is not a declared origin of this host.`);
    }
    const headers = connectorHeaders(request, url.origin);
    const credentials = await this.credentials(url.origin);
    headers['host'] = url.host;
    headers['x-amz-content-sha256'] = payloadHash(request.body);
    if (request.body instanceof Uint8Array) headers['content-length'] = String(request.body.byteLength);

    const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);
    const signer = new SignatureV4({
      credentials,
      region: this.options.region,
      service: this.options.service ?? 's3',
      sha256: Sha256,
      // S3 signs the path as sent (single-encoded), unlike other services.
      uriEscapePath: false,
      applyChecksum: false,
    });
    const signed = await signer.sign(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        path: url.pathname,
        query: parseQuery(url.search),
        headers,
      },
      { signingDate: this.options.now?.() ?? new Date() },
    );

    let response: Dispatcher.ResponseData;
    try {
      response = await this.dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method,
        headers: signed.headers,
        body: requestBody(request.body),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
    } catch (error) {
      throw failureOf(error, url.origin);
    }
    const responseHeaders = flattenHeaders(response.headers);
    if (request.method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304) {
      response.body.resume();
      return { status: response.statusCode, headers: responseHeaders, body: null };
    }
    return { status: response.statusCode, headers: responseHeaders, body: webStream(response.body, url.origin) };
  }

  /** Closes its own connection pool (a dispatcher passed in stays open: its owner closes it). */
  async close(): Promise<void> {
    await this.ownAgent?.close();
  }

  private async credentials(origin: string): Promise<AwsCredentials> {
    let credentials: AwsCredentials | null;
    try {
      credentials = await this.options.credentials();
    } catch {
      throw new EgressError('credential_missing', origin, `The credential for ${origin} could not be read from the credential store.`);
    }
    if (credentials === null || credentials.accessKeyId === '' || credentials.secretAccessKey === '') {
      throw new EgressError('credential_missing', origin, `No credential is stored for ${origin}; add its accessKeyId/secretAccessKey.`);
    }
    return credentials;
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressError('invalid_request', '', 'The request URL is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new EgressError('invalid_request', url.origin, 'Only http and https requests can pass the gate.');
  }
  if (url.username !== '' || url.password !== '') {
    throw new EgressError('invalid_request', url.origin, 'A request URL may not carry credentials.');
  }
  return url;
}

/** The connector's headers, lower-cased, without the ones the gate owns. */
function connectorHeaders(request: EgressRequest, origin: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (GATE_OWNED_HEADERS.has(lower) || HOP_BY_HOP_HEADERS.has(lower) || lower.startsWith('x-amz-')) continue;
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower) || /[\r\n\0]/.test(value)) {
      throw new EgressError('invalid_request', origin, 'A request header has an invalid name or a line break in its value.');
    }
    headers[lower] = value;
  }
  if (request.body instanceof ReadableStream && headers['content-length'] === undefined) {
    throw new EgressError('invalid_request', origin, 'A streamed body needs a content-length header for a SigV4 host.');
  }
  return headers;
}

function payloadHash(body: EgressRequest['body']): string {
  if (body === undefined) return EMPTY_SHA256;
  if (body instanceof Uint8Array) return createHash('sha256').update(body).digest('hex');
  return 'UNSIGNED-PAYLOAD';
}

/** The query as SigV4 wants it: decoded names and values (`+` is a literal plus, never a space). */
function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (search.length <= 1) return query;
  for (const pair of search.slice(1).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = safeDecode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : safeDecode(pair.slice(equals + 1));
    const existing = query[name];
    query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function requestBody(body: EgressRequest['body']): Uint8Array | Readable | null {
  if (body === undefined) return null;
  if (body instanceof Uint8Array) return body;
  return Readable.fromWeb(body);
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The answer body as a web stream whose failures are EgressErrors (undici's may say more than we want). */
function webStream(body: Dispatcher.ResponseData['body'], origin: string): ReadableStream<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await iterator.next();
          if (done === true) controller.close();
          else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        } catch (error) {
          controller.error(failureOf(error, origin, 'body'));
        }
      },
      cancel() {
        // Destroying makes undici emit an abort error; nobody is reading any more, so it is expected.
        body.on('error', ignore);
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

function failureOf(error: unknown, origin: string, stage: 'request' | 'body' = 'request'): EgressError {
  if (error instanceof EgressError) return error;
  if (isAbort(error)) return new EgressError('aborted', origin, `The request to ${origin} was aborted.`);
  const undiciErrors = undici().errors;
  if (
    error instanceof undiciErrors.ConnectTimeoutError ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError
  ) {
    return new EgressError('timeout', origin, `${origin} did not answer in time.`);
  }
  if (error instanceof undiciErrors.RequestContentLengthMismatchError) {
    return new EgressError('invalid_request', origin, `The request body to ${origin} did not match its content-length.`);
  }
  if (stage === 'body') return new EgressError('unreachable', origin, `The connection to ${origin} broke before the answer ended.`);
  const code = (error as { code?: unknown } | null)?.code;
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'host name not found' : 'connection failed';
  return new EgressError('unreachable', origin, `Cannot reach ${origin}: ${reason}.`);
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || error instanceof undici().errors.RequestAbortedError;
}

function ignore(): void {}
