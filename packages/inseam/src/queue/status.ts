/**
 * What `inseam status` shows: workers and their heartbeats, queue depths, host leases, crawls in
 * progress and failing hosts. `queueStatus` reads the queue's tables and pg-boss's (PostgreSQL
 * only); `catalogStatus` reads crawl runs through the Store interface, so it works on both stores
 * (on SQLite a run's owner and heartbeat are the only leases there are).
 */
import type { CrawlRunRecord, Store } from '../store/index.js';
import { rowsOf, type SqlExecutor } from './database.js';
import { DEAD_QUEUE, EVENTS_QUEUE, EVENTS_REMOTE_QUEUE, INBOX_QUEUE_PATTERN, SYNC_QUEUE, SYNC_REMOTE_QUEUE, inboxOwner } from './jobs.js';
import { aliveSql } from './leases.js';
import { BOSS_SCHEMA } from './queue.js';
import { QUEUE_SCHEMA } from './schema.js';

export interface WorkerStatus {
  readonly id: string;
  readonly machine: string;
  readonly pid: number;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly startedAt: number;
  readonly heartbeatAt: number;
  /** Beating within its lease timeout and not stopped. */
  readonly alive: boolean;
  readonly stoppedAt: number | null;
  /** `stopped` (asked to), `lost` (found dead by another worker), or null. */
  readonly stopReason: string | null;
  /** Jobs it has taken and not finished. */
  readonly jobs: number;
  /** Hosts it holds (`network/host`). */
  readonly hosts: readonly string[];
}

export interface QueueDepth {
  readonly queue: string;
  /** For an inbox, the worker it belongs to. */
  readonly worker: string | null;
  readonly waiting: number;
  readonly retrying: number;
  readonly active: number;
  /** Failed for good and not yet archived (pg-boss archives after 12 h). */
  readonly failed: number;
  /** Completed and not yet archived. */
  readonly completed: number;
}

export interface LeaseStatus {
  readonly host: string;
  readonly worker: string;
  readonly purpose: string;
  readonly since: number;
  /** False for a lease whose worker is gone: the host is free (a `watch` one waits to be rehomed). */
  readonly alive: boolean;
}

export type FailureKind = 'dead_letter' | 'retrying' | 'run_failed';

export interface FailingHost {
  readonly host: string;
  /** `dead_letter`: its job kept failing and gave up; `retrying`: waiting to be tried again; `run_failed`: its newest crawl failed. */
  readonly kind: FailureKind;
  readonly code: string;
  readonly message: string;
  /** Attempts made (jobs), or null. */
  readonly attempts: number | null;
  readonly at: number;
}

export interface QueueStatus {
  readonly workers: readonly WorkerStatus[];
  readonly queues: readonly QueueDepth[];
  readonly leases: readonly LeaseStatus[];
  readonly failing: readonly FailingHost[];
}

export interface RunningCrawl {
  readonly host: string;
  readonly run: number;
  readonly mode: string;
  readonly owner: string | null;
  readonly heartbeatAt: number | null;
  readonly entries: number;
  readonly startedAt: number;
}

export interface CatalogStatus {
  /** Runs in state `running` (a dead owner's too, until someone resumes them). */
  readonly running: readonly RunningCrawl[];
  /** Hosts whose newest run failed. */
  readonly failing: readonly FailingHost[];
  /** Per host (`network/host`) whose newest run completed: when it finished. */
  readonly completedAt: Readonly<Record<string, number>>;
}

const ms = (column: string): string => `(extract(epoch FROM ${column}) * 1000)::float8`;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function failureOf(output: unknown, data: Record<string, unknown>): { code: string; message: string } {
  const record = typeof output === 'object' && output !== null ? (output as Record<string, unknown>) : {};
  const error = typeof record['error'] === 'object' && record['error'] !== null ? (record['error'] as Record<string, unknown>) : record;
  if (typeof error['code'] === 'string') return { code: error['code'], message: text(error['message']) };
  if (typeof data['lost'] === 'number') return { code: 'worker_lost', message: `Its worker died ${data['lost']} times while working on it.` };
  return { code: 'unknown', message: text(error['message']) };
}

/** Reads the queue's state. Rejects with `unavailable` when the database fails. */
export async function queueStatus(db: SqlExecutor): Promise<QueueStatus> {
  const workers = rowsOf(
    await db.executeSql(
      `SELECT w.id, w.machine, w.pid, w.concurrency, w.lease_ms, ${ms('w.started_at')} AS started_at, ${ms('w.heartbeat_at')} AS heartbeat_at,
              ${ms('w.stopped_at')} AS stopped_at, w.stop_reason, ${aliveSql('w')} AS alive,
              (SELECT count(*) FROM ${QUEUE_SCHEMA}.claims c WHERE c.worker_id = w.id)::int AS jobs
       FROM ${QUEUE_SCHEMA}.workers w ORDER BY w.started_at, w.id`,
    ),
  );
  const leases = rowsOf(
    await db.executeSql(
      `SELECT l.network, l.host, l.worker_id, l.purpose, ${ms('l.acquired_at')} AS since, coalesce(${aliveSql('w')}, false) AS alive
       FROM ${QUEUE_SCHEMA}.leases l LEFT JOIN ${QUEUE_SCHEMA}.workers w ON w.id = l.worker_id ORDER BY l.network, l.host`,
    ),
  ).map((row) => ({ host: `${text(row['network'])}/${text(row['host'])}`, worker: text(row['worker_id']), purpose: text(row['purpose']), since: Number(row['since']), alive: row['alive'] === true }));
  const depths = rowsOf(
    await db.executeSql(
      `SELECT q.name,
              count(*) FILTER (WHERE j.state = 'created')::int AS waiting,
              count(*) FILTER (WHERE j.state = 'retry')::int AS retrying,
              count(*) FILTER (WHERE j.state = 'active')::int AS active,
              count(*) FILTER (WHERE j.state = 'failed')::int AS failed,
              count(*) FILTER (WHERE j.state = 'completed')::int AS completed
       FROM ${BOSS_SCHEMA}.queue q LEFT JOIN ${BOSS_SCHEMA}.job j ON j.name = q.name
       WHERE q.name IN ($1, $2, $3, $5, $6) OR q.name LIKE $4
       GROUP BY q.name ORDER BY q.name`,
      [SYNC_QUEUE, EVENTS_QUEUE, DEAD_QUEUE, INBOX_QUEUE_PATTERN, SYNC_REMOTE_QUEUE, EVENTS_REMOTE_QUEUE],
    ),
  );
  const troubled = rowsOf(
    await db.executeSql(
      `SELECT name, state, data, output, retry_count, ${ms('coalesce(completed_on, started_on, created_on)')} AS at FROM ${BOSS_SCHEMA}.job
       WHERE (name = $1 AND state = 'created') OR (state = 'retry' AND (name IN ($2, $3, $5, $6) OR name LIKE $4))
       ORDER BY created_on DESC LIMIT 500`,
      [DEAD_QUEUE, SYNC_QUEUE, EVENTS_QUEUE, INBOX_QUEUE_PATTERN, SYNC_REMOTE_QUEUE, EVENTS_REMOTE_QUEUE],
    ),
  );
  const held = new Map<string, string[]>();
  for (const lease of leases) if (lease.alive) held.set(lease.worker, [...(held.get(lease.worker) ?? []), lease.host]);
  const failing = new Map<string, FailingHost>();
  for (const row of troubled) {
    const data = (typeof row['data'] === 'object' && row['data'] !== null ? row['data'] : {}) as Record<string, unknown>;
    const host = `${text(data['network'])}/${text(data['host'])}`;
    if (failing.has(host)) continue;
    const dead = row['name'] === DEAD_QUEUE;
    failing.set(host, { host, kind: dead ? 'dead_letter' : 'retrying', ...failureOf(row['output'], data), attempts: dead ? null : Number(row['retry_count']) + 1, at: Number(row['at']) });
  }
  return {
    workers: workers.map((row) => ({
      id: text(row['id']),
      machine: text(row['machine']),
      pid: Number(row['pid']),
      concurrency: Number(row['concurrency']),
      leaseMs: Number(row['lease_ms']),
      startedAt: Number(row['started_at']),
      heartbeatAt: Number(row['heartbeat_at']),
      alive: row['alive'] === true,
      stoppedAt: row['stopped_at'] === null ? null : Number(row['stopped_at']),
      stopReason: row['stop_reason'] === null ? null : text(row['stop_reason']),
      jobs: Number(row['jobs']),
      hosts: held.get(text(row['id'])) ?? [],
    })),
    queues: depths.map((row) => ({
      queue: text(row['name']),
      worker: inboxOwner(text(row['name'])),
      waiting: Number(row['waiting']),
      retrying: Number(row['retrying']),
      active: Number(row['active']),
      failed: Number(row['failed']),
      completed: Number(row['completed']),
    })),
    leases,
    failing: [...failing.values()],
  };
}

/** Reads running and failed crawls of every host through the store. Rejects with `unavailable`. */
export async function catalogStatus(store: Store): Promise<CatalogStatus> {
  const running: RunningCrawl[] = [];
  const failing: FailingHost[] = [];
  const completedAt: Record<string, number> = {};
  for (const network of await store.networks.list()) {
    for (const host of await store.hosts.list(network.slug)) {
      const name = `${host.network}/${host.slug}`;
      const runs: CrawlRunRecord[] = await store.catalog.listRuns(host.id, 5);
      for (const run of runs) {
        if (run.state === 'running') running.push({ host: name, run: run.id, mode: run.mode, owner: run.owner, heartbeatAt: run.heartbeatAt, entries: run.counters.entries, startedAt: run.startedAt });
      }
      const newest = runs[0];
      if (newest?.state === 'completed') completedAt[name] = newest.finishedAt ?? newest.updatedAt;
      if (newest?.state === 'failed') {
        failing.push({ host: name, kind: 'run_failed', code: newest.error?.code ?? 'connector_failed', message: newest.error?.message ?? '', attempts: null, at: newest.finishedAt ?? newest.updatedAt });
      }
    }
  }
  return { running, failing, completedAt };
}

/**
 * The failing hosts to show, one per host: the queue's view (dead letter, retrying) wins over the
 * newest run's, except that a host whose newest run completed after the queue's failure is not
 * failing — status tells the latest run, not what an older job left behind.
 */
export function currentFailures(fromQueue: readonly FailingHost[], catalog: CatalogStatus): FailingHost[] {
  const byHost = new Map<string, FailingHost>();
  for (const host of catalog.failing) byHost.set(host.host, host);
  for (const host of fromQueue) {
    const completed = catalog.completedAt[host.host];
    if (completed !== undefined && completed >= host.at) continue;
    byHost.set(host.host, host);
  }
  return [...byHost.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}
