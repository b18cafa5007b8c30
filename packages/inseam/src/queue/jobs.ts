/**
 * The queues of a distributed crawl and the jobs they carry.
 *
 * - `inseam-sync`: crawls to run (a first crawl, an interval sync, a requested one, the resumption
 *   of one a worker left). Policy `short`: while one job for a host and mode waits, another send for
 *   them is dropped (its singleton key is `network/host:mode`), so schedules and impatient callers
 *   never pile work up. Failed jobs retry with exponential backoff, then go to the dead letter.
 * - `inseam-events`: change events and webhook deliveries for a host no worker holds right now.
 * - `inseam-sync-remote`, `inseam-events-remote`: the same for hosts that need no folder on the
 *   worker's machine (placement `remote`: an API, a bucket). Every worker takes these; a worker
 *   started with `hosts: "remote"` (no folders on its machine) takes only these. Jobs whose host
 *   needs a folder (`fs`, `local`, the pad) or whose placement is not known stay in the plain
 *   queues, which only `hosts: "all"` workers take — pinning by queue, so a worker never fetches a
 *   job it cannot run.
 * - `inseam-inbox-<worker>`: one per worker, for jobs of hosts that worker holds (events sent to it
 *   directly, syncs another worker fetched and forwarded).
 * - `inseam-dead`: jobs that kept failing, with their last error as output; nobody works it.
 * - `inseam-tick`: a pg-boss schedule sends one job a minute, which one worker runs to enqueue the
 *   syncs that are due.
 *
 * Job data is JSON written by any process on the database; `parseHostJob` checks it before use.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { ChangeEvent } from '@inseam/connector';
import type { SyncMode } from '../crawl/index.js';
import type { HostRecord, HostRef } from '../store/index.js';

export const SYNC_QUEUE = 'inseam-sync';
export const EVENTS_QUEUE = 'inseam-events';
export const SYNC_REMOTE_QUEUE = 'inseam-sync-remote';
export const EVENTS_REMOTE_QUEUE = 'inseam-events-remote';
export const DEAD_QUEUE = 'inseam-dead';
export const TICK_QUEUE = 'inseam-tick';
export const INBOX_PREFIX = 'inseam-inbox-';

/** SQL LIKE pattern of every inbox queue. */
export const INBOX_QUEUE_PATTERN = `${INBOX_PREFIX}%`;

/** The inbox queue of one worker. */
export function inboxQueue(workerId: string): string {
  return `${INBOX_PREFIX}${workerId}`;
}

/** The worker whose inbox `queue` is, or null for another queue. */
export function inboxOwner(queue: string): string | null {
  return queue.startsWith(INBOX_PREFIX) ? queue.slice(INBOX_PREFIX.length) : null;
}

/**
 * Why a sync was queued: `added` (a host's first crawl), `requested` (a person or the API),
 * `interval` and `rescan` (the schedule), `resume` (an unfinished run nobody works on), `rehome`
 * (a watched host whose worker left), `deferred` (its run was busy elsewhere; tried again later),
 * `stopped` (its worker stopped and paused it), `lost` (its worker died).
 */
export type SyncReason = 'added' | 'requested' | 'interval' | 'rescan' | 'resume' | 'rehome' | 'deferred' | 'stopped' | 'lost';
export const SYNC_REASONS = ['added', 'requested', 'interval', 'rescan', 'resume', 'rehome', 'deferred', 'stopped', 'lost'] as const satisfies readonly SyncReason[];

/**
 * Where a host can be crawled: `local` needs a folder on the worker's machine (an `fs` or `local`
 * host, a network's pad); `remote` needs nothing but the network (an API, a bucket).
 */
export type Placement = 'local' | 'remote';

/** Which workers take jobs: `all` (this machine sees the folders of folder hosts) or `remote` (it does not). */
export type WorkerHostsFilter = 'all' | 'remote';
export const WORKER_HOSTS_FILTERS = ['all', 'remote'] as const satisfies readonly WorkerHostsFilter[];

/** A host's placement, from its kind and config. */
export function hostPlacement(host: Pick<HostRecord, 'kind' | 'config'>): Placement {
  if (host.kind === 'fs' || host.kind === 'local') return 'local';
  return host.kind === 'bucket' && host.config['provider'] === 'pad' ? 'local' : 'remote';
}

/** The shared queue a job goes to when no worker holds its host. A job without a placement is treated as `local`: only workers that see every folder take it. */
export function sharedQueueOf(job: Pick<HostJob, 'type' | 'placement'>): string {
  const remote = job.placement === 'remote';
  if (job.type === 'sync') return remote ? SYNC_REMOTE_QUEUE : SYNC_QUEUE;
  return remote ? EVENTS_REMOTE_QUEUE : EVENTS_QUEUE;
}

/** The shared queues a worker takes jobs from, events before syncs. */
export function sharedQueuesFor(filter: WorkerHostsFilter): string[] {
  return filter === 'remote' ? [EVENTS_REMOTE_QUEUE, SYNC_REMOTE_QUEUE] : [EVENTS_REMOTE_QUEUE, EVENTS_QUEUE, SYNC_REMOTE_QUEUE, SYNC_QUEUE];
}

interface HostJobBase {
  readonly network: string;
  readonly host: string;
  /** Where its host can be crawled; absent on jobs that do not know (treated as `local`). */
  readonly placement?: Placement;
  /** How often workers passed the job to the worker holding its host. */
  readonly hops?: number;
  /** How often a worker died (or lost its lease) while working on it. */
  readonly lost?: number;
}

export interface SyncJob extends HostJobBase {
  readonly type: 'sync';
  readonly mode: SyncMode;
  readonly restart?: boolean;
  readonly reason: SyncReason;
}

export interface EventsJob extends HostJobBase {
  readonly type: 'events';
  readonly events: readonly ChangeEvent[];
}

/** A webhook delivery as it arrived, for the connector of the worker holding the host to parse. */
export interface WebhookRequestData {
  readonly method: string;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  /** The body, base64; null for none. */
  readonly body: string | null;
}

export interface WebhookJob extends HostJobBase {
  readonly type: 'webhook';
  readonly request: WebhookRequestData;
}

export type HostJob = SyncJob | EventsJob | WebhookJob;

const MODES: ReadonlySet<string> = new Set(['auto', 'full', 'incremental']);
const REASONS: ReadonlySet<string> = new Set(SYNC_REASONS);

/** The dedupe key of a sync: one waiting job per host, mode and restart. */
export function syncKey(job: Pick<SyncJob, 'network' | 'host' | 'mode' | 'restart'>): string {
  return `${job.network}/${job.host}:${job.mode}${job.restart === true ? ':restart' : ''}`;
}

export function refOf(job: HostJobBase): HostRef {
  return { network: job.network, host: job.host };
}

function malformed(why: string): InvalidArgumentError {
  return new InvalidArgumentError(`A queued job is malformed (${why}); it is failed, not run.`, { details: { reason: 'job_malformed' } });
}

function count(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw malformed(`${name} is not a whole number`);
  return value as number;
}

/** Checks job data read from the queue. Throws `invalid_argument` (reason `job_malformed`) naming what is wrong. */
export function parseHostJob(data: unknown): HostJob {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw malformed('not an object');
  const job = data as Record<string, unknown>;
  if (typeof job['network'] !== 'string' || job['network'] === '' || typeof job['host'] !== 'string' || job['host'] === '') throw malformed('no network or host');
  const placement = job['placement'];
  if (placement !== undefined && placement !== 'local' && placement !== 'remote') throw malformed('placement is not local or remote');
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc -b fails without it; the lint program, built from every workspace's sources, types this differently
  const base = { network: job['network'], host: job['host'], placement: placement as Placement | undefined, hops: count(job['hops'], 'hops'), lost: count(job['lost'], 'lost') };
  const clean = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
  switch (job['type']) {
    case 'sync': {
      if (typeof job['mode'] !== 'string' || !MODES.has(job['mode'])) throw malformed('mode is not auto, full or incremental');
      if (typeof job['reason'] !== 'string' || !REASONS.has(job['reason'])) throw malformed('unknown reason');
      if (job['restart'] !== undefined && typeof job['restart'] !== 'boolean') throw malformed('restart is not a boolean');
      return clean({ type: 'sync', ...base, mode: job['mode'] as SyncMode, reason: job['reason'] as SyncReason, restart: job['restart'] });
    }
    case 'events':
      if (!Array.isArray(job['events'])) throw malformed('events is not an array');
      return clean({ type: 'events', ...base, events: job['events'] as ChangeEvent[] });
    case 'webhook': {
      const request = job['request'] as Record<string, unknown> | null | undefined;
      if (typeof request !== 'object' || request === null || typeof request['method'] !== 'string' || typeof request['url'] !== 'string') throw malformed('no request');
      const headers = request['headers'];
      if (!Array.isArray(headers) || !headers.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string'))) throw malformed('headers are not name/value pairs');
      if (request['body'] !== null && typeof request['body'] !== 'string') throw malformed('body is not base64 text');
      return clean({
        type: 'webhook',
        ...base,
        request: { method: request['method'], url: request['url'], headers: headers as [string, string][], body: request['body'] },
      });
    }
    default:
      throw malformed('unknown type');
  }
}
