/**
 * Which names a request may call the server by, and which web pages may drive it.
 *
 * **Host.** A page on `http://evil.example:7341/` whose name the attacker re-points at 127.0.0.1
 * (DNS rebinding) is, to the browser, same-origin with itself and free to read the answers. Its
 * requests carry `Host: evil.example:7341`, so every request — the API, `/mcp`, the web page — must
 * name the server as it listens: the address of the connection's own end with its port, and when
 * that is a loopback address also `localhost`, `127.0.0.1` and `[::1]` (same port). A public name
 * (a reverse proxy, TLS in front) is the one `--public-url` gives. Anything else is 403.
 *
 * **Origin.** A browser sends `Origin` with every request a page makes but plain top-level
 * navigations; other clients (curl, agents, MCP clients) send none, and are not refused for that.
 * A present Origin must be the server's own (a name above, `http:`, the same port; or the public
 * URL's origin) on every request to `/mcp` (as the MCP specification's Streamable HTTP transport
 * requires) and on every request that may change something (any method but GET and HEAD), so a
 * page elsewhere can neither drive the API with a token it holds nor spend a sign-in code it
 * stole. `Origin: null` (a sandboxed frame, a file) is refused. No CORS header is ever sent: a
 * preflight from elsewhere is refused like the request it announces, and a cross-origin read gets
 * nothing the browser would hand to the page.
 */
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { HttpError } from './errors.js';

const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
const MCP_PATH = /^\/mcp(?:[/?]|$)/;

/** Whether a request URL is the MCP endpoint's (`/mcp`, with or without a query). */
export function isMcpPath(url: string): boolean {
  return MCP_PATH.test(url);
}

/**
 * The origin (`scheme://host[:port]`) of a `--public-url`. Throws `invalid_argument` unless it is
 * an http(s) URL with nothing after the host but `/`.
 */
export function publicOrigin(url: string, argument = 'public-url'): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username !== '' || parsed.password !== '' || parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') {
    throw new InvalidArgumentError(`--${argument} is the address people reach the server at, such as https://inseam.example.com: http or https, a host, a port if not the default, and no path.`, {
      details: { argument },
    });
  }
  return parsed.origin;
}

/** Checks a request's Host and Origin (see the module comment); throws the 403 to answer. */
export type RequestGuard = (request: FastifyRequest) => void;

export function requestGuard(options: { readonly publicUrl?: string } = {}): RequestGuard {
  const publicAt = options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl);
  const publicUrl = publicAt === undefined ? undefined : new URL(publicAt);
  const publicPort = publicUrl === undefined ? undefined : publicUrl.port === '' ? (publicUrl.protocol === 'https:' ? 443 : 80) : Number(publicUrl.port);
  // A proxy in front may pass the public name with its port or without it.
  const isPublic = (host: string): boolean => {
    const given = hostPart(host);
    return publicUrl !== undefined && given.name === publicUrl.hostname && (given.port === undefined || given.port === publicPort);
  };
  return (request) => {
    const own = ownNames(request);
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || (!isPublic(host) && !own.matches(host))) {
      throw new HttpError('permission_denied', 'This server does not answer to the name in the Host header. Use the address `inseam up` printed, or start it with --public-url naming the address people use.', {
        details: { reason: 'host_not_allowed' },
      });
    }
    const origin = request.headers.origin;
    if (origin === undefined || (READS.has(request.method) && !isMcpPath(request.url))) return;
    if (origin !== publicAt && !ownOrigin(origin, own)) {
      throw new HttpError('permission_denied', 'A page of another origin may not call this server; only its own web page may.', { details: { reason: 'origin_not_allowed' } });
    }
  };
}

interface OwnNames {
  /** Whether `host` (`name[:port]`, lowercase) names this end of the connection. */
  matches(host: string): boolean;
}

function ownNames(request: FastifyRequest): OwnNames {
  const socket = request.raw.socket;
  const address = socket.localAddress;
  const port = socket.localPort;
  // No socket address: a request injected in-process (tests), which no browser can send.
  if (address === undefined || port === undefined) return { matches: (host) => LOOPBACK_NAMES.includes(hostPart(host).name) };
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const literal = isIP(plain) === 6 ? `[${plain}]` : plain;
  const names = isLoopback(plain) ? new Set([...LOOPBACK_NAMES, literal]) : new Set([literal]);
  return {
    matches: (host) => {
      const { name, port: given } = hostPart(host);
      return names.has(name) && (given ?? 80) === port;
    },
  };
}

/** The name and port (undefined when absent) of a Host header value or URL host; an empty name when it is neither. */
function hostPart(host: string): { readonly name: string; readonly port: number | undefined } {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (match === null) return { name: '', port: undefined };
  return { name: match[1]!, port: match[2] === undefined ? undefined : Number(match[2]) };
}

function ownOrigin(origin: string, own: OwnNames): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  // Anything but a bare `http://host[:port]` is not an origin this server serves pages from.
  return parsed.protocol === 'http:' && parsed.origin === origin && own.matches(parsed.host);
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}
