/**
 * Package credentials (`neuralis.credentials[]`) at the four scopes, written by their owners
 * (platform/package-secrets.ts decides who) and never read back: answers say which scopes hold a
 * value, not the value.
 */
import type { Call, RouteSpec } from '../route.js';
import type { SecretActor } from '../../platform/package-secrets.js';

const TAG = 'credentials';

function actor(call: Call): SecretActor {
  return { userId: call.principal.userId, agentId: call.principal.agentId, features: call.principal.features };
}

/** The deployment's scope names no network; every other scope is in the one the call names or the token's. */
async function networkFor(call: Call, target: { readonly scope: string; readonly network?: string }): Promise<string | undefined> {
  return target.scope === 'deployment' && target.network === undefined ? undefined : call.network(target.network);
}

const scope = { type: 'string', enum: ['deployment', 'network', 'user', 'agent'] };
const target = {
  packageId: { type: 'string', minLength: 1, maxLength: 214 },
  credential: { type: 'string', minLength: 1, maxLength: 256 },
  scope,
  network: { type: 'string', minLength: 1, maxLength: 64, description: "Default: the token's network, when it has one." },
};
const credentialView = {
  type: 'object',
  properties: {
    packageId: { type: 'string' },
    credential: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string', description: "The manifest's words for what it is for, when it gives any." },
    fields: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, label: { type: 'string' }, secret: { type: 'boolean' } }, required: ['name', 'label', 'secret'] } },
    stored: { type: 'object', properties: { deployment: { type: 'boolean' }, network: { type: 'boolean' }, user: { type: 'boolean' }, agent: { type: 'boolean' } } },
  },
  required: ['packageId', 'credential', 'label', 'fields', 'stored'],
};

export const credentialRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    url: '/v1/credentials',
    operationId: 'listPackageCredentials',
    action: 'credentials.list',
    summary: "The loaded packages' declared credentials, and which of the caller's scopes hold a value (never the value)",
    tag: TAG,
    querystring: { type: 'object', properties: { network: target.network }, additionalProperties: false },
    responses: { 200: { description: 'By package, in manifest order.', schema: { type: 'array', items: credentialView } } },
    handler: async (call) => {
      const { network } = (call.request.query ?? {}) as { network?: string };
      return call.services.platform.packageSecrets.list(actor(call), await call.network(network));
    },
  },
  {
    method: 'PUT',
    url: '/v1/credentials',
    operationId: 'setPackageCredential',
    action: 'credentials.set',
    summary: "Store a package credential at a scope the caller owns: the deployment's, the network's, the caller's own (user) or the calling agent's",
    tag: TAG,
    body: {
      type: 'object',
      properties: { ...target, values: { type: 'object', additionalProperties: { type: 'string', maxLength: 65536 }, description: 'Field name → value; a one-secret credential has the field "value".' } },
      required: ['packageId', 'credential', 'scope', 'values'],
      additionalProperties: false,
    },
    responses: { 204: { description: 'Stored; it is never shown again.' } },
    handler: async (call) => {
      const body = call.request.body as { packageId: string; credential: string; scope: string; network?: string; values: Record<string, string> };
      await call.services.platform.packageSecrets.set(actor(call), { ...body, network: await networkFor(call, body) }, body.values);
      return undefined;
    },
  },
  {
    method: 'DELETE',
    url: '/v1/credentials',
    operationId: 'removePackageCredential',
    action: 'credentials.remove',
    summary: 'Remove a package credential from a scope the caller owns',
    tag: TAG,
    querystring: { type: 'object', properties: target, required: ['packageId', 'credential', 'scope'], additionalProperties: false },
    responses: { 200: { description: 'Whether one was stored there.', schema: { type: 'object', properties: { removed: { type: 'boolean' } }, required: ['removed'] } } },
    handler: async (call) => {
      const query = call.request.query as { packageId: string; credential: string; scope: string; network?: string };
      return { removed: await call.services.platform.packageSecrets.remove(actor(call), { ...query, network: await networkFor(call, query) }) };
    },
  },
];
