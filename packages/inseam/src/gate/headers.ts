/**
 * Which request headers a connector may set. The gate owns the ones that carry identity or
 * credentials, or that steer the connection; values a connector supplies for them are dropped
 * (case-insensitively), so it cannot override a credential, forge part of a signature or smuggle
 * a second request:
 *
 * - `host`, `authorization`, `cookie`, `cookie2`;
 * - `accept-encoding`: the gate asks for the codings it decodes itself (coding.ts);
 * - every `proxy-*` header (`proxy-authorization`, `proxy-connection`…);
 * - every `x-amz-*` header, on every host (the SigV4 signer owns the namespace);
 * - hop-by-hop headers: `connection`, `keep-alive`, `te`, `trailer`, `transfer-encoding`,
 *   `upgrade`, `expect`, and any header the connector's own `connection` header names;
 * - any header name a `present` entry of the host sets (the credential's own header).
 *
 * Everything else passes unchanged, including `content-length` (S3 needs it for a streamed PUT).
 */

const OWNED = new Set(['host', 'authorization', 'cookie', 'cookie2', 'accept-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);
const OWNED_PREFIXES = ['proxy-', 'x-amz-'];

function isGateOwnedHeader(lowerName: string, reserved: ReadonlySet<string>): boolean {
  return OWNED.has(lowerName) || reserved.has(lowerName) || OWNED_PREFIXES.some((prefix) => lowerName.startsWith(prefix));
}

/**
 * The connector's headers with every gate-owned one removed; names lower-cased. `reserved` holds
 * the lower-case header names the host's `present` sets.
 */
export function connectorHeaders(headers: Readonly<Record<string, string>> | undefined, reserved: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  const named = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'connection') continue;
    for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  }
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (isGateOwnedHeader(lower, reserved) || named.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** Headers that describe a body; dropped when a redirect turns a request into a bodiless GET. */
export const BODY_HEADERS = ['content-length', 'content-type', 'content-encoding', 'content-language', 'content-location'] as const;

/** undici's header object (string or string[] values) as the port's lower-case record, repeats joined with ", ". */
export function flattenResponseHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
