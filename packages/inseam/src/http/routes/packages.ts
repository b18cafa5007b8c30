/**
 * Connector packages installed into the deployment while it runs (platform/installed-packages.ts):
 * list, install with the trust the person gives, swap for a new version, remove. Installing puts
 * code into inseam's own process, so every change is a person's act with `packages.manage`.
 */
import type { RouteSpec } from '../route.js';

const TAG = 'packages';

const packageView = {
  type: 'object',
  properties: {
    packageId: { type: 'string' },
    version: { type: 'string' },
    trust: { type: 'string', enum: ['first-party', 'trusted', 'untrusted', 'sandboxed'] },
    builtin: { type: 'boolean' },
    state: { type: 'string', enum: ['loaded', 'failed'] },
    kinds: { type: 'array', items: { type: 'string' } },
    folder: { type: 'string' },
    network: { type: 'string', description: "For a network's own _packages/ drop: that network." },
    installedAt: { type: 'integer' },
    installedBy: { type: 'string' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['packageId', 'trust', 'builtin', 'state', 'kinds'],
};

const packageParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 214 } }, required: ['id'], additionalProperties: false };

function packageId(params: unknown): string {
  return (params as { id: string }).id;
}

export const packageRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    url: '/v1/packages',
    operationId: 'listPackages',
    action: 'packages.list',
    summary: 'The built-in and installed connector packages, their trust, kinds and state',
    tag: TAG,
    responses: { 200: { description: 'Built-ins first, then installed packages by id.', schema: { type: 'array', items: packageView } } },
    handler: (call) => call.services.platform.packages.list(),
  },
  {
    method: 'POST',
    url: '/v1/packages',
    operationId: 'addPackage',
    action: 'packages.add',
    summary: 'Install the connector package in a folder on the server, with the trust the person gives it',
    description: 'Loaded now (a manifest or module that fails is refused and nothing is stored). `trust` is the person\'s: "trusted" runs in inseam\'s process and may add source kinds; "untrusted" and "sandboxed" may contribute MCP connectors only.',
    tag: TAG,
    body: {
      type: 'object',
      properties: {
        folder: { type: 'string', minLength: 1, maxLength: 4096, description: 'An absolute path on the server.' },
        trust: { type: 'string', enum: ['trusted', 'untrusted', 'sandboxed'] },
      },
      required: ['folder', 'trust'],
      additionalProperties: false,
    },
    responses: { 201: { description: 'Installed.', schema: packageView } },
    handler: async (call) => {
      const body = call.request.body as { folder: string; trust: string };
      const added = await call.services.platform.packages.add(body.folder, body.trust, call.principal.userId);
      call.reply.code(201);
      return added;
    },
  },
  {
    method: 'POST',
    url: '/v1/packages/:id/swap',
    operationId: 'swapPackage',
    action: 'packages.swap',
    summary: 'Replace an installed package with a new version, keeping its trust',
    description: 'Without `folder`, the folder it was installed from is read again. On failure the previous version stays loaded.',
    tag: TAG,
    params: packageParams,
    body: { type: 'object', properties: { folder: { type: 'string', minLength: 1, maxLength: 4096 } }, additionalProperties: false },
    responses: { 200: { description: 'Swapped.', schema: packageView } },
    handler: (call) => {
      const body = (call.request.body ?? {}) as { folder?: string };
      return call.services.platform.packages.swap(packageId(call.request.params), body.folder === undefined ? {} : { folder: body.folder }, call.principal.userId);
    },
  },
  {
    method: 'POST',
    url: '/v1/packages/rescan',
    operationId: 'rescanPackages',
    action: 'packages.rescan',
    summary: "Load a network's _packages/ drops again: new and changed ones load, gone ones unload",
    description: 'Drops load untrusted, for that network alone: MCP connectors and sources of installed kinds.',
    tag: TAG,
    body: { type: 'object', properties: { network: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['network'], additionalProperties: false },
    responses: {
      200: {
        description: 'What the scan did.',
        schema: {
          type: 'object',
          properties: {
            network: { type: 'string' },
            loaded: { type: 'array', items: { type: 'string' } },
            unchanged: { type: 'array', items: { type: 'string' } },
            removed: { type: 'array', items: { type: 'string' } },
            failed: { type: 'array', items: { type: 'object', properties: { drop: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } }, required: ['drop', 'code', 'message'] } },
          },
          required: ['network', 'loaded', 'unchanged', 'removed', 'failed'],
        },
      },
    },
    handler: async (call) => {
      const network = await call.network((call.request.body as { network: string }).network);
      return call.services.platform.packages.rescan(network);
    },
  },
  {
    method: 'DELETE',
    url: '/v1/packages/:id',
    operationId: 'removePackage',
    action: 'packages.remove',
    summary: 'Remove an installed package; hosts of its kinds stay as orphans',
    tag: TAG,
    params: packageParams,
    responses: { 204: { description: 'Removed.' } },
    handler: async (call) => {
      await call.services.platform.packages.remove(packageId(call.request.params));
      return undefined;
    },
  },
];
