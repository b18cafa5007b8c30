/**
 * The egress gate: the only way out for sandboxed connector code, and the path the bucket
 * connector's S3 requests take too. One gate serves every host of the platform process;
 * `forHost` binds it to one host's AuthSpec and credential source and returns the `EgressPort`
 * that host's connector (or the sandbox host, on its behalf) calls.
 *
 * For each connector request, and again for every redirect hop and every retry, the gate:
 * 1. refuses TRACE, TRACK and CONNECT, then any origin not in `auth.origins`, then (audit mode)
 *    any method that is not a read — except a POST to exactly a declared `auth.readEndpoints`
 *    origin and path — and any read carrying a method override (methods.ts); on the
 *    connector's own request, one whose URL, headers or buffered body carry a spelling of a
 *    secret (redact.ts) — a streamed body is scanned as it is sent, and stopped before a
 *    secret's bytes leave;
 * 2. resolves the hostname once, refuses it when any address is loopback, private, link-local,
 *    CGNAT, unique-local, reserved, unspecified, multicast or metadata (or an IPv6 form carrying
 *    one) — unless the exact origin is in `allowPrivateOrigins` (metadata, unspecified and
 *    multicast are refused even then) — and pins the first address for the connect;
 * 3. drops the connector's gate-owned headers (see headers.ts), sets its own `accept-encoding`
 *    (coding.ts) and attaches the credential — only when the hop's origin equals the connector's
 *    original request origin, so a redirect never carries it elsewhere, even to another declared
 *    origin;
 * 4. waits for a slot in the origin's concurrency budget (shared by every host of the gate);
 * 5. sends, records the attempt, and then follows a redirect (301/302/303/307/308 with a
 *    `location`, up to `maxRedirects` hops; 303, and 301/302 on POST, become a bodiless GET; a
 *    307/308 whose streamed body cannot be resent is handed back unfollowed), or retries a
 *    429/503 (see retry.ts), or hands the answer back — decoded by the gate when it came in a
 *    coding the gate asked for, refused when in any other — with secrets redacted from its
 *    headers and, as it streams, its body.
 *
 * Every rejection is an `EgressGateError` (an `EgressError`) naming the origin only.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type { Agent, Dispatcher } from 'undici';
import type { AuthSpec, EgressFailure, EgressPort, EgressRequest, EgressResponse } from '@inseam/connector';
import { addressAllowed, classifyAddress, ipLiteral, pinnedLookup, systemResolver } from './addresses.js';
import type { AddressClass, ResolvedAddress, Resolver } from './addresses.js';
import { attachCredentials, validatePresent } from './attach.js';
import { OriginBudget } from './budget.js';
import type { ReleaseSlot } from './budget.js';
import { MissingCredentialError, presentHeaderNames, presentQueryNames, resolveCredentials } from './credentials.js';
import type { HostCredentialSource, ResolvedCredentials } from './credentials.js';
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { EgressGateError } from './errors.js';
import { ACCEPT_IDENTITY, DecodeLimitError, acceptEncodingFor, codingOf, decode, decodedHeaders, isDecodeError } from './coding.js';
import { BODY_HEADERS, connectorHeaders, flattenResponseHeaders } from './headers.js';
import { FORBIDDEN_METHODS, READ_METHODS, isMethodToken, methodOverrideIn } from './methods.js';
import { OriginAllowlist, originOf, parseOriginRule } from './origins.js';
import { withoutQueryParams } from './query.js';
import type { EgressRecord, EgressRecorder, EgressRefusalReason } from './recorder.js';
import { Redactor } from './redact.js';
import { DEFAULT_RETRY_POLICY, RETRYABLE_STATUSES, retryDelay } from './retry.js';
import type { RetryPolicy } from './retry.js';

/** One host's egress rules, as the platform configured and a person approved them. */
export interface HostEgressPolicy {
  /** Names the host in records. */
  readonly hostId: string;
  /**
   * `origins` is the allowlist, `present` how the credential is attached, `fields` which values
   * are secret, `readEndpoints` the POSTs audit mode lets through as reads.
   */
  readonly auth: Pick<AuthSpec, 'origins' | 'present' | 'fields' | 'readEndpoints'>;
  readonly credentials: HostCredentialSource;
  /**
   * Declared origins a person approved as private (a NAS, a service on loopback). Each must be an
   * exact (non-wildcard) entry of `auth.origins`; it may then resolve to loopback, private,
   * link-local, CGNAT, unique-local or reserved addresses — never metadata, unspecified or multicast.
   */
  readonly allowPrivateOrigins?: readonly string[];
  /**
   * `audit`: read methods, and POSTs to the declared `readEndpoints`, pass; every other write is
   * refused (the submit-phase trial, a read-only sandboxed host). Default `enforce`.
   */
  readonly mode?: 'enforce' | 'audit';
  /** `follow` (default): the gate follows redirects hop by hop. `return`: 3xx answers go back as they are. */
  readonly redirects?: 'follow' | 'return';
}

/** Where the gate writes warnings (retries, refusals). Every line is redacted first. */
export interface EgressLogger {
  warn(line: string): void;
}

export interface EgressGateOptions {
  /** Receives every attempt. */
  readonly recorder: EgressRecorder;
  /** Name resolution; defaults to `dns.lookup` with `all: true`. */
  readonly resolver?: Resolver;
  /** Requests in flight per origin, across all hosts (default 8). */
  readonly perOriginConcurrency?: number;
  /** Redirect hops followed per request (default 10). */
  readonly maxRedirects?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** TCP/TLS connect limit (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Limit for an answer's headers after the request is sent (default 60 s). */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two body chunks (default 60 s). */
  readonly bodyTimeoutMs?: number;
  readonly logger?: EgressLogger;
}

export interface EgressGate {
  /**
   * The port for one host. Throws `invalid_config` (InvalidConfigError) when a declared origin,
   * a private approval or a `present` entry is malformed, naming it.
   */
  forHost(policy: HostEgressPolicy): EgressPort;
  /** Closes every pooled connection; requests in flight finish first. */
  close(): Promise<void>;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Pinned dispatchers kept for connection reuse; the least recently used closes beyond this. */
const MAX_POOLED_DISPATCHERS = 128;

// undici loads with the first dispatcher: a process that never sends a request (a command on a
// local folder) does not pay for it.
const requireModule = createRequire(import.meta.url);
let agentClass: typeof Agent | undefined;
function undiciAgent(): typeof Agent {
  agentClass ??= (requireModule('undici') as typeof import('undici')).Agent;
  return agentClass;
}

const ADDRESS_TEXT: Record<AddressClass, string> = {
  public: 'a public',
  loopback: 'a loopback',
  private: 'a private-network',
  link_local: 'a link-local',
  cgnat: 'a carrier-grade NAT',
  unique_local: 'a unique-local',
  reserved: 'a reserved',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  metadata: 'an instance-metadata',
  invalid: 'an unparseable',
};

function abortReasonError(origin: string): EgressGateError {
  return new EgressGateError('aborted', origin, `The request to ${origin} was aborted.`);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Maps an undici or socket failure to the port's failure set. */
function failureOf(error: unknown, signal: AbortSignal | undefined): EgressFailure {
  if (signal?.aborted === true) return 'aborted';
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'UND_ERR_ABORTED') return 'aborted';
  if (code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_NOT_SUPPORTED') return 'invalid_request';
  return 'unreachable';
}

const FAILURE_TEXT: Record<EgressFailure, string> = {
  unreachable: 'could not be reached',
  timeout: 'did not answer in time',
  origin_refused: 'was refused',
  credential_missing: 'needs a credential that is not stored',
  aborted: 'was aborted',
  invalid_request: 'was rejected as malformed',
};

function validHeaders(headers: Readonly<Record<string, string>> | undefined): boolean {
  if (headers === undefined) return true;
  return Object.entries(headers).every(([name, value]) => isMethodToken(name) && typeof value === 'string' && !/[\r\n\0]/.test(value));
}

interface HostRules {
  readonly policy: HostEgressPolicy;
  readonly allowlist: OriginAllowlist;
  readonly privateOrigins: ReadonlySet<string>;
  readonly reservedHeaders: ReadonlySet<string>;
  readonly credentialQueryNames: ReadonlySet<string>;
  /** `<canonical origin><path>` of each declared read endpoint (all POST). */
  readonly readPosts: ReadonlySet<string>;
}

function compileHost(policy: HostEgressPolicy): HostRules {
  const allowlist = new OriginAllowlist(policy.auth.origins);
  validatePresent(policy.auth.present);
  const exact = new Set(allowlist.rules.filter((rule) => !rule.wildcard).map((rule) => rule.text));
  const privateOrigins = new Set<string>();
  for (const approved of policy.allowPrivateOrigins ?? []) {
    const rule = parseOriginRule(approved);
    if (rule.wildcard || !exact.has(rule.text)) {
      throw new InvalidConfigError(`allowPrivateOrigins entry "${approved}" must be an exact origin that is also in auth.origins.`, { details: { origin: approved } });
    }
    privateOrigins.add(rule.text);
  }
  const readPosts = new Set<string>();
  for (const endpoint of policy.auth.readEndpoints ?? []) {
    const rule = parseOriginRule(endpoint.origin);
    if (endpoint.method !== 'POST' || rule.wildcard || !exact.has(rule.text) || !endpoint.path.startsWith('/')) {
      throw new InvalidConfigError(`readEndpoints entry ${endpoint.method} ${endpoint.origin}${endpoint.path} must be a POST to a path on an exact origin that is also in auth.origins.`, { details: { origin: endpoint.origin } });
    }
    readPosts.add(`${rule.text}${endpoint.path}`);
  }
  return {
    policy,
    allowlist,
    privateOrigins,
    reservedHeaders: presentHeaderNames(policy.auth.present),
    credentialQueryNames: presentQueryNames(policy.auth.present),
    readPosts,
  };
}

/** The request as it stands on the current hop. */
interface Hop {
  url: URL;
  method: string;
  /** Connector headers, already stripped of gate-owned names. */
  headers: Record<string, string>;
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

/** Redacts nothing: for hosts whose `present` is empty there is no secret to hide. */
const NO_SECRETS = new Redactor();

class GateRun {
  private credentials: ResolvedCredentials | undefined;
  /** Set when the streamed body was stopped for carrying a secret. */
  private bodyRefusal: EgressGateError | undefined;

  constructor(
    private readonly gate: Gate,
    private readonly host: HostRules,
    private readonly request: EgressRequest,
    private readonly originalOrigin: string,
  ) {}

  private get signal(): AbortSignal | undefined {
    return this.request.signal;
  }

  private get activeRedactor(): Redactor {
    return this.credentials?.redactor ?? NO_SECRETS;
  }

  private record(entry: Omit<EgressRecord, 'at' | 'hostId' | 'durationMs'> & { started: number }): void {
    const { started, ...rest } = entry;
    this.gate.recorder.record({
      ...rest,
      origin: this.activeRedactor.redact(rest.origin),
      at: new Date(started).toISOString(),
      hostId: this.host.policy.hostId,
      durationMs: Math.max(0, Date.now() - started),
    });
  }

  private refuse(
    hop: Hop,
    position: { hop: number; attempt: number },
    started: number,
    reason: EgressRefusalReason,
    failure: EgressFailure,
    message: string,
    detail: { addressClass?: AddressClass; part?: string; status?: number; credentialed?: boolean } = {},
  ): EgressGateError {
    const origin = this.activeRedactor.redact(originOf(hop.url));
    const { credentialed = false, ...recorded } = detail;
    this.record({ origin, method: hop.method, decision: 'refuse', reason, ...recorded, ...position, credentialed, started });
    const error = new EgressGateError(failure, origin, this.activeRedactor.redact(message), reason);
    this.gate.logger?.warn(error.message);
    return error;
  }

  private fail(hop: Hop, position: { hop: number; attempt: number }, started: number, failure: EgressFailure, credentialed: boolean, message?: string): EgressGateError {
    const origin = this.activeRedactor.redact(originOf(hop.url));
    this.record({ origin, method: hop.method, decision: 'allow', failure, ...position, credentialed, started });
    return new EgressGateError(failure, origin, this.activeRedactor.redact(message ?? `The request to ${origin} ${FAILURE_TEXT[failure]}.`));
  }

  /** Resolves and checks every address; returns the one to pin, or the offending class. */
  private async checkAddress(url: URL): Promise<{ pinned: ResolvedAddress } | { forbidden: AddressClass }> {
    const approved = this.host.privateOrigins.has(originOf(url));
    const literal = ipLiteral(url.hostname);
    const addresses = literal === null ? await this.gate.resolver(url.hostname) : [literal];
    if (addresses.length === 0) throw new Error('no addresses');
    for (const entry of addresses) {
      const addressClass = classifyAddress(entry.address);
      if (!addressAllowed(addressClass, approved)) return { forbidden: addressClass };
    }
    return { pinned: addresses[0]! };
  }

  async run(): Promise<EgressResponse> {
    const policy = this.host.policy;
    // Loaded up front, even if the first hop is refused: refusals, records and logs are redacted
    // with these values too. A failure surfaces only when a hop needs the credential.
    let credentialFailure: unknown;
    if (policy.auth.present.length > 0) {
      try {
        this.credentials = await resolveCredentials(policy.auth, policy.credentials);
      } catch (error) {
        credentialFailure = error;
      }
    }
    const initialBody = this.request.body ?? null;
    const hop: Hop = {
      url: new URL(this.request.url),
      method: this.request.method.toUpperCase(),
      headers: connectorHeaders(this.request.headers, this.host.reservedHeaders),
      body: initialBody,
    };
    const position = { hop: 0, attempt: 0 };
    let renewed = false;
    let screened = false;

    for (;;) {
      const started = Date.now();
      const origin = originOf(hop.url);
      if (FORBIDDEN_METHODS.has(hop.method)) {
        throw this.refuse(hop, position, started, 'method_forbidden', 'invalid_request', `The egress gate never sends ${hop.method} requests (to ${origin}).`);
      }
      if (!this.host.allowlist.allows(hop.url)) {
        throw this.refuse(hop, position, started, 'origin_not_declared', 'origin_refused', `The egress gate refused a request to ${origin}: it is not one of the host's declared origins.`);
      }
      // Checked on every hop: a redirect from a read endpoint elsewhere is a write again.
      if (policy.mode === 'audit' && !READ_METHODS.has(hop.method) && !(hop.method === 'POST' && this.host.readPosts.has(`${origin}${hop.url.pathname}`))) {
        throw this.refuse(
          hop,
          position,
          started,
          'write_in_audit_mode',
          'origin_refused',
          `The egress gate refused ${hop.method} to ${origin}: in audit mode only ${[...READ_METHODS].join(', ')} pass, and POST only to a path declared in auth.readEndpoints.`,
        );
      }
      const override = policy.mode === 'audit' ? methodOverrideIn(hop.url, hop.headers) : undefined;
      if (override !== undefined) {
        const part = override === '_method' ? 'url' : `header ${override}`;
        throw this.refuse(
          hop,
          position,
          started,
          'method_override_in_audit_mode',
          'origin_refused',
          `The egress gate refused ${hop.method} to ${origin}: in audit mode a read may not carry ${override === '_method' ? 'a _method query parameter' : `the ${override} header`}, which makes many servers treat it as another method.`,
          { part },
        );
      }
      if (!screened) {
        // The connector's own request, once: redirect hops and retries carry only what passed here.
        screened = true;
        const part = this.secretPart(hop);
        if (part !== undefined) {
          throw this.refuse(
            hop,
            position,
            started,
            'secret_in_request',
            'origin_refused',
            `The egress gate refused ${hop.method} to ${origin}: its ${part} carries the host's credential (a secret value, in some spelling). The gate attaches the credential itself; nothing else may carry it.`,
            { part },
          );
        }
        if (hop.url.username !== '' || hop.url.password !== '') {
          throw new EgressGateError('invalid_request', this.activeRedactor.redact(origin), `The request URL for ${this.activeRedactor.redact(origin)} carries credentials; the gate attaches the host's credential itself.`);
        }
        if (hop.body instanceof ReadableStream) hop.body = this.guardBody(hop, hop.body, { ...position }, started);
      }
      const credentialed = origin === this.originalOrigin && policy.auth.present.length > 0;
      if (!credentialed) {
        withoutQueryParams(hop.url, this.host.credentialQueryNames);
        if (this.credentials !== undefined && this.credentials.redactor.redact(hop.url.href) !== hop.url.href) {
          throw this.refuse(hop, position, started, 'secret_in_url', 'origin_refused', `The egress gate refused a redirect to ${origin}: its URL carries the host's credential.`);
        }
      }

      let address: { pinned: ResolvedAddress } | { forbidden: AddressClass };
      try {
        address = await this.checkAddress(hop.url);
      } catch {
        throw this.fail(hop, position, started, 'unreachable', false, `The request to ${origin} could not be sent: its host name does not resolve.`);
      }
      if ('forbidden' in address) {
        const never = address.forbidden === 'metadata' || address.forbidden === 'unspecified' || address.forbidden === 'multicast' || address.forbidden === 'broadcast';
        throw this.refuse(
          hop,
          position,
          started,
          'address_forbidden',
          'origin_refused',
          `The egress gate refused a request to ${origin}: it resolves to ${ADDRESS_TEXT[address.forbidden]} address, which ${never ? 'is never reachable' : 'is reachable only when the origin is approved as private'}.`,
          { addressClass: address.forbidden },
        );
      }

      const accepted = acceptEncodingFor(hop.method, hop.headers);
      const sendHeaders: Record<string, string> = { ...hop.headers, 'accept-encoding': accepted };
      if (credentialed) {
        try {
          if (this.credentials === undefined) throw credentialFailure;
          await attachCredentials(
            { method: hop.method, url: hop.url, headers: sendHeaders, body: hop.body instanceof ReadableStream ? 'stream' : hop.body },
            policy.auth.present,
            this.credentials,
          );
        } catch (error) {
          const message =
            error instanceof MissingCredentialError || error instanceof InvalidConfigError
              ? `The request to ${origin} cannot be sent: ${error.message}`
              : `The request to ${origin} cannot be sent: the host's credential could not be read.`;
          throw this.fail(hop, position, started, 'credential_missing', true, message);
        }
      }

      let release: ReleaseSlot;
      try {
        release = await this.gate.budget.acquire(origin, this.signal);
      } catch {
        throw this.fail(hop, position, started, 'aborted', credentialed);
      }

      let response: Dispatcher.ResponseData;
      try {
        response = await this.gate.dispatcherFor(origin, address.pinned).request({
          origin,
          path: `${hop.url.pathname}${hop.url.search}`,
          method: hop.method,
          headers: sendHeaders,
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc -b needs it: this package builds with lib DOM, whose ReadableStream is not the one Readable.fromWeb takes
          body: hop.body === null ? null : hop.body instanceof ReadableStream ? Readable.fromWeb(hop.body as NodeWebReadableStream<Uint8Array>) : Buffer.from(hop.body.buffer, hop.body.byteOffset, hop.body.byteLength),
          ...(this.signal === undefined ? {} : { signal: this.signal }),
        });
      } catch (error) {
        release();
        if (this.bodyRefusal !== undefined) throw this.bodyRefusal;
        throw this.fail(hop, position, started, failureOf(error, this.signal), credentialed);
      }
      const status = response.statusCode;
      this.record({ origin, method: hop.method, decision: 'allow', status, ...position, credentialed, started });

      const location = response.headers['location'];
      if (policy.redirects !== 'return' && REDIRECT_STATUSES.has(status) && typeof location === 'string') {
        const next = this.redirectTarget(hop, status, location);
        if (next !== null) {
          await this.discard(response, release);
          position.hop += 1;
          if (position.hop > this.gate.maxRedirects) {
            throw this.refuse(next, position, Date.now(), 'too_many_redirects', 'origin_refused', `The egress gate stopped at ${originOf(next.url)}: more than ${this.gate.maxRedirects} redirects.`);
          }
          Object.assign(hop, next);
          continue;
        }
      }

      // A streamed body was consumed by this try; anything else can be sent again as it was.
      if (RETRYABLE_STATUSES.has(status) && !(hop.body instanceof ReadableStream)) {
        const retryAfter = response.headers['retry-after'];
        const delay = retryDelay(this.gate.retry, position.attempt + 1, typeof retryAfter === 'string' ? retryAfter : undefined, Date.now());
        if (delay !== undefined) {
          await this.discard(response, release);
          this.gate.logger?.warn(this.activeRedactor.redact(`${origin} answered ${status}; retrying ${hop.method} in ${Math.round(delay)} ms.`));
          try {
            await sleep(delay, this.signal);
          } catch {
            throw abortReasonError(this.activeRedactor.redact(origin));
          }
          position.attempt += 1;
          continue;
        }
      }

      if (credentialed && !renewed && (await this.renewed(status, hop))) {
        await this.discard(response, release);
        renewed = true;
        this.credentials = await resolveCredentials(policy.auth, policy.credentials).catch(() => this.credentials);
        continue;
      }

      return this.answer(hop, response, release, { ...position }, credentialed, accepted);
    }
  }

  /** Where the connector's request carries a spelling of a secret: `url`, `header <name>` or `body`. */
  private secretPart(hop: Hop): string | undefined {
    const redactor = this.credentials?.redactor;
    if (redactor === undefined || redactor.empty) return undefined;
    if (redactor.finds(this.request.url) || redactor.finds(hop.url.href)) return 'url';
    for (const [name, value] of Object.entries(hop.headers)) {
      if (redactor.finds(name) || redactor.finds(value)) return `header ${redactor.redact(name)}`;
    }
    if (hop.body instanceof Uint8Array && redactor.finds(hop.body)) return 'body';
    return undefined;
  }

  /** A streamed body is scanned as it is sent: a secret in it aborts the request before its bytes leave. */
  private guardBody(hop: Hop, body: ReadableStream<Uint8Array>, position: { hop: number; attempt: number }, started: number): ReadableStream<Uint8Array> {
    const redactor = this.credentials?.redactor;
    if (redactor === undefined || redactor.empty) return body;
    const snapshot: Hop = { ...hop, url: new URL(hop.url.href) };
    return redactor.guardStream(body, () => {
      const origin = this.activeRedactor.redact(originOf(snapshot.url));
      this.bodyRefusal = this.refuse(
        snapshot,
        position,
        started,
        'secret_in_request',
        'origin_refused',
        `The egress gate stopped ${snapshot.method} to ${origin}: its body carries the host's credential (a secret value, in some spelling). The gate attaches the credential itself; nothing else may carry it.`,
        { part: 'body' },
      );
      return this.bodyRefusal;
    });
  }

  /** Asks the credential source whether `status` made it renew; a replayable request is resent once. */
  private async renewed(status: number, hop: Hop): Promise<boolean> {
    const source = this.host.policy.credentials;
    if (source.onStatus === undefined || hop.body instanceof ReadableStream) return false;
    try {
      return await source.onStatus(status);
    } catch {
      // A renewal that failed leaves the answer as it came; the connector sees the 401 itself.
      return false;
    }
  }

  /** The next hop for a redirect, or null when it must be handed back unfollowed. */
  private redirectTarget(hop: Hop, status: number, location: string): Hop | null {
    let url: URL;
    try {
      url = new URL(location, hop.url);
    } catch {
      return null;
    }
    url.hash = '';
    const toGet = (status === 303 && hop.method !== 'HEAD') || ((status === 301 || status === 302) && hop.method === 'POST');
    if (toGet) {
      const headers = { ...hop.headers };
      for (const name of BODY_HEADERS) delete headers[name];
      return { url, method: 'GET', headers, body: null };
    }
    if (hop.body instanceof ReadableStream) return null;
    return { url, method: hop.method, headers: hop.headers, body: hop.body };
  }

  private async discard(response: Dispatcher.ResponseData, release: ReleaseSlot): Promise<void> {
    try {
      await response.body.dump({ limit: 64 * 1024 });
    } catch {
      // A failed drain only costs the connection; the next hop opens a new one.
    } finally {
      release();
    }
  }

  private answer(
    hop: Hop,
    response: Dispatcher.ResponseData,
    release: ReleaseSlot,
    position: { hop: number; attempt: number },
    credentialed: boolean,
    accepted: string,
  ): EgressResponse {
    const redactor = this.activeRedactor;
    const status = response.statusCode;
    const received = flattenResponseHeaders(response.headers);
    const coding = codingOf(received['content-encoding'], accepted);
    if (hop.method === 'HEAD' || status === 204 || status === 304) {
      void this.discard(response, release);
      // No body: a coding's headers would describe bytes the connector never gets.
      return { status, headers: redactor.redactHeaders(coding === 'identity' ? received : decodedHeaders(received)), body: null };
    }
    const origin = redactor.redact(originOf(hop.url));
    if (coding === 'unrequested') {
      void this.discard(response, release);
      const named = /^[A-Za-z0-9 ,._-]{1,40}$/.test(received['content-encoding'] ?? '') ? `"${received['content-encoding']}"` : 'an unreadable one';
      const asked = accepted === ACCEPT_IDENTITY ? 'identity (no coding)' : accepted;
      throw this.refuse(
        hop,
        position,
        Date.now(),
        'unrequested_content_encoding',
        'origin_refused',
        `The egress gate refused the answer from ${origin}: it came in a content coding the gate did not ask for (${named}; it asked for ${asked}), so it could not be checked for secrets.`,
        { status, credentialed },
      );
    }
    const headers = redactor.redactHeaders(coding === 'identity' ? received : decodedHeaders(received));
    const signal = this.signal;
    // Errors reach the reader through the iterator; this listener only keeps an abort or a
    // cancel of a body nobody is reading from becoming an uncaught 'error' event.
    response.body.on('error', () => undefined);
    const decoded = coding === 'identity' ? undefined : decode(response.body, coding);
    const iterator = decoded?.chunks ?? (response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      release();
    };
    const bodyError = (error: unknown): EgressGateError => {
      if (error instanceof DecodeLimitError) {
        return this.refuse(
          hop,
          position,
          Date.now(),
          'decompression_limit',
          'origin_refused',
          `The egress gate stopped the answer from ${origin}: its ${coding} body decoded to more than the gate allows for its size (a decompression bomb).`,
          { status, credentialed },
        );
      }
      if (isDecodeError(error) && signal?.aborted !== true) {
        return new EgressGateError('unreachable', origin, `The answer from ${origin} could not be decoded (${coding}): its coded body is corrupt or cut short.`);
      }
      const failure = failureOf(error, signal);
      return new EgressGateError(failure, origin, `The answer from ${origin} ${failure === 'aborted' ? 'was aborted' : 'broke off'} before its end.`);
    };
    const raw = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const next = await iterator.next();
            if (next.done === true) {
              finish();
              controller.close();
            } else {
              controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
            }
          } catch (error) {
            finish();
            controller.error(bodyError(error));
          }
        },
        cancel() {
          finish();
          decoded?.destroy();
          response.body.destroy();
        },
      },
      { highWaterMark: 0 },
    );
    return { status, headers, body: redactor.redactStream(raw) };
  }
}

class Gate implements EgressGate {
  readonly recorder: EgressRecorder;
  readonly resolver: Resolver;
  readonly budget: OriginBudget;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly logger: EgressLogger | undefined;
  private readonly dispatchers = new Map<string, Agent>();
  private readonly agentOptions: { connectTimeout: number; headersTimeout: number; bodyTimeout: number };

  constructor(options: EgressGateOptions) {
    this.recorder = options.recorder;
    this.resolver = options.resolver ?? systemResolver;
    this.budget = new OriginBudget(options.perOriginConcurrency ?? 8);
    this.maxRedirects = options.maxRedirects ?? 10;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.logger = options.logger;
    this.agentOptions = {
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      headersTimeout: options.headersTimeoutMs ?? 60_000,
      bodyTimeout: options.bodyTimeoutMs ?? 60_000,
    };
  }

  /** A dispatcher whose every connection goes to `pinned`, whatever the hostname resolves to later. */
  dispatcherFor(origin: string, pinned: ResolvedAddress): Agent {
    const key = `${origin} ${pinned.address}`;
    let agent = this.dispatchers.get(key);
    if (agent !== undefined) {
      this.dispatchers.delete(key);
      this.dispatchers.set(key, agent);
      return agent;
    }
    agent = new (undiciAgent())({
      connect: { lookup: pinnedLookup(pinned), timeout: this.agentOptions.connectTimeout },
      headersTimeout: this.agentOptions.headersTimeout,
      bodyTimeout: this.agentOptions.bodyTimeout,
    });
    this.dispatchers.set(key, agent);
    if (this.dispatchers.size > MAX_POOLED_DISPATCHERS) {
      const [oldestKey, oldest] = this.dispatchers.entries().next().value as [string, Agent];
      this.dispatchers.delete(oldestKey);
      void oldest.close();
    }
    return agent;
  }

  forHost(policy: HostEgressPolicy): EgressPort {
    const host = compileHost(policy);
    return {
      fetch: (request: EgressRequest): Promise<EgressResponse> => this.fetch(host, request),
    };
  }

  private async fetch(host: HostRules, request: EgressRequest): Promise<EgressResponse> {
    try {
      return await this.send(host, request);
    } catch (error) {
      // A body the gate never started sending is cancelled, so its producer does not wait forever.
      if (request.body instanceof ReadableStream && !request.body.locked) void request.body.cancel().catch(() => undefined);
      throw error;
    }
  }

  private async send(host: HostRules, request: EgressRequest): Promise<EgressResponse> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new EgressGateError('invalid_request', '', 'The request URL is not an absolute http or https URL.');
    }
    const origin = originOf(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressGateError('invalid_request', '', 'The request URL is not an absolute http or https URL.');
    }
    if (typeof request.method !== 'string' || !isMethodToken(request.method)) {
      throw new EgressGateError('invalid_request', origin, `The request to ${origin} has a method that is not an HTTP token.`);
    }
    if (!validHeaders(request.headers)) {
      throw new EgressGateError('invalid_request', origin, `The request to ${origin} has a header whose name is not an HTTP token or whose value has a line break or NUL.`);
    }
    if (request.body !== undefined && !(request.body instanceof Uint8Array) && !(request.body instanceof ReadableStream)) {
      throw new EgressGateError('invalid_request', origin, `The request to ${origin} has a body that is neither bytes nor a byte stream.`);
    }
    if (request.signal?.aborted === true) throw abortReasonError(origin);
    return new GateRun(this, host, request, origin).run();
  }

  async close(): Promise<void> {
    const agents = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

/** Creates a gate. One per platform process is the intent: its concurrency budget is per origin across hosts. */
export function createEgressGate(options: EgressGateOptions): EgressGate {
  return new Gate(options);
}
