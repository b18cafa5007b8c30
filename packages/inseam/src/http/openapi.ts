/**
 * The OpenAPI 3.1 description of `/v1`, assembled from the route table's own schemas (route.ts),
 * so what is validated and what is documented are the same objects.
 */
import { ruleOf } from '../platform/authorization.js';
import { isPublic, type JsonSchema, type RouteSpec } from './route.js';
import { errorSchema } from './schemas.js';

export type OpenApiDocument = Readonly<Record<string, unknown>>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

function parameters(location: 'path' | 'query' | 'header', schema: JsonSchema | undefined): Record<string, unknown>[] {
  if (schema === undefined) return [];
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string; type?: unknown };
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: rest,
      ...(location === 'query' && rest['type'] === 'array' ? { style: 'form', explode: true } : {}),
    };
  });
}

function operation(spec: RouteSpec): Record<string, unknown> {
  const features = ruleOf(spec.action)?.features ?? [];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema === undefined ? {} : { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }),
      ...(response.headers === undefined ? {} : { headers: Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }),
    };
  }
  if (!isPublic(spec)) responses['401'] = { description: 'No valid token (`unauthenticated`).', content: { 'application/json': { schema: ERROR_REF } } };
  responses['default'] = { description: 'An error; its `code` says which (see the status table in docs/http.md).', content: { 'application/json': { schema: ERROR_REF } } };
  const body = spec.rawBody !== undefined
    ? { required: true, description: spec.rawBody.description, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
    : spec.body === undefined
      ? undefined
      : { required: ((spec.body['required'] ?? []) as string[]).length > 0, content: { 'application/json': { schema: spec.body } } };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [spec.tag],
    ...(isPublic(spec) ? { security: [] } : {}),
    'x-inseam-action': spec.action,
    ...(features.length === 0 ? {} : { 'x-inseam-features': features }),
    parameters: [...parameters('path', spec.params), ...parameters('query', spec.querystring), ...parameters('header', spec.headers)],
    ...(body === undefined ? {} : { requestBody: body }),
    responses,
  };
}

/** The document for a route table. */
export function buildOpenApi(specs: readonly RouteSpec[], info: { readonly version: string }): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const path = spec.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] = { ...(paths[path] ?? {}), [spec.method.toLowerCase()]: operation(spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'inseam API',
      version: info.version,
      description:
        'Many data sources mounted into one URI-addressed filesystem. Every call but this document carries `Authorization: Bearer <token>` (`inseam token create`). A token for every network names the network with the `Inseam-Network` header (or a global address); errors are `{ "error": { "code", "message", "details" } }`.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An inseam API token (inseam_…).' } },
      schemas: { Error: errorSchema },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
