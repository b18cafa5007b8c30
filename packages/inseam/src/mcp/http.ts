/**
 * MCP over Streamable HTTP at `/mcp` (POST, GET, DELETE), for the Fastify server.
 *
 * Sessions. The endpoint is session-based: `initialize` (a POST without `Mcp-Session-Id`) makes a
 * session — one SDK server and transport — and the answer carries its id. The session belongs to
 * the identity that opened it (network, user, agent); every later request authenticates again
 * with its own bearer token and must resolve to that same identity, or it is answered 404 as if
 * the session did not exist. Each request's tools run with the caller of that request, so a
 * revoked token or a lost feature takes effect at once. Sessions end on DELETE, after
 * `sessionIdleMs` without a request, and when the server closes; at most `maxSessions` live at
 * once (503 beyond).
 *
 * Host and Origin are checked by the HTTP server before this handler runs (http/origins.ts): a
 * request under another name, or from a page of another origin, is refused 403 as the MCP
 * specification's Streamable HTTP transport requires, before a session exists.
 *
 * Authentication is the HTTP server's: `authenticate(request)` resolves the bearer token to a
 * Caller or throws. An error carrying a 4xx `status` (the HTTP server's own) is answered with that
 * status and its headers; another typed refusal is 401 with `WWW-Authenticate: Bearer` and its
 * message; `unavailable`/`timeout` (the store) 503; anything else 500 without details.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isConnectorError } from '@neuralis/package-system/contracts';
import type { Caller } from '../fs/index.js';
import { CALLER_KEY, McpHost, type McpHostDeps, type McpHostOptions } from './host.js';

export const MCP_PATH = '/mcp';
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** Largest request body: a write of a few MiB of base64 fits. */
export const DEFAULT_MCP_BODY_LIMIT = 16 * 1024 * 1024;

export interface McpRouteDeps extends McpHostDeps {
  /** Resolves the request's bearer token to its caller; throws (`permission_denied`) when it cannot. */
  authenticate(request: FastifyRequest): Caller | Promise<Caller>;
}

export interface McpRouteOptions extends McpHostOptions {
  /** Default 1000. */
  readonly maxSessions?: number;
  /** Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Default 16 MiB. */
  readonly bodyLimit?: number;
}

interface Session {
  readonly owner: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastUsed: number;
}

/**
 * Mounts `/mcp` on `app` and returns the MCP host behind it. The host, its sessions and their
 * outbound connections close with the app. Throws as McpHost.open.
 */
export async function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps, options: McpRouteOptions = {}): Promise<McpHost> {
  const host = await McpHost.open(deps, options);
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;

  const end = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    await session.server.close().catch(() => undefined);
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) if (now - session.lastUsed > idleMs) void end(id);
  }, Math.min(idleMs, 60_000));
  sweep.unref();

  const open = async (owner: string): Promise<Session> => {
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session!);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const server = host.createServer();
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id) === session) sessions.delete(id);
    };
    await server.connect(transport);
    session = { owner, server, transport, lastUsed: Date.now() };
    return session;
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let caller: Caller;
    try {
      caller = await deps.authenticate(request);
    } catch (error) {
      refuseAuthentication(reply, error);
      return;
    }
    const owner = identityOf(caller);
    const header = request.headers['mcp-session-id'];
    let session: Session;
    let fresh = false;
    if (typeof header === 'string') {
      const found = sessions.get(header);
      if (found === undefined || found.owner !== owner) {
        rpcError(reply, 404, -32001, 'Session not found: start a new one with initialize.');
        return;
      }
      session = found;
    } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
      if (sessions.size >= maxSessions) {
        rpcError(reply, 503, -32000, 'Too many open MCP sessions; close one (DELETE /mcp) or retry later.');
        return;
      }
      session = await open(owner);
      fresh = true;
    } else {
      rpcError(reply, 400, -32000, 'Bad request: send initialize first, then the Mcp-Session-Id it returned.');
      return;
    }
    session.lastUsed = Date.now();
    const auth: AuthInfo = { token: '', clientId: caller.session.userId, scopes: [], extra: { [CALLER_KEY]: caller } };
    (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } finally {
      // An initialize the transport refused made no session: drop its server.
      if (fresh && session.transport.sessionId === undefined) await session.server.close().catch(() => undefined);
    }
  };

  const bodyLimit = options.bodyLimit ?? DEFAULT_MCP_BODY_LIMIT;
  app.route({ method: ['POST', 'GET', 'DELETE'], url: MCP_PATH, bodyLimit, handler: handle });
  app.addHook('preClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.keys()].map(end));
    await host.close();
  });
  return host;
}

/** The identity a session is bound to. */
function identityOf(caller: Caller): string {
  const { projectId, userId, agentId } = caller.session;
  return JSON.stringify([projectId, userId, agentId ?? null]);
}

function refuseAuthentication(reply: FastifyReply, error: unknown): void {
  // The HTTP server's own refusals carry their status and headers (401 with WWW-Authenticate).
  const http = error as { status?: unknown; headers?: unknown; message?: unknown } | null;
  if (typeof http?.status === 'number' && http.status >= 400 && http.status < 500 && typeof http.message === 'string') {
    const headers = typeof http.headers === 'object' && http.headers !== null ? (http.headers as Record<string, string>) : {};
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    if (http.status === 401 && headers['www-authenticate'] === undefined) reply.header('www-authenticate', 'Bearer realm="inseam"');
    rpcError(reply, http.status, -32001, http.message);
  } else if (isConnectorError(error) && (error.code === 'unavailable' || error.code === 'timeout')) {
    rpcError(reply, 503, -32000, error.message);
  } else if (isConnectorError(error)) {
    reply.header('www-authenticate', 'Bearer realm="inseam"');
    rpcError(reply, 401, -32001, error.message);
  } else {
    rpcError(reply, 500, -32603, 'The request could not be authenticated because of an unexpected failure.');
  }
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string): void {
  void reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}
