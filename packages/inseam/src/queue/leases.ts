/**
 * Workers, host leases and job claims on the queue's tables (see schema.ts). Every function runs
 * one statement through the executor it is given, so callers can put several in one transaction.
 * Times come from the database's clock, never a worker's, so machines whose clocks drift still
 * agree on who is alive.
 */
import type { HostRef } from '../store/index.js';
import { rowsOf, type SqlExecutor } from './database.js';
import { QUEUE_SCHEMA } from './schema.js';

const WORKERS = `${QUEUE_SCHEMA}.workers`;
const LEASES = `${QUEUE_SCHEMA}.leases`;
const CLAIMS = `${QUEUE_SCHEMA}.claims`;

/** SQL: the worker row `w` is alive. */
export function aliveSql(w: string): string {
  return `(${w}.stopped_at IS NULL AND ${w}.heartbeat_at > now() - ${w}.lease_ms * interval '1 millisecond')`;
}

/** What a lease is held for: a crawl, a watch subscription, or applying delivered events. */
export type LeasePurpose = 'crawl' | 'watch' | 'events';

export interface WorkerIdentity {
  readonly id: string;
  readonly machine: string;
  readonly pid: number;
  readonly concurrency: number;
  readonly leaseMs: number;
}

export async function registerWorker(db: SqlExecutor, worker: WorkerIdentity): Promise<void> {
  await db.executeSql(`INSERT INTO ${WORKERS} (id, machine, pid, concurrency, lease_ms) VALUES ($1, $2, $3, $4, $5)`, [
    worker.id,
    worker.machine,
    worker.pid,
    worker.concurrency,
    worker.leaseMs,
  ]);
}

/**
 * Records that the worker is alive. Resolves false when it is not any more — stopped, or its
 * heartbeat already older than its lease timeout — in which case its leases may belong to others
 * now and it must stop working on its hosts.
 */
export async function beat(db: SqlExecutor, workerId: string): Promise<boolean> {
  const rows = rowsOf(await db.executeSql(`UPDATE ${WORKERS} w SET heartbeat_at = now() WHERE id = $1 AND ${aliveSql('w')} RETURNING 1`, [workerId]));
  return rows.length === 1;
}

/** Marks the worker stopped (`stopped` on request, `lost` when another found it dead). False when it was stopped already. */
export async function markStopped(db: SqlExecutor, workerId: string, reason: 'stopped' | 'lost'): Promise<boolean> {
  const rows = rowsOf(await db.executeSql(`UPDATE ${WORKERS} SET stopped_at = now(), stop_reason = $2 WHERE id = $1 AND stopped_at IS NULL RETURNING 1`, [workerId, reason]));
  return rows.length === 1;
}

/**
 * Claims one dead worker for reaping — one whose heartbeat is older than its lease timeout —
 * marking it `lost`. Resolves its id, or null when there is none. Concurrent reapers each get a
 * different one (the row stays locked until the caller's transaction ends).
 */
export async function claimDeadWorker(db: SqlExecutor): Promise<string | null> {
  const rows = rowsOf(
    await db.executeSql(
      `UPDATE ${WORKERS} SET stopped_at = now(), stop_reason = 'lost'
       WHERE id = (
         SELECT id FROM ${WORKERS}
         WHERE stopped_at IS NULL AND heartbeat_at <= now() - lease_ms * interval '1 millisecond'
         ORDER BY heartbeat_at LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       RETURNING id`,
    ),
  );
  return rows.length === 1 ? String(rows[0]!['id']) : null;
}

/** Forgets workers stopped more than `keepMs` ago, with their leases other than `watch` markers. */
export async function forgetStoppedWorkers(db: SqlExecutor, keepMs: number): Promise<void> {
  await db.executeSql(
    `WITH gone AS (DELETE FROM ${WORKERS} WHERE stopped_at < now() - $1 * interval '1 millisecond' RETURNING id)
     DELETE FROM ${LEASES} WHERE purpose <> 'watch' AND worker_id IN (SELECT id FROM gone)`,
    [keepMs],
  );
}

export type LeaseAttempt = { readonly acquired: true } | { readonly acquired: false; readonly holder: string | null };

/**
 * Takes the host's lease for the worker, or tells who holds it. A lease is free when nobody holds
 * it or its holder is not alive; a worker that holds it already keeps it (its purpose updated). A
 * worker that is not alive itself never acquires. `holder` is null when the lease changed hands
 * during the attempt (try again).
 */
export async function acquireLease(db: SqlExecutor, ref: HostRef, workerId: string, purpose: LeasePurpose): Promise<LeaseAttempt> {
  const rows = rowsOf(
    await db.executeSql(
      `WITH attempt AS (
         INSERT INTO ${LEASES} AS l (network, host, worker_id, purpose)
         SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM ${WORKERS} me WHERE me.id = $3 AND ${aliveSql('me')})
         ON CONFLICT (network, host) DO UPDATE
           SET worker_id = EXCLUDED.worker_id,
               purpose = EXCLUDED.purpose,
               acquired_at = CASE WHEN l.worker_id = EXCLUDED.worker_id THEN l.acquired_at ELSE now() END
           WHERE l.worker_id = EXCLUDED.worker_id
              OR NOT EXISTS (SELECT 1 FROM ${WORKERS} w WHERE w.id = l.worker_id AND ${aliveSql('w')})
         RETURNING worker_id
       )
       SELECT worker_id, true AS acquired FROM attempt
       UNION ALL
       SELECT worker_id, false AS acquired FROM ${LEASES} WHERE network = $1 AND host = $2 AND NOT EXISTS (SELECT 1 FROM attempt)`,
      [ref.network, ref.host, workerId, purpose],
    ),
  );
  const row = rows[0];
  if (row?.['acquired'] === true) return { acquired: true };
  const holder = row === undefined ? null : String(row['worker_id']);
  return { acquired: false, holder: holder === workerId ? null : holder };
}

/** Changes what the worker holds the lease for. False when it does not hold it. */
export async function setLeasePurpose(db: SqlExecutor, ref: HostRef, workerId: string, purpose: LeasePurpose): Promise<boolean> {
  const rows = rowsOf(await db.executeSql(`UPDATE ${LEASES} SET purpose = $4 WHERE network = $1 AND host = $2 AND worker_id = $3 RETURNING 1`, [ref.network, ref.host, workerId, purpose]));
  return rows.length === 1;
}

/** Gives the lease up. False when the worker did not hold it. */
export async function releaseLease(db: SqlExecutor, ref: HostRef, workerId: string): Promise<boolean> {
  const rows = rowsOf(await db.executeSql(`DELETE FROM ${LEASES} WHERE network = $1 AND host = $2 AND worker_id = $3 RETURNING 1`, [ref.network, ref.host, workerId]));
  return rows.length === 1;
}

/**
 * The live worker holding the host, or null. With `lock`, inside a transaction, the holder's row
 * stays locked until it ends, so the holder cannot be marked stopped or dead meanwhile: a job sent
 * to its inbox in that transaction is seen by whoever moves the inbox's jobs when it goes.
 */
export async function leaseHolder(db: SqlExecutor, ref: HostRef, options: { readonly lock?: boolean } = {}): Promise<string | null> {
  const rows = rowsOf(
    await db.executeSql(
      `SELECT l.worker_id FROM ${LEASES} l JOIN ${WORKERS} w ON w.id = l.worker_id
       WHERE l.network = $1 AND l.host = $2 AND ${aliveSql('w')}${options.lock === true ? ' FOR SHARE OF w' : ''}`,
      [ref.network, ref.host],
    ),
  );
  return rows.length === 1 ? String(rows[0]!['worker_id']) : null;
}

/** Whether the worker is alive; with `lock`, its row stays locked until the transaction ends (see leaseHolder). */
export async function workerAlive(db: SqlExecutor, workerId: string, options: { readonly lock?: boolean } = {}): Promise<boolean> {
  const rows = rowsOf(await db.executeSql(`SELECT 1 FROM ${WORKERS} w WHERE w.id = $1 AND ${aliveSql('w')}${options.lock === true ? ' FOR SHARE' : ''}`, [workerId]));
  return rows.length === 1;
}

/** Drops the worker's leases other than `watch` ones (those stay, as markers that the host needs a watcher again). */
export async function releaseLeasesOf(db: SqlExecutor, workerId: string): Promise<void> {
  await db.executeSql(`DELETE FROM ${LEASES} WHERE worker_id = $1 AND purpose <> 'watch'`, [workerId]);
}

export interface ClaimedJob {
  readonly jobId: string;
  readonly queue: string;
  readonly network: string;
  readonly host: string;
}

/** Records that the worker fetched these jobs (in the transaction that fetched them). */
export async function recordClaims(db: SqlExecutor, workerId: string, jobs: readonly ClaimedJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db.executeSql(
    `INSERT INTO ${CLAIMS} (job_id, queue, worker_id, network, host)
     SELECT job_id, queue, $1, network, host FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS t (job_id, queue, network, host)`,
    [workerId, jobs.map((job) => job.jobId), jobs.map((job) => job.queue), jobs.map((job) => job.network), jobs.map((job) => job.host)],
  );
}

export async function dropClaim(db: SqlExecutor, jobId: string): Promise<void> {
  await db.executeSql(`DELETE FROM ${CLAIMS} WHERE job_id = $1`, [jobId]);
}

/** Removes and returns the jobs a worker had claimed. */
export async function takeClaims(db: SqlExecutor, workerId: string): Promise<ClaimedJob[]> {
  const rows = rowsOf(await db.executeSql(`DELETE FROM ${CLAIMS} WHERE worker_id = $1 RETURNING job_id, queue, network, host`, [workerId]));
  return rows.map((row) => ({ jobId: String(row['job_id']), queue: String(row['queue']), network: String(row['network']), host: String(row['host']) }));
}
