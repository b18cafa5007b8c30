/**
 * The inseam server: one Fastify instance serving the web page at `/` (its files under `/web/`), the HTTP API at `/v1` and
 * the MCP endpoint at `/mcp`, over one platform.
 *
 *   const platform = await openPlatform({ dataDir });
 *   const app = await createServer({ platform });
 *   await app.listen({ host: '127.0.0.1', port: 7341 });
 *   …
 *   await app.close();        // stops accepting, finishes requests in flight
 *   await platform.close();   // pauses crawls at a checkpoint, closes the store
 *
 * Closing: while the requests in flight finish, the server still listens, and every new request —
 * on a new connection or a kept-alive one — is answered 503 `unavailable` with `Connection: close`:
 * a load balancer, an agent or the CLI gets an answer it can act on rather than a refused or reset
 * connection. Once nothing is in flight it stops listening and closes the idle connections.
 *
 * Every request is checked for its Host and Origin first (origins.ts); every refusal is the
 * error envelope (errors.ts), request bodies are parsed strictly (json-body.ts) and validated
 * without coercion (query strings, path parameters and headers are text, and are coerced).
 */
import type { Options as AjvOptions } from 'ajv';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { PermissionDeniedError, UnavailableError } from '@neuralis/package-system/contracts';
import { ConnectorLifecycle } from '../connectors/index.js';
import type { HostCredentials } from '../credentials/index.js';
import { FsService, type Caller } from '../fs/index.js';
import type { McpRouteOptions } from '../mcp/index.js';
import type { Platform } from '../platform/index.js';
import { authenticate, callerOf, networkOf } from './auth.js';
import { clientErrorAnswer, handleError, HttpError } from './errors.js';
import { parseJsonBody } from './json-body.js';
import { compiledOnFirstUse } from './lazy-validator.js';
import { buildOpenApi, type OpenApiDocument } from './openapi.js';
import { isMcpPath, requestGuard } from './origins.js';
import { registerRoutes, type ApiServices, type RouteSpec } from './route.js';
import { connectorRoutes } from './routes/connectors.js';
import { execRoutes } from './routes/exec.js';
import { fsRoutes } from './routes/fs.js';
import { hookRoutes } from './routes/hooks.js';
import { hostRoutes } from './routes/hosts.js';
import { OAuthSessions } from './oauth-sessions.js';
import { oauthRoutes } from './routes/oauth.js';
import { packageRoutes } from './routes/packages.js';
import { credentialRoutes } from './routes/credentials.js';
import { sessionRoutes } from './routes/sessions.js';
import { SessionService } from './sessions.js';
import { TokenService } from './tokens.js';
import { WebhookKeys } from './webhook-keys.js';
import { registerWebPage } from '../web/assets.js';
import { DEFAULT_MAX_WRITE_BYTES } from './limits.js';

export { DEFAULT_MAX_WRITE_BYTES };
export const API_VERSION = '0.1.0';

export interface HttpServerOptions {
  readonly platform: Platform;
  /** Default: a FsService over the platform. */
  readonly fs?: FsService;
  /** Default: a lifecycle over the platform (its installed kinds are restored by the caller: see `restore`). */
  readonly connectors?: ConnectorLifecycle;
  /** Default: tokens in the platform's store. */
  readonly tokens?: TokenService;
  /** Default: the web page's sign-in codes and sessions in the platform's store. */
  readonly sessions?: SessionService;
  /** The largest body a write accepts, in bytes. Default 64 MiB. */
  readonly maxWriteBytes?: number;
  /** Fastify's logger option; default off. */
  readonly logger?: FastifyServerOptions['logger'];
  /** Options of the MCP endpoint at `/mcp` (inseam/mcp); `false` leaves it out. */
  readonly mcp?: McpRouteOptions | false;
  /**
   * OAuth from the web page (routes/oauth.ts): the credential store grants go to (default the
   * platform's) and the redirect URI (default `<origin of the request>/v1/oauth/callback`).
   */
  readonly oauth?: { readonly credentials?: HostCredentials; readonly redirectUri?: string };
  /**
   * The address people reach the server at when it is not one it listens on (a reverse proxy, a
   * DNS name): its host is accepted in `Host` and its origin in `Origin` (origins.ts).
   */
  readonly publicUrl?: string;
}

/** Ajv as Fastify configures it, but never removing a misspelt field (it is refused) and never coercing a body. */
export const AJV_OPTIONS: AjvOptions = { removeAdditional: false, useDefaults: true, allErrors: false, addUsedSchema: false, coerceTypes: false };

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const CLOSING_HEADERS: Readonly<Record<string, string>> = Object.freeze({ connection: 'close' });

/** Requests whose answer is a stream that lasts as long as the client wants: the MCP endpoint's GET (server-sent events). Shutdown does not wait for them. */
function isEventStream(request: FastifyRequest): boolean {
  return request.method === 'GET' && isMcpPath(request.url);
}

/** The API's route table (without the OpenAPI route itself). */
export const API_ROUTES: readonly RouteSpec[] = [...hostRoutes, ...hookRoutes, ...fsRoutes, ...execRoutes, ...connectorRoutes, ...packageRoutes, ...credentialRoutes, ...oauthRoutes, ...sessionRoutes];

export async function createServer(options: HttpServerOptions): Promise<FastifyInstance> {
  let closing = false;
  const services: ApiServices = {
    platform: options.platform,
    fs: options.fs ?? new FsService(options.platform),
    connectors: options.connectors ?? new ConnectorLifecycle(options.platform),
    tokens: options.tokens ?? new TokenService(options.platform.store.tokens),
    sessions: options.sessions ?? new SessionService(options.platform.store.sessions),
    webhookKeys: new WebhookKeys(options.platform.store.webhookKeys),
    maxWriteBytes: options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES,
    oauth: new OAuthSessions({
      credentials: options.oauth?.credentials ?? options.platform.credentials,
      ...(options.oauth?.redirectUri === undefined ? {} : { redirectUri: options.oauth.redirectUri }),
    }),
    // A keep-alive connection whose request finishes during shutdown must not hold the close open.
    answerHeaders: () => (closing ? CLOSING_HEADERS : NO_HEADERS),
  };
  const guard = requestGuard(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl });
  const app = Fastify({
    logger: options.logger ?? false,
    return503OnClosing: false,
    // Routing refusals (a path parameter over the limit, a broken percent-encoding) and the HTTP parser's (headers over 16 KiB) get the envelope too.
    frameworkErrors: (error, request, reply) => {
      handleError(error, request, reply);
    },
    clientErrorHandler: (error, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      // Not over an answer already under way on the connection.
      const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (socket.writable && current?.headersSent !== true) socket.write(clientErrorAnswer(error));
      socket.destroy(error);
    },
  });
  // Bodies are JSON a client typed: `kind: ["fs"]` or `slug: 123` is refused, never turned into a string. Query strings, path parameters and headers are text: their numbers, booleans and repeated parameters are read from it.
  // Loaded here, not with the module: commands that import the HTTP layer without serving need none of it.
  const { Ajv } = await import('ajv');
  const bodies = new Ajv(AJV_OPTIONS);
  const texts = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => compiledOnFirstUse(httpPart === 'body' ? bodies : texts, schema));
  // JSON only: a text/plain body (Fastify reads one by default) is 415 like any other type.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    let value: unknown;
    try {
      value = parseJsonBody(text as string);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });

  let inFlight = 0;
  let drained: (() => void) | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    services.oauth.close();
    // Still listening while the requests in flight finish: a request on a new or a kept-alive connection is answered 503 `unavailable` (an answer a client can act on, where a refused connection reads as "no server here"). Fastify's close then stops listening and ends the idle connections.
    if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  });
  app.addHook('onRequest', async (request, reply) => {
    guard(request);
    if (closing) throw new UnavailableError('The server is shutting down; try again once it is back.', { details: { reason: 'shutting_down' } });
    if (isEventStream(request)) return;
    inFlight += 1;
    reply.raw.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  });
  // Every answer Fastify sends gets the server's headers; a route writing the raw response (byte-body.ts) adds them itself.
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(services.answerHeaders());
  });
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    handleError(new HttpError('not_found', `There is no ${request.method} route at this path; see /v1/openapi.json for the routes.`, { details: { reason: 'no_route' } }), request, reply),
  );

  let document: OpenApiDocument | undefined;
  const openapi: RouteSpec = {
    method: 'GET',
    url: '/v1/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This description',
    tag: 'meta',
    action: 'api.describe',
    responses: { 200: { description: 'The OpenAPI 3.1 document.', schema: { type: 'object' } } },
    handler: async () => document,
  };
  const routes = [openapi, ...API_ROUTES];
  document = buildOpenApi(routes, { version: API_VERSION });
  await registerRoutes(app, routes, services);

  await registerWebPage(app);
  if (options.mcp !== false) {
    // Loaded only when mounted: the MCP SDK is a large graph a server without /mcp does not need.
    const { registerMcpRoutes } = await import('../mcp/index.js');
    await registerMcpRoutes(app, { platform: services.platform, fs: services.fs, authenticate: (request) => mcpCaller(request, services) }, options.mcp ?? {});
  }
  return app;
}

/**
 * The MCP endpoint's caller: the same bearer token, network rules and features as `/v1`. A
 * refusal is a typed error, which the endpoint answers 401 with `WWW-Authenticate`.
 */
async function mcpCaller(request: FastifyRequest, services: ApiServices): Promise<Caller> {
  let principal;
  try {
    principal = await authenticate(request.headers.authorization, services.tokens, services.sessions);
  } catch (error) {
    if (error instanceof HttpError) throw new PermissionDeniedError(error.message, { details: error.details });
    throw error;
  }
  return callerOf(principal, await networkOf(principal, request, services.platform.store));
}
