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
 * Requests that arrive once closing began are answered 503 `unavailable`.
 */
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { PermissionDeniedError, UnavailableError } from '@neuralis/package-system/contracts';
import { ConnectorLifecycle } from '../connectors/index.js';
import type { HostCredentials } from '../credentials/index.js';
import { FsService, type Caller } from '../fs/index.js';
import type { McpRouteOptions } from '../mcp/index.js';
import type { Platform } from '../platform/index.js';
import { authenticate, callerOf, networkOf } from './auth.js';
import { handleError, HttpError } from './errors.js';
import { buildOpenApi, type OpenApiDocument } from './openapi.js';
import { registerRoutes, type ApiServices, type RouteSpec } from './route.js';
import { connectorRoutes } from './routes/connectors.js';
import { execRoutes } from './routes/exec.js';
import { fsRoutes } from './routes/fs.js';
import { hookRoutes } from './routes/hooks.js';
import { hostRoutes } from './routes/hosts.js';
import { OAuthSessions, oauthRoutes } from './routes/oauth.js';
import { TokenService } from './tokens.js';
import { WebhookKeys } from './webhook-keys.js';
import { registerWebPage } from '../web/assets.js';

/** The largest body `PUT /v1/fs/write` accepts by default: 64 MiB. */
export const DEFAULT_MAX_WRITE_BYTES = 64 * 1024 * 1024;
export const API_VERSION = '0.1.0';

export interface HttpServerOptions {
  readonly platform: Platform;
  /** Default: a FsService over the platform. */
  readonly fs?: FsService;
  /** Default: a lifecycle over the platform (its installed kinds are restored by the caller: see `restore`). */
  readonly connectors?: ConnectorLifecycle;
  /** Default: tokens in the platform's store. */
  readonly tokens?: TokenService;
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
}

/** The API's route table (without the OpenAPI route itself). */
export const API_ROUTES: readonly RouteSpec[] = [...hostRoutes, ...hookRoutes, ...fsRoutes, ...execRoutes, ...connectorRoutes, ...oauthRoutes];

export async function createServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const services: ApiServices = {
    platform: options.platform,
    fs: options.fs ?? new FsService(options.platform),
    connectors: options.connectors ?? new ConnectorLifecycle(options.platform),
    tokens: options.tokens ?? new TokenService(options.platform.store.tokens),
    webhookKeys: new WebhookKeys(options.platform.store.webhookKeys),
    maxWriteBytes: options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES,
    oauth: new OAuthSessions({
      credentials: options.oauth?.credentials ?? options.platform.credentials,
      ...(options.oauth?.redirectUri === undefined ? {} : { redirectUri: options.oauth.redirectUri }),
    }),
  };
  const app = Fastify({
    logger: options.logger ?? false,
    // A misspelt field is refused, never silently dropped; query numbers are coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    return503OnClosing: false,
  });
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    services.oauth.close();
    done();
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new UnavailableError('The server is shutting down; try again once it is back.', { details: { reason: 'shutting_down' } });
  });
  // A keep-alive connection whose request finishes during shutdown must not hold the close open.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    handleError(new HttpError('not_found', `There is no route ${request.method} ${request.url.split('?')[0] ?? ''}; see /v1/openapi.json.`, { details: { reason: 'no_route' } }), request, reply),
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
    principal = await authenticate(request.headers.authorization, services.tokens);
  } catch (error) {
    if (error instanceof HttpError) throw new PermissionDeniedError(error.message, { details: error.details });
    throw error;
  }
  return callerOf(principal, await networkOf(principal, request, services.platform.store));
}
