/**
 * One table of routes drives both the server and its OpenAPI description: each RouteSpec carries
 * the JSON Schemas Fastify validates its path parameters, query, headers and body against, the
 * schemas of its answers (documentation: answers are sent as the services give them), the action
 * of the authorization table it is (platform/authorization.ts: what the caller must hold, the
 * same rule the MCP tools are checked by), and its handler. openapi.ts builds the document from
 * the same objects, so the two cannot drift.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectorLifecycle } from '../connectors/index.js';
import type { Caller, FsService } from '../fs/index.js';
import { refusal, ruleOf, type ActionId } from '../platform/authorization.js';
import type { Platform } from '../platform/index.js';
import { authenticate, callerOf, networkOf, type Principal } from './auth.js';
import { HttpError } from './errors.js';
import type { OAuthSessions } from './oauth-sessions.js';
import type { SessionService } from './sessions.js';
import type { TokenService } from './tokens.js';
import type { WebhookKeys } from './webhook-keys.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** What the platform side of the server is made of. */
export interface ApiServices {
  readonly platform: Platform;
  readonly fs: FsService;
  readonly connectors: ConnectorLifecycle;
  readonly tokens: TokenService;
  /** The web page's sign-in codes and sessions (sessions.ts). */
  readonly sessions: SessionService;
  /** Hosts' webhook keys (routes/hooks.ts). */
  readonly webhookKeys: WebhookKeys;
  /** The largest body `PUT /v1/fs/write` accepts, in bytes. */
  readonly maxWriteBytes: number;
  /** The OAuth flows the web page started (routes/oauth.ts). */
  readonly oauth: OAuthSessions;
  /**
   * The headers the server adds to every answer as it is sent (its onSend hook: `Connection:
   * close` while shutting down). A route that writes the raw response sends them itself.
   */
  readonly answerHeaders: () => Readonly<Record<string, string>>;
}

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: JsonSchema;
  /** Default `application/json`. */
  readonly contentType?: string;
  /** Response headers worth documenting, name → description. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One handler invocation: the request, its principal, and ways to reach the services. */
export interface Call {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly services: ApiServices;
  /** The authenticated principal (routes marked `public` have none and must not ask). */
  readonly principal: Principal;
  /** The network the call works in; `named` is the network the route itself names (auth.ts). */
  network(named?: string): Promise<string>;
  /** The filesystem caller in that network. */
  caller(named?: string): Promise<Caller>;
  /** The request body as a stream (routes with `rawBody` only). */
  rawBody(): Readable;
}

export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's form: `/v1/hosts/:network/:host`. */
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  /** What the call is in the authorization table: who may make it (`permission_denied` otherwise), or that it needs no token. */
  readonly action: ActionId;
  readonly params?: JsonSchema;
  readonly querystring?: JsonSchema;
  readonly headers?: JsonSchema;
  readonly body?: JsonSchema;
  /** The body is taken as a byte stream of any content type instead of JSON. */
  readonly rawBody?: { readonly description: string };
  /** The JSON body may be left out; it is then `{}`. */
  readonly optionalBody?: boolean;
  /** Bytes of JSON body accepted; default Fastify's 1 MiB. */
  readonly bodyLimit?: number;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /**
   * Answers the call. A value is sent as JSON with the status set on `reply` (200 unless set);
   * `undefined` is 204 No Content; a handler that sent the reply itself returns `reply`.
   */
  readonly handler: (call: Call) => Promise<unknown>;
}

/** Whether a route needs no token (its action is public). */
export function isPublic(spec: Pick<RouteSpec, 'action'>): boolean {
  return ruleOf(spec.action)?.public === true;
}

/** Registers routes on `app` (the raw-body routes in a scope of their own, where no parser reads bodies). */
export async function registerRoutes(app: FastifyInstance, specs: readonly RouteSpec[], services: ApiServices): Promise<void> {
  for (const spec of specs.filter((item) => item.rawBody === undefined)) addRoute(app, spec, services);
  const raw = specs.filter((item) => item.rawBody !== undefined);
  if (raw.length === 0) return;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // The body stays a stream: the handler reads it with its own limit.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const spec of raw) addRoute(scope, spec, services);
  });
}

function addRoute(app: FastifyInstance, spec: RouteSpec, services: ApiServices): void {
  const principals = new WeakMap<FastifyRequest, Principal>();
  const rule = ruleOf(spec.action);
  app.route({
    method: spec.method,
    url: spec.url,
    ...(spec.bodyLimit === undefined ? {} : { bodyLimit: spec.bodyLimit }),
    schema: {
      ...(spec.params === undefined ? {} : { params: spec.params }),
      ...(spec.querystring === undefined ? {} : { querystring: spec.querystring }),
      ...(spec.headers === undefined ? {} : { headers: spec.headers }),
      ...(spec.body === undefined ? {} : { body: spec.body }),
    },
    // Who calls, and whether the table lets them, is settled before anything of the request is
    // read or validated: a caller without the right learns nothing about the route's inputs.
    onRequest: async (request: FastifyRequest) => {
      if (rule?.public === true) return;
      const principal = await authenticate(request.headers.authorization, services.tokens, services.sessions);
      const refused = refusal(rule, principal, 'This call');
      if (refused !== null) throw refused;
      principals.set(request, principal);
    },
    ...(spec.optionalBody === true
      ? {
          preValidation: async (request: FastifyRequest) => {
            request.body ??= {};
          },
        }
      : {}),
    handler: async (request, reply) => {
      const principal = principals.get(request);
      const call: Call = {
        request,
        reply,
        services,
        get principal(): Principal {
          if (principal === undefined) throw new HttpError('internal', `Route ${spec.operationId} is public and has no principal.`);
          return principal;
        },
        network: (named) => networkOf(call.principal, request, services.platform.store, named),
        caller: async (named) => callerOf(call.principal, await call.network(named)),
        // A request without a body (no Content-Type, or Content-Length: 0) is not parsed at all: it is empty.
        rawBody: () => (request.body instanceof Readable ? request.body : Readable.from([])),
      };
      const result = await spec.handler(call);
      if (result === reply || reply.sent) return reply;
      if (result === undefined) return reply.code(204).send();
      return reply.send(result);
    },
  });
}
