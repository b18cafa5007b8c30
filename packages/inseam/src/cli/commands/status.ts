/**
 * `inseam status [--store postgres://…] [--retry-dead] [--json]`: what the crawl machinery is doing.
 *
 * On the shared PostgreSQL store (`--store` or INSEAM_DATABASE_URL): workers with their heartbeats
 * and jobs, queue depths (waiting, retrying, active, failed; the dead letter's waiting jobs are
 * the ones that kept failing), host leases, crawls in progress, and failing hosts — dead-lettered,
 * retrying, or whose newest crawl failed. On the embedded store there are no workers or queues;
 * crawls in progress (their owner and heartbeat are the lease) and failing hosts are shown. On
 * both: the vector index's backend (sqlite-vec, pgvector, or the exact scan) and, per network, the
 * model its vector host names and how many entries are indexed, pending or failed for it.
 *
 * `--retry-dead` first sends the dead letter's jobs back to their queues (once their cause is
 * fixed); it needs the shared store. Exit code 0 whatever it finds; `--json` prints everything as
 * one object for scripts.
 */
import type { Command } from 'commander';
import { isPostgresUrl } from '../../store/postgres/url.js';
import type { CatalogStatus, FailingHost, QueueStatus } from '../../queue/index.js';
import type { VectorIndexStatus } from '../../vectors/index.js';
import type { CliIo } from '../io.js';
import { formatCount, formatDuration, formatTable, printJson, withPlatform } from './support.js';
import { sharedStoreUrl, storeUrlOf } from './worker.js';

interface StatusOptions {
  readonly retryDead?: boolean;
  readonly json?: boolean;
}

/** The PostgreSQL code of a missing table: no worker has prepared the queue yet. */
const UNDEFINED_TABLE = '42P01';

/** Sends the dead letter's jobs back; resolves with how many. */
async function retryDead(url: string): Promise<number> {
  const { HostQueue, QueueDatabase } = await import('../../queue/index.js');
  const database = new QueueDatabase({ url, max: 2 });
  try {
    const queue = await HostQueue.start({ database, maintain: false });
    try {
      return await queue.retryDead();
    } finally {
      await queue.stop();
    }
  } finally {
    await database.close();
  }
}

async function readQueue(url: string): Promise<QueueStatus | null> {
  const { QueueDatabase, queueStatus } = await import('../../queue/index.js');
  const database = new QueueDatabase({ url, max: 1 });
  try {
    return await queueStatus(database);
  } catch (error) {
    if ((error as { details?: { postgres?: unknown } }).details?.postgres === UNDEFINED_TABLE) return null;
    throw error;
  } finally {
    await database.close();
  }
}

function ago(at: number | null, now: number): string {
  return at === null ? '-' : `${formatDuration(Math.max(0, now - at))} ago`;
}

const KIND: Readonly<Record<FailingHost['kind'], string>> = { dead_letter: 'dead letter', retrying: 'retrying', run_failed: 'crawl failed' };

const BACKEND: Readonly<Record<VectorIndexStatus['backend'], string>> = { 'sqlite-vec': 'sqlite-vec', pgvector: 'pgvector', exact: 'exact scan (PostgreSQL without pgvector)' };

function renderVectors(vectors: VectorIndexStatus): string {
  const parts = [`\nVector index: ${BACKEND[vectors.backend]}${vectors.version === null ? '' : ` ${vectors.version}`}\n`];
  if (vectors.networks.length > 0) {
    parts.push(
      formatTable([
        ['  NETWORK', 'VECTOR HOST', 'MODEL', 'INDEXED', 'PENDING', 'FAILED'],
        ...vectors.networks.map((network) => [
          `  ${network.network}`,
          network.vectorHost ?? '- (no semantic search)',
          network.error === undefined ? (network.model ?? '-') : `? ${network.error.message} [${network.error.code}]`,
          String(network.indexed),
          String(network.pending),
          String(network.failed),
        ]),
      ]),
    );
  }
  return parts.join('');
}

function render(queue: QueueStatus | null, catalog: CatalogStatus, failing: readonly FailingHost[], shared: boolean, now: number): string {
  const parts: string[] = [];
  if (!shared) {
    parts.push('Store: embedded (SQLite). Workers and queues run on the shared PostgreSQL store; see docs/scale-out.md.\n');
  } else if (queue === null) {
    parts.push('Store: PostgreSQL. No worker has started on it yet (start one with `inseam worker`).\n');
  } else {
    const alive = queue.workers.filter((worker) => worker.alive);
    parts.push(`Workers: ${alive.length} alive${queue.workers.length > alive.length ? `, ${queue.workers.length - alive.length} stopped or lost (kept a day)` : ''}\n`);
    if (queue.workers.length > 0) {
      parts.push(
        formatTable([
          ['  WORKER', 'MACHINE', 'PID', 'JOBS', 'HEARTBEAT', 'STATE', 'HOSTS'],
          ...queue.workers.map((worker) => [
            `  ${worker.id}`,
            worker.machine,
            String(worker.pid),
            `${worker.jobs}/${worker.concurrency}`,
            ago(worker.heartbeatAt, now),
            worker.alive ? 'alive' : (worker.stopReason ?? 'gone'),
            worker.hosts.join(', ') || '-',
          ]),
        ]),
      );
    }
    parts.push('\nQueues\n');
    parts.push(
      formatTable([
        ['  QUEUE', 'WAITING', 'RETRYING', 'ACTIVE', 'FAILED', 'DONE'],
        ...queue.queues.map((depth) => [`  ${depth.queue}`, String(depth.waiting), String(depth.retrying), String(depth.active), String(depth.failed), String(depth.completed)]),
      ]),
    );
    parts.push(`\nLeases: ${queue.leases.filter((lease) => lease.alive).length}\n`);
    const leases = queue.leases.filter((lease) => lease.alive || lease.purpose === 'watch');
    if (leases.length > 0) {
      parts.push(
        formatTable([
          ['  HOST', 'WORKER', 'FOR', 'SINCE'],
          ...leases.map((lease) => [`  ${lease.host}`, lease.alive ? lease.worker : `${lease.worker} (gone: waiting for a new watcher)`, lease.purpose, ago(lease.since, now)]),
        ]),
      );
    }
  }
  parts.push(`\nCrawls running: ${catalog.running.length}\n`);
  if (catalog.running.length > 0) {
    parts.push(
      formatTable([
        ['  HOST', 'RUN', 'MODE', 'ENTRIES', 'OWNER', 'HEARTBEAT'],
        ...catalog.running.map((run) => [`  ${run.host}`, String(run.run), run.mode, formatCount(run.entries), run.owner ?? '-', ago(run.heartbeatAt, now)]),
      ]),
    );
  }
  parts.push(`\nFailing hosts: ${failing.length}\n`);
  if (failing.length > 0) {
    parts.push(
      formatTable([
        ['  HOST', 'STATE', 'SINCE', 'ERROR'],
        ...failing.map((host) => [`  ${host.host}`, KIND[host.kind] + (host.attempts === null ? '' : ` (${host.attempts} attempts)`), ago(host.at, now), `${host.message} [${host.code}]`]),
      ]),
    );
  }
  return parts.join('');
}

export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('Show workers, queue depths, leases, running crawls, failing hosts and the vector index.')
    .option('--retry-dead', 'first send the dead letter\'s jobs back to their queues (shared store only)')
    .option('--json', 'print everything as one JSON object')
    .action(async (options: StatusOptions, command: Command) => {
      const url = storeUrlOf(command, io);
      const sharedUrl = url !== undefined && isPostgresUrl(url) ? url : undefined;
      if (options.retryDead === true) {
        const count = await retryDead(sharedStoreUrl(command, io, '--retry-dead'));
        io.stderr.write(`Sent ${count} dead-lettered job${count === 1 ? '' : 's'} back to ${count === 1 ? 'its queue' : 'their queues'}.\n`);
      }
      const [{ catalogStatus, currentFailures }, { vectorIndexStatus }] = await Promise.all([import('../../queue/index.js'), import('../../vectors/index.js')]);
      await withPlatform(command, io, async (platform) => {
        const now = Date.now();
        const [queue, catalog, vectors] = await Promise.all([sharedUrl === undefined ? Promise.resolve(null) : readQueue(sharedUrl), catalogStatus(platform.store), vectorIndexStatus(platform.store)]);
        if (options.json === true) {
          printJson(io, { store: sharedUrl === undefined ? 'sqlite' : 'postgres', ...(queue ?? { workers: [], queues: [], leases: [] }), running: catalog.running, failing: currentFailures(queue?.failing ?? [], catalog), vectors });
        } else {
          io.stdout.write(render(queue, catalog, currentFailures(queue?.failing ?? [], catalog), sharedUrl !== undefined, now) + renderVectors(vectors));
        }
      });
    });
}
