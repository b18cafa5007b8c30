/**
 * Origin allowlists. A host's `auth.origins` is the complete list of places its connector may
 * reach. Each entry is `scheme://host[:port]` with scheme `http` or `https`; the host may start
 * with `*.`, which matches any subdomain at any depth but NOT the bare domain.
 *
 * Comparison is on the WHATWG-normalised form: scheme and host lowercased, hosts punycoded
 * (`https://BÜCHER.example` ≡ `https://xn--bcher-kva.example`), IPv4 written in any legacy form
 * (`2130706433`, `0177.0.0.1`, `127.1`) canonicalised, IPv6 compressed, and default ports (80 for
 * http, 443 for https) dropped. A trailing-dot name (`example.com.`) is a different host.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';

export interface OriginRule {
  /** `http:` or `https:`. */
  readonly protocol: 'http:' | 'https:';
  /** Normalised hostname; for a wildcard rule, the base domain after `*.`. IPv6 keeps brackets. */
  readonly hostname: string;
  /** The effective port, default ports filled in. */
  readonly port: number;
  readonly wildcard: boolean;
  /** The canonical text of the rule, e.g. `https://*.example.com` or `http://127.0.0.1:8080`. */
  readonly text: string;
}

function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * The canonical origin of a URL: what refusals and records name. Never a path or query. For a
 * scheme without an origin (`file:`, `data:`) it is `scheme//host`.
 */
export function originOf(url: URL): string {
  return url.origin === 'null' ? `${url.protocol}//${url.host}` : url.origin;
}

const IP_LITERAL = /^(\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\])$/;

/**
 * Parses one declared origin. Throws `invalid_config` when it is not `http(s)://host[:port]`
 * (a path, query, fragment or credentials are refused), or when a wildcard is anywhere but the
 * leading label, sits on an IP literal, or covers a single-label domain such as `*.com`.
 */
export function parseOriginRule(declared: string): OriginRule {
  const refuse = (why: string): never => {
    throw new InvalidConfigError(`Declared origin "${declared}" is not valid: ${why}`, { details: { origin: declared } });
  };
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(\*\.)?([^/?#]*)\/?$/.exec(declared);
  if (match === null) return refuse('write it as scheme://host[:port], with no path, query or fragment.');
  const wildcard = match[2] !== undefined;
  let url: URL;
  try {
    url = new URL(`${match[1]}://${match[3]}`);
  } catch {
    return refuse('the host does not parse.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('only http and https are allowed.');
  if (url.username !== '' || url.password !== '') return refuse('credentials never go in an origin.');
  if (url.hostname === '' || url.hostname.includes('*')) return refuse('a wildcard may only be a leading "*.".');
  if (wildcard && IP_LITERAL.test(url.hostname)) return refuse('a wildcard cannot cover an IP address.');
  if (wildcard && !url.hostname.includes('.')) return refuse('a wildcard needs a domain of at least two labels.');
  const protocol = url.protocol;
  const port = effectivePort(url);
  const defaultPort = protocol === 'https:' ? 443 : 80;
  const text = `${protocol}//${wildcard ? '*.' : ''}${url.hostname}${port === defaultPort ? '' : `:${port}`}`;
  return { protocol, hostname: url.hostname, port, wildcard, text };
}

function ruleMatches(rule: OriginRule, url: URL): boolean {
  if (url.protocol !== rule.protocol || effectivePort(url) !== rule.port) return false;
  if (!rule.wildcard) return url.hostname === rule.hostname;
  if (!url.hostname.endsWith(`.${rule.hostname}`)) return false;
  const labels = url.hostname.slice(0, -(rule.hostname.length + 1));
  return labels !== '' && !labels.split('.').includes('');
}

/** A host's declared origins. Construction validates every entry (`invalid_config`). */
export class OriginAllowlist {
  readonly rules: readonly OriginRule[];

  constructor(declared: readonly string[]) {
    this.rules = declared.map(parseOriginRule);
  }

  allows(url: URL): boolean {
    return this.rules.some((rule) => ruleMatches(rule, url));
  }
}
