/**
 * Webhooks (docs/http.md#webhooks). A SaaS cannot hold a bearer token, so a host that takes
 * webhooks gets a URL of its own with an unguessable key in it (webhook-keys.ts):
 *
 * - `POST /v1/hosts/{network}/{host}/webhook-url` (hosts.manage) mints the key and answers the URL
 *   once; minting again replaces it. `DELETE` revokes it; `GET` says whether one is set.
 * - `POST /v1/hooks/{network}/{host}/{key}` is the delivery: no token, only the key. The request —
 *   method, headers and body byte for byte, with the key cut from its URL — goes to the host's
 *   connector, whose `webhook()` verifies any signature and turns it into change events. On the
 *   embedded store they are applied here and the answer counts them (200); on the shared store
 *   the delivery is queued for the worker holding the host and the answer is the job (202).
 *
 * A wrong key, a key of another host, no key, and an unknown host all answer the same 404 — a
 * caller without the key learns nothing about which hosts exist. Bodies are capped at
 * MAX_WEBHOOK_BYTES (`too_large`); a host whose connector cannot take webhooks is `unsupported`.
 */
import { NotFoundError, TooLargeError, UnsupportedOperationError, isConnectorError } from '@neuralis/package-system/contracts';
import { MAX_WEBHOOK_BYTES, type Platform } from '../../platform/index.js';
import type { HostRecord, HostRef } from '../../store/index.js';
import { readBody } from '../body.js';
import type { Call, RouteSpec } from '../route.js';
import { hostParams, hostSlug, networkSlug } from '../schemas.js';
import { hostRef, visibleHost } from './hosts.js';

const TAG = 'webhooks';

/** Headers about the connection, not the delivery: a signature never covers them. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection', 'content-length', 'host']);

/** The delivery path of a host, without its key. */
export function hookPath(ref: HostRef): string {
  return `/v1/hooks/${encodeURIComponent(ref.network)}/${encodeURIComponent(ref.host)}`;
}

function noWebhook(): NotFoundError {
  // The same answer whatever was wrong: the key, the host, or both.
  return new NotFoundError('There is no webhook at this address; mint the host\'s webhook URL again with `inseam host webhook-url`.', { details: { reason: 'no_webhook' } });
}

/**
 * `unsupported` unless the host's connector has a `webhook()` (the skill document's webhook
 * capability). A sandboxed module without one answers `unsupported` when called.
 */
export async function requireWebhooks(platform: Pick<Platform, 'kinds'>, host: HostRecord): Promise<void> {
  const connector = await platform.kinds.openHost(host);
  if (typeof connector.webhook !== 'function') throw new UnsupportedOperationError(host.kind, 'webhook');
}

/** The delivery as the connector gets it: the same method, headers and body, at the URL without the key. */
function deliveryRequest(call: Call, ref: HostRef, body: Buffer): Request {
  const { request } = call;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = `${request.protocol}://${request.headers.host ?? 'localhost'}${hookPath(ref)}`;
  return new Request(url, { method: request.method, headers, body: new Uint8Array(body) });
}

const keyParams = {
  type: 'object',
  properties: { network: networkSlug, host: hostSlug, key: { type: 'string', maxLength: 128 } },
  required: ['network', 'host', 'key'],
  additionalProperties: false,
};

const mintedUrl = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'The delivery URL, key included: shown this once.' },
    path: { type: 'string', description: 'The same without scheme and host, for a server behind a proxy that rewrites them.' },
    createdAt: { type: 'integer' },
    replaced: { type: 'boolean', description: 'An earlier URL of the host stopped working.' },
  },
  required: ['url', 'path', 'createdAt', 'replaced'],
};

export const hookRoutes: readonly RouteSpec[] = [
  {
    method: 'POST',
    url: '/v1/hosts/:network/:host/webhook-url',
    operationId: 'mintWebhookUrl',
    action: 'hosts.webhookUrl',
    optionalBody: true,
    summary: 'Mint the host\'s webhook URL (replacing any), shown once',
    description:
      'Give the URL to the service that sends the webhooks. Only a hash of its key is stored: it cannot be shown again, and minting a new one makes the old one stop working. The host\'s connector must take webhooks (`unsupported` otherwise).',
    tag: TAG,
    params: hostParams,
    body: { type: 'object', additionalProperties: false },
    responses: { 201: { description: 'Minted.', schema: mintedUrl } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      await visibleHost(call, ref);
      await requireWebhooks(call.services.platform, await call.services.platform.networks.hostRecord(ref));
      const minted = await call.services.webhookKeys.mint(ref);
      const path = `${hookPath(ref)}/${minted.key}`;
      call.reply.code(201);
      return { url: `${call.request.protocol}://${call.request.headers.host ?? 'localhost'}${path}`, path, createdAt: minted.createdAt, replaced: minted.replaced };
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts/:network/:host/webhook-url',
    operationId: 'getWebhookUrl',
    action: 'hosts.webhookUrl',
    summary: 'Whether the host has a webhook URL, and since when (never the key)',
    tag: TAG,
    params: hostParams,
    responses: { 200: { description: 'The URL\'s state.', schema: { type: 'object', properties: { active: { type: 'boolean' }, createdAt: { anyOf: [{ type: 'integer' }, { type: 'null' }] } }, required: ['active', 'createdAt'] } } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      await visibleHost(call, ref);
      const key = await call.services.platform.store.webhookKeys.get(ref);
      return { active: key !== null, createdAt: key?.createdAt ?? null };
    },
  },
  {
    method: 'DELETE',
    url: '/v1/hosts/:network/:host/webhook-url',
    operationId: 'revokeWebhookUrl',
    action: 'hosts.webhookUrl',
    summary: 'Revoke the host\'s webhook URL',
    description: 'Deliveries to it answer 404 from now on. `not_found` when the host has none.',
    tag: TAG,
    params: hostParams,
    responses: { 204: { description: 'Revoked.' } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      await visibleHost(call, ref);
      if (!(await call.services.webhookKeys.revoke(ref))) throw new NotFoundError(`Host ${ref.network}/${ref.host} has no webhook URL.`, { details: { network: ref.network, host: ref.host, reason: 'no_webhook' } });
      return undefined;
    },
  },
  {
    method: 'POST',
    url: '/v1/hooks/:network/:host/:key',
    operationId: 'deliverWebhook',
    action: 'hooks.deliver',
    rawBody: { description: 'The delivery exactly as the service sends it (any content type, at most 1 MiB); the connector verifies and parses it.' },
    summary: 'A webhook delivery for a host (no token: the key in the URL)',
    description:
      'Applied to the host\'s catalog at once on the embedded store (200, with the counts); queued for the worker holding the host on the shared PostgreSQL store (202, with the job). A bad or revoked key and an unknown host answer the same 404. A delivery the connector refuses (a bad signature) answers its error.',
    tag: TAG,
    params: keyParams,
    responses: {
      200: {
        description: 'Applied.',
        schema: {
          type: 'object',
          properties: { state: { const: 'applied' }, written: { type: 'integer' }, moved: { type: 'integer' }, deleted: { type: 'integer' }, ignored: { type: 'integer' }, errors: { type: 'integer' }, rescan: { type: 'boolean' } },
          required: ['state', 'written', 'moved', 'deleted', 'ignored', 'errors', 'rescan'],
        },
      },
      202: { description: 'Queued for the worker holding the host.', schema: { type: 'object', properties: { state: { const: 'queued' }, job: { type: 'string' } }, required: ['state', 'job'] } },
    },
    handler: async (call) => {
      const { network, host, key } = call.request.params as { network: string; host: string; key: string };
      const ref = { network, host };
      const platform = call.services.platform;
      if (!(await call.services.webhookKeys.verify(ref, key))) throw noWebhook();
      const record = await platform.store.hosts.get(ref);
      if (record === null) throw noWebhook();
      await requireWebhooks(platform, record);
      const body = await readBody(call.rawBody(), MAX_WEBHOOK_BYTES, call.request.headers['content-length']).catch((error: unknown) => {
        if (isConnectorError(error) && error.code === 'too_large') {
          throw new TooLargeError(`A webhook delivery is at most ${MAX_WEBHOOK_BYTES} bytes.`, { details: { cap: MAX_WEBHOOK_BYTES } });
        }
        throw error;
      });
      const receipt = await platform.crawls.webhook(record, deliveryRequest(call, ref, body));
      if (receipt.where === 'queue') {
        call.reply.code(202);
        return { state: 'queued', job: receipt.job };
      }
      const { where: _where, ...counts } = receipt;
      return { state: 'applied', ...counts };
    },
  },
];
