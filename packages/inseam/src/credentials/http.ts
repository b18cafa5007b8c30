/**
 * How the credential store itself talks to authorization servers and exchange endpoints.
 *
 * Every such URL must be `https:`. Plain `http:` is accepted only when `allowInsecureLoopback`
 * is set and the host is a loopback address (127.0.0.0/8, ::1, localhost) — for tests and local
 * development, never for a remote host. URLs carrying a username or password are refused.
 * Redirects are never followed (a redirected POST could carry a secret elsewhere); every
 * request has a deadline; response bodies are read up to a cap.
 *
 * `fetch` is injectable so the platform can route these requests through its address policy
 * (refusing private and metadata addresses) the way the egress gate does for connectors.
 */
import { collectCapped, InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpPolicyOptions {
  readonly fetch?: FetchLike;
  /** Accept `http:` to loopback hosts (tests, local development). Default false. */
  readonly allowInsecureLoopback?: boolean;
  /** Deadline for one request, in milliseconds. Default 30 000. */
  readonly timeoutMs?: number;
}

export interface HttpPolicy {
  readonly fetch: FetchLike;
  readonly allowInsecureLoopback: boolean;
  readonly timeoutMs: number;
}

export const MAX_RESPONSE_BYTES = 1024 * 1024;

export function httpPolicy(options: HttpPolicyOptions = {}): HttpPolicy {
  return {
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    allowInsecureLoopback: options.allowInsecureLoopback ?? false,
    timeoutMs: options.timeoutMs ?? 30_000,
  };
}

export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** True when `url` is plain http to loopback and the policy allows that. */
export function insecureAllowed(url: URL, policy: HttpPolicy): boolean {
  return url.protocol === 'http:' && policy.allowInsecureLoopback && isLoopbackHostname(url.hostname);
}

/**
 * Parses an acquisition URL named `what` (e.g. `auth.acquire.tokenUrl`). Throws `invalid_config`
 * when it does not parse, carries credentials, or is not https (see the module comment).
 */
export function checkAcquisitionUrl(value: unknown, what: string, policy: HttpPolicy): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new InvalidConfigError(`${what} is not an absolute URL.`, { details: { field: what } });
  }
  if (url.username !== '' || url.password !== '') throw new InvalidConfigError(`${what} must not carry a username or password.`, { details: { field: what } });
  if (url.protocol !== 'https:' && !insecureAllowed(url, policy)) {
    throw new InvalidConfigError(`${what} must be an https URL (${url.origin} is not).`, { details: { field: what, origin: url.origin } });
  }
  return url;
}

/** The signal a request runs under: the caller's (if any) and the policy deadline. */
export function requestSignal(policy: HttpPolicy, signal?: AbortSignal): AbortSignal {
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  return signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
}

/**
 * Sends one request without following redirects. Rejects with `unavailable` naming only the
 * origin when no answer came (refused, reset, timed out).
 */
export async function send(policy: HttpPolicy, url: URL, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  try {
    return await policy.fetch(url.href, { ...init, redirect: 'manual', signal: requestSignal(policy, signal) });
  } catch {
    throw new UnavailableError(`${url.origin} could not be reached; retry later.`, { details: { origin: url.origin, reason: 'unreachable' } });
  }
}

/**
 * The response body parsed as JSON, read up to `MAX_RESPONSE_BYTES`. Throws `unavailable` naming
 * only the origin when it is larger, unreadable or not JSON. The body is never quoted.
 */
export async function readJson(response: Response, origin: string): Promise<unknown> {
  const failed = (why: string): UnavailableError => new UnavailableError(`The answer from ${origin} ${why}.`, { details: { origin, reason: 'bad_response' } });
  if (response.body === null) throw failed('has no body');
  let bytes: Uint8Array;
  try {
    bytes = await collectCapped(response.body, { maxBytes: MAX_RESPONSE_BYTES, tooLarge: () => failed(`is larger than ${MAX_RESPONSE_BYTES} bytes`) });
  } catch (error) {
    if (error instanceof UnavailableError) throw error;
    throw failed('could not be read');
  }
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    throw failed('is not JSON');
  }
}
