/**
 * Interval syncs on the queue. pg-boss's schedule sends a tick a minute; the worker that fetches it
 * runs `enqueueDueSyncs`, which queues, for each host:
 *
 * - `trigger: "auto"` and never crawled: its first crawl (`added`);
 * - `auto`, its newest run finished at least `interval` (default PT15M) ago: an incremental sync
 *   (`interval`), or a full rescan when the last full run finished at least `rescanInterval`
 *   (default P1D) ago (`rescan`) — the same rules as the embedded SyncScheduler;
 * - any trigger, its newest run unfinished (paused, or left running by a process that died) and no
 *   live worker holding it: its resumption (`resume`) — a crawl a person started on a manual host
 *   is finished too; an auto host's failed run is retried at the interval;
 * - `auto`, watched by a worker that stopped or died: a sync on a new worker, which watches it
 *   from then on (`rehome`).
 *
 * A host whose sync job went to the dead letter (it kept failing, or its workers kept dying) waits
 * for a person — `inseam crawl`, the web page's Sync, `inseam status --retry-dead` — or for its
 * interval to pass since it was dead-lettered, which is its backoff: the schedule never resumes
 * it at the next tick, or a crawl that kills its workers would kill one a minute.
 *
 * Manual hosts are otherwise left alone. A host with a sync waiting, or a live lease, is skipped; and sends
 * are deduplicated anyway (one waiting sync per host and mode). Networks are all active here: the
 * embedded scheduler's per-network pause has no shared state to live in.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import type { SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { SyncMode } from '../crawl/index.js';
import { parseDuration, subtractDuration } from '../scope/index.js';
import type { CrawlRunRecord, HostRef, Store } from '../store/index.js';
import { rowsOf, type SqlExecutor } from './database.js';
import { DEAD_QUEUE, INBOX_QUEUE_PATTERN, SYNC_QUEUE, SYNC_REMOTE_QUEUE, hostPlacement, type SyncReason } from './jobs.js';
import { aliveSql } from './leases.js';
import type { HostQueue } from './queue.js';
import { BOSS_SCHEMA } from './queue.js';
import { QUEUE_SCHEMA } from './schema.js';

export interface ScheduleSettings {
  /** For auto hosts without an interval. Default PT15M. */
  readonly defaultInterval?: string;
  /** Time between full rescans. Default P1D. */
  readonly rescanInterval?: string;
}

export interface ResolvedSchedule {
  readonly defaultIntervalMs: number;
  readonly rescanMs: number;
}

/** What the schedule knows about one host when it decides. */
export interface HostSyncFacts {
  readonly sync: SourceSyncSettings | null;
  /** Its newest run, or null before the first. */
  readonly lastRun: CrawlRunRecord | null;
  /** When its last completed full run finished, or null. */
  readonly lastFullAt: number | null;
  /** A sync job for it is waiting, retrying or active. */
  readonly pending: boolean;
  /** A live worker holds it. */
  readonly leased: boolean;
  /** A worker that watched it is gone. */
  readonly watchOrphaned: boolean;
  /** When its newest sync job still in the dead letter was put there, or null (absent: none). */
  readonly deadLetteredAt?: number | null;
}

export interface DueSync {
  readonly mode: SyncMode;
  readonly reason: SyncReason;
}

/** Parses the settings. Throws `invalid_config` naming a duration that is not ISO 8601. */
export function resolveSchedule(settings: ScheduleSettings = {}, now = Date.now()): ResolvedSchedule {
  return { defaultIntervalMs: durationMs(settings.defaultInterval ?? 'PT15M', 'defaultInterval', now), rescanMs: durationMs(settings.rescanInterval ?? 'P1D', 'rescanInterval', now) };
}

function durationMs(text: string, name: string, now: number): number {
  const duration = parseDuration(text);
  if ('problem' in duration) throw new InvalidConfigError(`${name}: ${duration.problem}.`, { details: { reason: 'duration_invalid', setting: name } });
  return now - subtractDuration(new Date(now), duration);
}

/**
 * The sync a host needs now, or null. Pure: see the module comment for the rules. An interval that
 * is not ISO 8601 falls back to the default (the host was validated when it was added).
 */
export function dueSync(facts: HostSyncFacts, schedule: ResolvedSchedule, now: number): DueSync | null {
  if (facts.pending) return null;
  const dead = facts.deadLetteredAt ?? null;
  // A manual host's dead-lettered crawl waits for a person; an automatic one for its interval as well.
  if (dead !== null && (facts.sync?.trigger !== 'auto' || now - dead < intervalOf(facts.sync, schedule, now))) return null;
  const run = facts.lastRun;
  // An unfinished run is resumed whatever the trigger: a manual host's crawl a person started is not dropped by a restart.
  if (run !== null && (run.state === 'running' || run.state === 'paused')) return facts.leased ? null : { mode: 'auto', reason: 'resume' };
  if (facts.sync?.trigger !== 'auto') return null;
  if (run === null) return { mode: 'auto', reason: 'added' };
  if (facts.watchOrphaned && !facts.leased) return { mode: 'auto', reason: 'rehome' };
  // A failed run counts as finished: it is tried again at the interval, like the embedded scheduler does.
  if (now - (run.finishedAt ?? run.updatedAt) < intervalOf(facts.sync, schedule, now)) return null;
  if (facts.lastFullAt === null || now - facts.lastFullAt >= schedule.rescanMs) return { mode: 'full', reason: 'rescan' };
  return { mode: 'auto', reason: 'interval' };
}

function intervalOf(sync: SourceSyncSettings, schedule: ResolvedSchedule, now: number): number {
  if (sync.interval === undefined) return schedule.defaultIntervalMs;
  const duration = parseDuration(sync.interval);
  return 'problem' in duration ? schedule.defaultIntervalMs : now - subtractDuration(new Date(now), duration);
}

interface LeaseFacts {
  readonly leased: Set<string>;
  readonly watchOrphaned: Set<string>;
}

/** Hosts with a sync job waiting, retrying or active, in the shared queue or any inbox. */
async function pendingHosts(db: SqlExecutor): Promise<Set<string>> {
  const rows = rowsOf(
    await db.executeSql(
      `SELECT DISTINCT data->>'network' AS network, data->>'host' AS host FROM ${BOSS_SCHEMA}.job
       WHERE (name IN ($1, $3) OR name LIKE $2) AND state < 'completed' AND data->>'type' = 'sync'`,
      [SYNC_QUEUE, INBOX_QUEUE_PATTERN, SYNC_REMOTE_QUEUE],
    ),
  );
  return new Set(rows.map((row) => `${String(row['network'])}/${String(row['host'])}`));
}

/** Per host, when its newest sync job still waiting in the dead letter got there. */
async function deadLettered(db: SqlExecutor): Promise<Map<string, number>> {
  const rows = rowsOf(
    await db.executeSql(
      `SELECT data->>'network' AS network, data->>'host' AS host, (extract(epoch FROM max(created_on)) * 1000)::float8 AS at FROM ${BOSS_SCHEMA}.job
       WHERE name = $1 AND state < 'active' AND data->>'type' = 'sync' GROUP BY 1, 2`,
      [DEAD_QUEUE],
    ),
  );
  return new Map(rows.map((row) => [`${String(row['network'])}/${String(row['host'])}`, Number(row['at'])]));
}

async function leaseFacts(db: SqlExecutor): Promise<LeaseFacts> {
  const rows = rowsOf(
    await db.executeSql(
      `SELECT l.network, l.host, l.purpose, coalesce(${aliveSql('w')}, false) AS alive
       FROM ${QUEUE_SCHEMA}.leases l LEFT JOIN ${QUEUE_SCHEMA}.workers w ON w.id = l.worker_id`,
    ),
  );
  const facts: LeaseFacts = { leased: new Set(), watchOrphaned: new Set() };
  for (const row of rows) {
    const key = `${String(row['network'])}/${String(row['host'])}`;
    if (row['alive'] === true) facts.leased.add(key);
    else if (row['purpose'] === 'watch') facts.watchOrphaned.add(key);
  }
  return facts;
}

export interface QueuedSync extends DueSync {
  readonly host: HostRef;
  /** False when an equal sync was waiting already. */
  readonly queued: boolean;
}

/**
 * Queues every sync that is due (see dueSync). Resolves with what it decided. Rejects with
 * `unavailable` when the store or the queue cannot be read.
 */
export async function enqueueDueSyncs(store: Store, queue: HostQueue, schedule: ResolvedSchedule, now = Date.now()): Promise<QueuedSync[]> {
  const [pending, leases, dead] = await Promise.all([pendingHosts(queue.database), leaseFacts(queue.database), deadLettered(queue.database)]);
  const decided: QueuedSync[] = [];
  for (const network of await store.networks.list()) {
    for (const host of await store.hosts.list(network.slug)) {
      const key = `${host.network}/${host.slug}`;
      const [lastRun] = await store.catalog.listRuns(host.id, 1);
      const state = await store.catalog.syncState(host.id);
      const lastFull = state.lastFullRun === null ? null : await store.catalog.getRun(state.lastFullRun);
      const due = dueSync(
        {
          sync: host.sync,
          lastRun: lastRun ?? null,
          lastFullAt: lastFull?.state === 'completed' ? (lastFull.finishedAt ?? lastFull.updatedAt) : null,
          pending: pending.has(key),
          leased: leases.leased.has(key),
          watchOrphaned: leases.watchOrphaned.has(key),
          deadLetteredAt: dead.get(key) ?? null,
        },
        schedule,
        now,
      );
      if (due === null) continue;
      const ref = { network: host.network, host: host.slug };
      const id = await queue.requestSync(ref, { mode: due.mode, reason: due.reason, placement: hostPlacement(host) });
      decided.push({ ...due, host: ref, queued: id !== null });
    }
  }
  return decided;
}
