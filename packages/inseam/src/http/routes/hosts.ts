/**
 * Networks, hosts, the kinds hosts can be, and crawls. Listing needs only a token; changing
 * anything needs `networks.manage` or `hosts.manage`. A caller sees the hosts it may use (project
 * hosts, and the user- or agent-owned hosts that are its own).
 */
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { NotFoundError, PermissionDeniedError, PreconditionFailedError, type OwnershipScope, type PermissionTree, type SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { AuthSpec, Scope } from '@inseam/connector';
import { progressOf, type CrawlProgress } from '../../catalog/index.js';
import type { CrawlHandle } from '../../crawl/index.js';
import type { FsHost } from '../../fs/index.js';
import { allowsChanges } from '../../fs/permissions.js';
import type { Actor, WritesOutcome } from '../../connectors/index.js';
import type { AddHostInput } from '../../network/index.js';
import { SYNC_HISTORY_KEEP } from '../../store/index.js';
import type { Platform, QueuedCrawl } from '../../platform/index.js';
import type { HostRef } from '../../store/index.js';
import { HttpError } from '../errors.js';
import type { Call, RouteSpec } from '../route.js';
import { authView, crawlStatus, discoverableSource, hostDetail, hostFields, hostParams, hostSlug, hostView, hostWritesView, fsHost, networkRecord, networkSlug, sourceKind, syncRecord, syncSettings } from '../schemas.js';
import { mayDo, refusal, ACTIONS } from '../../platform/authorization.js';
import { defaultSync, type HostChange } from '../../network/index.js';

/** How long starting a crawl waits for its first progress before answering. */
const CRAWL_START_WAIT_MS = 1000;

/**
 * A host's crawl as the API reports it, wherever it runs:
 * - `state`: `running` (a crawl of the host is running — in this server, or on a live worker
 *   holding the host), `queued` (a crawl job waits for a worker, or a worker just took it and has
 *   not started its run), `idle` (neither);
 * - `queued`: that job, or null (always null on the embedded store, where crawls start at once);
 * - `progress`: the running run's progress, else the newest recorded run's — read from the store,
 *   so a worker's run shows the same as one in this process.
 */
export interface CrawlStatus {
  readonly host: string;
  readonly state: 'idle' | 'queued' | 'running';
  readonly running: boolean;
  readonly queued: QueuedCrawl | null;
  readonly progress: CrawlProgress | null;
  /** The catalog now: its entries, and the sum of their sizes (bytes). */
  readonly entries: number;
  readonly bytes: number;
  readonly watermark: string | null;
  /** When the newest completed crawl finished (epoch ms); null before the first one completes. */
  readonly lastSync: number | null;
}

export function hostRef(call: Call): HostRef {
  const { network, host } = call.request.params as { network: string; host: string };
  return { network, host };
}

/** The host as the caller may use it; `not_found` when it does not exist or belongs to someone else. */
export async function visibleHost(call: Call, ref: HostRef): Promise<FsHost> {
  const caller = await call.caller(ref.network);
  const host = (await call.services.fs.hosts(caller)).find((item) => item.slug === ref.host);
  if (host === undefined) throw new NotFoundError(`Network "${ref.network}" has no host "${ref.host}" this caller can use.`, { details: { network: ref.network, host: ref.host } });
  return host;
}

/** Runs looked through for the newest completed one. */
const LAST_SYNC_RUNS = 20;

/**
 * A host's crawl (see CrawlStatus): the one running in this server, else the newest recorded, with
 * the job queued for it. Throws `not_found`; `unavailable` when the store or the queue fails.
 */
export async function crawlStatusOf(platform: Platform, ref: HostRef): Promise<CrawlStatus> {
  const hostId = await platform.store.catalog.resolveHost(ref);
  if (hostId === null) throw new NotFoundError(`Network "${ref.network}" has no host "${ref.host}".`, { details: { network: ref.network, host: ref.host } });
  const here = platform.crawler.running(ref);
  const runs = await platform.store.catalog.listRuns(hostId, LAST_SYNC_RUNS);
  const newest = runs[0];
  const progress = here?.progress ?? (newest === undefined ? null : progressOf(newest));
  // A run recorded as running counts only while a live process holds it: one left by a process that died is not running.
  const running = here !== undefined || (newest?.state === 'running' && (await platform.crawls.heldElsewhere(ref)));
  const queued = await platform.crawls.queued(ref);
  const size = await platform.store.catalog.catalogSize(hostId);
  return {
    host: `${ref.network}/${ref.host}`,
    state: running ? 'running' : queued !== null ? 'queued' : 'idle',
    running,
    queued,
    progress,
    entries: size.entries,
    bytes: size.bytes,
    watermark: (await platform.store.catalog.syncState(hostId)).watermark,
    lastSync: runs.find((run) => run.state === 'completed')?.finishedAt ?? null,
  };
}

/** Waits briefly for a started crawl to report, so the answer shows its run; a crawl that could not start throws. */
export async function firstProgress(handle: CrawlHandle): Promise<void> {
  const stop = new AbortController();
  try {
    await Promise.race([once(handle, 'progress', { signal: stop.signal }).catch(() => undefined), handle.result, delay(CRAWL_START_WAIT_MS, undefined, { signal: stop.signal }).catch(() => undefined)]);
  } finally {
    stop.abort();
  }
}

/** How a host authenticates, for a form: acquisition, fields, instructions, origins — never a present template. */
export interface AuthView {
  readonly acquire: { readonly type: AuthSpec['acquire']['type']; readonly grant?: 'authorization_code' | 'device_code' };
  readonly fields: readonly { readonly name: string; readonly label: string; readonly secret: boolean; readonly pattern?: string; readonly help?: string }[];
  readonly instructions: string | null;
  readonly origins: readonly string[];
}

export function authViewOf(auth: AuthSpec): AuthView {
  return {
    acquire: auth.acquire.type === 'oauth2' ? { type: 'oauth2', grant: auth.acquire.grant } : { type: auth.acquire.type },
    fields: (auth.fields ?? []).map(({ name, label, secret, pattern, help }) => ({
      name,
      label,
      secret,
      ...(pattern === undefined ? {} : { pattern }),
      ...(help === undefined ? {} : { help }),
    })),
    instructions: auth.instructions ?? null,
    origins: [...auth.origins],
  };
}

interface HostBody {
  readonly network?: string;
  readonly slug: string;
  readonly kind?: string;
  readonly from?: string;
  readonly config?: Record<string, unknown>;
  readonly scope?: Scope | null;
  readonly credentials?: Record<string, string>;
  readonly label?: string;
  readonly description?: string;
  readonly ownership?: OwnershipScope;
  readonly ownerId?: string;
  readonly sync?: SourceSyncSettings | null;
  readonly permissions?: PermissionTree | null;
  readonly writable?: boolean;
  readonly privateOrigins?: string[];
}

/**
 * A host that may be changed or run in is a person's decision, as approving a connector is: an
 * agent's token may add hosts (with hosts.manage) only read only. Throws `permission_denied`.
 */
export function requirePersonForWrites(call: Call, body: { readonly writable?: boolean; readonly permissions?: PermissionTree | null }): void {
  if (call.principal.agentId === null) return;
  if (body.writable === true || (body.permissions !== undefined && body.permissions !== null && allowsChanges(body.permissions))) {
    throw new PermissionDeniedError('Only a person\'s token can add a host that may be written to or run in (writable, or a tree granting write or exec); an agent\'s can add it read only.', {
      details: { reason: 'agent_cannot_act' },
    });
  }
}

const scratchPrefix = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  description: 'For a sandboxed connector that declares writes: the host folder where the platform\'s install-phase trial of this host may write (default on a host checked before: the prefix used then).',
};

function actorOf(call: Call): Actor {
  return { userId: call.principal.userId, agentId: call.principal.agentId };
}

/** 412 for writes asked of a host whose install-phase trial did not pass: its message is the failing check's. */
function writesRefused(writes: WritesOutcome): PreconditionFailedError {
  return new PreconditionFailedError(writes.message, {
    details: { reason: writes.trial === null ? 'writes_not_trialled' : 'writes_trial_failed', trial: writes.trial, check: writes.check, scratchPrefix: writes.scratchPrefix },
  });
}

export const hostRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    url: '/v1/source-kinds',
    operationId: 'listSourceKinds',
    action: 'kinds.list',
    summary: 'The kinds a host can be, with their config schemas, capabilities and categories',
    tag: 'hosts',
    responses: { 200: { description: 'Kinds, by kind.', schema: { type: 'array', items: sourceKind } } },
    handler: async (call) => call.services.platform.kinds.list(),
  },
  {
    method: 'POST',
    url: '/v1/source-kinds/:kind/describe',
    operationId: 'describeSourceKind',
    action: 'kinds.describe',
    summary: 'Check a config for a kind and say how such a host authenticates',
    description:
      'What a form needs before it asks for credentials: the config checked against the kind\'s schema (`invalid_config` naming every bad field in `details.fields`) with defaults filled, and the AuthSpec the kind declares for it (fields to ask for, which are secret, the OAuth grant, the origins). Nothing is stored.',
    tag: 'hosts',
    params: { type: 'object', properties: { kind: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['kind'], additionalProperties: false },
    body: { type: 'object', properties: { network: networkSlug, config: { type: 'object' } }, required: ['config'], additionalProperties: false },
    responses: {
      200: {
        description: 'The checked config, the kind\'s auth, and the sync a host with this config gets when none is given.',
        schema: { type: 'object', properties: { kind: { type: 'string' }, config: { type: 'object' }, auth: authView, defaultSync: syncSettings }, required: ['kind', 'config', 'auth', 'defaultSync'] },
      },
    },
    handler: async (call) => {
      const { kind } = call.request.params as { kind: string };
      const body = call.request.body as { network?: string; config: Record<string, unknown> };
      const network = await call.network(body.network);
      const kinds = call.services.platform.kinds;
      const config = kinds.validateConfig(kind, body.config);
      const description = await kinds.describe({ network, slug: 'new-host', kind, config, ownership: 'project', ownerId: null, privateOrigins: [] });
      return { kind, config, auth: authViewOf(description.auth), defaultSync: defaultSync(description) };
    },
  },
  {
    method: 'GET',
    url: '/v1/discoverable-sources',
    operationId: 'listDiscoverableSources',
    action: 'sources.discoverable',
    summary: 'Sources the loaded packages offer to add (seed "discoverable"), for the caller\'s network',
    description:
      'Add one with `POST /v1/hosts { slug: <source>, from: <packageId> }`; `added` says whether it is there already. A source owned per user or agent (`ownership`) is added as the caller\'s own clone, under the slug `{source}+{user|agent}.{owner}`, and `added` says whether the caller has one. An offer whose `seeRequires` names a feature the token lacks is left out (a display default; adding stays gated by hosts.manage).',
    tag: 'hosts',
    responses: { 200: { description: 'Offers, by package.', schema: { type: 'array', items: discoverableSource } } },
    handler: async (call) => {
      const offers = await call.services.platform.networks.discoverable(await call.network(), actorOf(call));
      return offers.filter((offer) => offer.seeRequires.every((feature) => call.principal.features.has(feature)));
    },
  },
  {
    method: 'GET',
    url: '/v1/networks',
    operationId: 'listNetworks',
    action: 'networks.list',
    summary: 'The networks this token works in',
    tag: 'hosts',
    responses: { 200: { description: 'Networks, by slug.', schema: { type: 'array', items: networkRecord } } },
    handler: async (call) => {
      const networks = await call.services.platform.networks.list();
      const limit = call.principal.network;
      return limit === null ? networks : networks.filter((network) => network.slug === limit);
    },
  },
  {
    method: 'POST',
    url: '/v1/networks',
    operationId: 'createNetwork',
    action: 'networks.create',
    summary: 'Create a network with its pad and the sources packages seed',
    tag: 'hosts',
    body: { type: 'object', properties: { slug: networkSlug, label: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['slug'], additionalProperties: false },
    responses: {
      201: {
        description: 'Created.',
        schema: { type: 'object', properties: { network: networkRecord, hosts: { type: 'array', items: hostView }, skipped: { type: 'array', items: { type: 'object' } } }, required: ['network', 'hosts', 'skipped'] },
      },
    },
    handler: async (call) => {
      const { slug, label } = call.request.body as { slug: string; label?: string };
      if (call.principal.network !== null) throw new HttpError('permission_denied', `This token works in network "${call.principal.network}" only; creating networks needs a token for every network.`, { details: { network: call.principal.network } });
      const created = await call.services.platform.networks.init(slug, label === undefined ? {} : { label });
      call.reply.code(201);
      return created;
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts',
    operationId: 'listHosts',
    action: 'hosts.list',
    summary: 'The hosts of the caller\'s network it may use, with rights and liveness',
    tag: 'hosts',
    responses: { 200: { description: 'Hosts, by slug.', schema: { type: 'array', items: fsHost } } },
    handler: async (call) => call.services.fs.hosts(await call.caller()),
  },
  {
    method: 'POST',
    url: '/v1/hosts',
    operationId: 'addHost',
    action: 'hosts.add',
    summary: 'Add a host',
    description:
      'Everything is checked before anything is stored (docs/hosts.md). `network` defaults to the caller\'s. With `from: "<package>"` the package\'s declared source `slug` is added, the other fields overriding its declaration. A sandboxed kind must be approved in the network. A host of a sandboxed kind that declares writes, asked to be writable, is added read only; the platform then runs the install-phase trial of it on `scratchPrefix` and turns writes on only if it passed (`writes` says what happened).',
    tag: 'hosts',
    body: {
      type: 'object',
      properties: { network: networkSlug, slug: hostSlug, kind: { type: 'string', minLength: 1, maxLength: 64 }, from: { type: 'string', minLength: 1, maxLength: 214 }, ...hostFields, scratchPrefix },
      required: ['slug'],
      additionalProperties: false,
    },
    responses: { 201: { description: 'Added (never a credential value).', schema: hostWritesView } },
    handler: async (call) => {
      const body = call.request.body as HostBody & { scratchPrefix?: string };
      requirePersonForWrites(call, body);
      const network = await call.network(body.network);
      const { network: _network, from, kind, scratchPrefix: prefix, ...fields } = body;
      let added;
      if (from !== undefined) {
        // A user- or agent-owned clone is the caller's own, under its re-qualified slug (network/owned-slug.ts).
        added = { ...(await call.services.platform.networks.addDeclared(network, from, body.slug, { ...fields, ...(kind === undefined ? {} : { kind }), adder: actorOf(call) })), writes: null };
      } else {
        if (kind === undefined) throw new HttpError('invalid_argument', 'A host needs a `kind` (see GET /v1/source-kinds), or `from` naming the package that declares it.', { details: { argument: 'body.kind' } });
        if (call.services.platform.kinds.has(kind) && call.services.platform.kinds.get(kind).sandboxed) await call.services.connectors.requireApprovedKind(network, kind);
        const input: AddHostInput = { ...fields, network, kind, adder: actorOf(call) };
        const { host, writes } = await call.services.connectors.addHost(actorOf(call), input, prefix);
        added = { ...host, writes };
      }
      call.reply.code(201);
      return added;
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts/:network/:host',
    operationId: 'getHost',
    action: 'hosts.show',
    summary: 'One host; its stored settings too for a token with hosts.manage',
    tag: 'hosts',
    params: hostParams,
    responses: { 200: { description: 'The host.', schema: hostDetail } },
    handler: async (call) => {
      const ref = hostRef(call);
      const host = await visibleHost(call, ref);
      const settings = mayDo('hosts.settings', call.principal) ? await call.services.platform.networks.showHost(ref) : null;
      return { host, settings };
    },
  },
  {
    method: 'PUT',
    url: '/v1/hosts/:network/:host/permissions',
    operationId: 'setHostPermissions',
    action: 'hosts.permissions',
    summary: 'Change what a host lets callers do — a person\'s act',
    description:
      'A new permission tree, and/or `writable` to turn writes on (the tree\'s default `write`) or off (`write` nowhere) on top of it or of the host\'s current tree. Needs `hosts.manage` on a token that acts for no agent. Agents still write, delete and run commands only where their grants reach.',
    tag: 'hosts',
    params: hostParams,
    body: {
      type: 'object',
      properties: {
        permissions: hostFields['permissions']!,
        writable: hostFields['writable']!,
        scratchPrefix,
      },
      additionalProperties: false,
    },
    responses: { 200: { description: 'The host with its new tree.', schema: hostWritesView } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      const { scratchPrefix: prefix, ...change } = call.request.body as { permissions?: PermissionTree | null; writable?: boolean; scratchPrefix?: string };
      const { host, writes } = await call.services.connectors.setPermissions(actorOf(call), ref, change, prefix);
      // Writes were what was asked; the trial refusing them refuses the request, and the host stays as it was.
      if (writes !== null && !writes.writable) throw writesRefused(writes);
      return { ...host, writes };
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts/:network/:host/host-key',
    operationId: 'getPresentedHostKey',
    action: 'hosts.hostKey',
    summary: 'The SSH host key a machine host presents now, for a person to compare before approving it',
    tag: 'hosts',
    params: hostParams,
    description: '`canApprove` says whether the caller may pin it (`POST …/host-key` is a person\'s act), so a page offers the approval only to those who can.',
    responses: {
      200: { description: 'The presented key\'s SHA256 fingerprint.', schema: { type: 'object', properties: { fingerprint: { type: 'string' }, canApprove: { type: 'boolean' } }, required: ['fingerprint', 'canApprove'] } },
    },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      const canApprove = refusal(ACTIONS['hosts.trustKey'], call.principal, 'Approving a host key') === null;
      return { fingerprint: await call.services.platform.networks.presentedHostKey(ref), canApprove };
    },
  },
  {
    method: 'POST',
    url: '/v1/hosts/:network/:host/host-key',
    operationId: 'trustHostKey',
    action: 'hosts.trustKey',
    summary: 'Pin a machine host\'s SSH host key — a person\'s act',
    description: 'The fingerprint must be the one the machine presents now (docs/connectors/machine.md). Needs `hosts.manage` on a token that acts for no agent.',
    tag: 'hosts',
    params: hostParams,
    body: { type: 'object', properties: { fingerprint: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['fingerprint'], additionalProperties: false },
    responses: { 200: { description: 'The host with its pinned key.', schema: hostView } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      return call.services.platform.networks.trustHostKey(ref, (call.request.body as { fingerprint: string }).fingerprint);
    },
  },
  {
    method: 'PATCH',
    url: '/v1/hosts/:network/:host',
    operationId: 'updateHost',
    action: 'hosts.update',
    summary: 'Change a host: its config, label, description, scope, sync settings or permissions',
    description:
      'Only the fields given change; each is checked as `POST /v1/hosts` checks it, against the host\'s kind, and a change that fails any check changes nothing (the error names the field). `config` is the whole new config: it re-binds the host and syncs it in full, as a new `scope` does. `scope: null` and `sync: null` go back to the kind\'s defaults. Changing `permissions` or `writable` is a person\'s act, as with `PUT …/permissions`.',
    tag: 'hosts',
    params: hostParams,
    body: {
      type: 'object',
      properties: { config: hostFields['config']!, label: hostFields['label']!, description: hostFields['description']!, scope: hostFields['scope']!, sync: hostFields['sync']!, permissions: hostFields['permissions']!, writable: hostFields['writable']!, scratchPrefix },
      additionalProperties: false,
    },
    responses: { 200: { description: 'The host as changed (never a credential value).', schema: hostWritesView } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      const { scratchPrefix: prefix, ...change } = call.request.body as HostChange & { scratchPrefix?: string };
      if (change.permissions !== undefined || change.writable !== undefined) {
        const refused = refusal(ACTIONS['hosts.permissions'], call.principal, 'Changing what a host lets callers do');
        if (refused !== null) throw refused;
      }
      const { host, writes } = await call.services.connectors.updateHost(actorOf(call), ref, change, prefix);
      return { ...host, writes };
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts/:network/:host/syncs',
    operationId: 'listHostSyncs',
    action: 'hosts.syncs',
    summary: 'A host\'s last syncs: when, how long, what was added, changed and removed, and errors',
    description: `Newest first; \`limit\` at most ${SYNC_HISTORY_KEEP} (default 10), the most the store keeps per host. A crawl that paused and resumed is one entry.`,
    tag: 'hosts',
    params: hostParams,
    querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: SYNC_HISTORY_KEEP } }, additionalProperties: false },
    responses: { 200: { description: 'The syncs, newest first.', schema: { type: 'array', items: syncRecord } } },
    handler: async (call) => {
      const ref = hostRef(call);
      await visibleHost(call, ref);
      const hostId = await call.services.platform.store.catalog.resolveHost(ref);
      if (hostId === null) throw new NotFoundError(`Network "${ref.network}" has no host "${ref.host}".`, { details: { network: ref.network, host: ref.host } });
      const { limit } = (call.request.query ?? {}) as { limit?: number };
      return call.services.platform.store.syncHistory.list(hostId, limit ?? 10);
    },
  },
  {
    method: 'DELETE',
    url: '/v1/hosts/:network/:host',
    operationId: 'removeHost',
    action: 'hosts.remove',
    summary: 'Remove a host with its catalog and credentials',
    description: 'The pad stays with its network (`invalid_argument`).',
    tag: 'hosts',
    params: hostParams,
    responses: { 204: { description: 'Removed.' } },
    handler: async (call) => {
      const ref = hostRef(call);
      await call.network(ref.network);
      await call.services.platform.networks.removeHost(ref);
      return undefined;
    },
  },
  {
    method: 'GET',
    url: '/v1/hosts/:network/:host/crawl',
    operationId: 'getCrawl',
    action: 'hosts.crawlStatus',
    summary: 'A host\'s crawl: running, queued or the newest, with progress',
    description: 'Reads the store and the queue, so a crawl a worker runs shows the same as one in this server. `state` is `running`, `queued` (waiting for a worker) or `idle`.',
    tag: 'hosts',
    params: hostParams,
    responses: { 200: { description: 'The crawl status.', schema: crawlStatus } },
    handler: async (call) => {
      const ref = hostRef(call);
      await visibleHost(call, ref);
      return crawlStatusOf(call.services.platform, ref);
    },
  },
  {
    method: 'POST',
    url: '/v1/hosts/:network/:host/crawl',
    operationId: 'startCrawl',
    action: 'hosts.crawl',
    optionalBody: true,
    summary: 'Start (or resume) a crawl of a host',
    description:
      '`mode`: `auto` (resume, else first, else incremental), `full` (rescan, removing what is gone) or `incremental`. `restart` abandons an unfinished crawl. On the embedded store the crawl runs in the server and this answers once it reported, or after a second. On the shared PostgreSQL store it is queued for a worker and this answers at once with `state: "queued"` (an equal crawl already waiting is not queued twice); GET the crawl to follow it.',
    tag: 'hosts',
    params: hostParams,
    body: { type: 'object', properties: { mode: { type: 'string', enum: ['auto', 'full', 'incremental'] }, restart: { type: 'boolean' } }, additionalProperties: false },
    responses: { 202: { description: 'Started; the status as it stands.', schema: crawlStatus } },
    handler: async (call) => {
      const ref = hostRef(call);
      await visibleHost(call, ref);
      const { mode, restart } = (call.request.body ?? {}) as { mode?: 'auto' | 'full' | 'incremental'; restart?: boolean };
      const ticket = await call.services.platform.requestCrawl(ref, { ...(mode === undefined ? {} : { mode }), ...(restart === undefined ? {} : { restart }) });
      if (ticket.where === 'process') await firstProgress(ticket.handle);
      call.reply.code(202);
      return crawlStatusOf(call.services.platform, ref);
    },
  },
];
