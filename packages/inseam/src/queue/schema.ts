/**
 * The queue's own tables, in schema `inseam_queue` beside pg-boss's `pgboss`:
 *
 * - `workers`: one row per worker process, with its heartbeat. A worker is alive while it is not
 *   stopped and its heartbeat is younger than its lease timeout (`lease_ms`, the database's clock).
 * - `leases`: which worker holds a host, and for what (`crawl`, `watch`, `events`). A lease is
 *   valid exactly while its worker is alive, so a worker that dies loses all its leases at once,
 *   one lease timeout after its last heartbeat. A row whose worker is gone is a free lease; a free
 *   `watch` lease tells the schedule the host needs a new watcher.
 * - `claims`: the jobs a worker fetched and has not finished, so a dead worker's jobs can be handed
 *   to others. A fetch and its claim commit together.
 *
 * Migrations are versioned and run under an advisory lock, so workers starting at once do not race.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { rowsOf, type QueueDatabase } from './database.js';

export const QUEUE_SCHEMA = 'inseam_queue';

const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE ${QUEUE_SCHEMA}.workers (
      id text PRIMARY KEY,
      machine text NOT NULL,
      pid integer NOT NULL,
      concurrency integer NOT NULL,
      lease_ms integer NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      heartbeat_at timestamptz NOT NULL DEFAULT now(),
      stopped_at timestamptz,
      stop_reason text
    )`,
    `CREATE TABLE ${QUEUE_SCHEMA}.leases (
      network text NOT NULL,
      host text NOT NULL,
      worker_id text NOT NULL,
      purpose text NOT NULL,
      acquired_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, host)
    )`,
    `CREATE INDEX leases_worker ON ${QUEUE_SCHEMA}.leases (worker_id)`,
    `CREATE TABLE ${QUEUE_SCHEMA}.claims (
      job_id uuid PRIMARY KEY,
      queue text NOT NULL,
      worker_id text NOT NULL,
      network text NOT NULL,
      host text NOT NULL,
      claimed_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX claims_worker ON ${QUEUE_SCHEMA}.claims (worker_id)`,
  ],
];

/** The newest schema version this code writes. */
export const QUEUE_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `inseam_queue` up to date. Rejects with `unavailable` when the database fails, and with
 * `invalid_config` (reason `queue_schema_newer`) when it was written by a newer inseam.
 */
export async function migrateQueueSchema(database: QueueDatabase): Promise<void> {
  await database.transaction(async (tx) => {
    // Serialises concurrent starts; released with the transaction.
    await tx.executeSql(`SELECT pg_advisory_xact_lock(hashtext('${QUEUE_SCHEMA}.migrate'))`);
    await tx.executeSql(`CREATE SCHEMA IF NOT EXISTS ${QUEUE_SCHEMA}`);
    await tx.executeSql(`CREATE TABLE IF NOT EXISTS ${QUEUE_SCHEMA}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const rows = rowsOf(await tx.executeSql(`SELECT coalesce(max(version), 0) AS version FROM ${QUEUE_SCHEMA}.migrations`));
    const current = Number(rows[0]?.['version'] ?? 0);
    if (current > QUEUE_SCHEMA_VERSION) {
      throw new InvalidConfigError(`The queue tables were written by a newer inseam (version ${current}; this one knows ${QUEUE_SCHEMA_VERSION}); upgrade this worker.`, {
        details: { reason: 'queue_schema_newer', version: current },
      });
    }
    for (let version = current + 1; version <= QUEUE_SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version - 1]!) await tx.executeSql(statement);
      await tx.executeSql(`INSERT INTO ${QUEUE_SCHEMA}.migrations (version) VALUES ($1)`, [version]);
    }
  });
}
