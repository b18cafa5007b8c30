/**
 * One table of routes drives both the server and its OpenAPI description: each RouteSpec carries
 * the JSON Schemas Fastify validates its path parameters, query, headers and body against, the
 * schemas of its answers (documentation: answers are sent as the services give them), the feature
 * it needs, and its handler. openapi.ts builds the document from the same objects, so the two
 * cannot drift.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectorLifecycle } from '../connectors/index.js';
import type { Caller, FsService } from '../fs/index.js';
import type { Platform } from '../platform/index.js';
import { authenticate, callerOf, networkOf, requireFeature, type Principal } from './auth.js';
import { HttpError } from './errors.js';
import type { OAuthSessions } from './routes/oauth.js';
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
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify's form: `/v1/hosts/:network/:host`. */
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  /** No token needed. */
  readonly public?: boolean;
  /** A token feature the call needs (`permission_denied` without it). */
  readonly feature?: string;
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
    ...(spec.optionalBody === true
      ? {
          preValidation: async (request: FastifyRequest) => {
            request.body ??= {};
          },
        }
      : {}),
    handler: async (request, reply) => {
      const principal = spec.public === true ? undefined : await authenticate(request.headers.authorization, services.tokens, services.sessions);
      if (principal !== undefined && spec.feature !== undefined) requireFeature(principal, spec.feature);
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
