/**
 * `inseam worker [--store postgres://…] [--hosts all|remote] [--concurrency n] [--lease-timeout s]
 * [--poll-interval s] [--batch-size n] [--json]`: crawls hosts from the shared queue. `--hosts
 * remote` is for a machine without the folders of `fs`/`local` hosts and pads: it takes only jobs
 * of hosts that need none (docs/scale-out.md#pinning-hosts-to-workers). Run it on any number of machines
 * pointed at the same PostgreSQL database (`--store`, or INSEAM_DATABASE_URL); each has its own
 * sandbox host and data directory (`--data`; hosts' credentials need the same INSEAM_MASTER_KEY
 * everywhere). See docs/scale-out.md.
 *
 * It prints what it does, one line per step (`--json`: one JSON object per line on stdout, for
 * logs). SIGINT/SIGTERM stop it cleanly: crawls pause at their next checkpoint and are queued
 * again for another worker; exit 0. A worker killed outright loses its leases one lease timeout
 * after its last heartbeat, and its crawls resume elsewhere from their last checkpoint.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { DATABASE_URL_ENV, resolveStoreUrl } from '../../platform/data-dir.js';
import type { Platform } from '../../platform/index.js';
import { WORKER_HOSTS_FILTERS } from '../../queue/jobs.js';
import type { HostQueue, WorkerActivity, WorkerHosts, WorkerHostsFilter } from '../../queue/index.js';
import { isPostgresUrl } from '../../store/postgres/url.js';
import type { CliIo } from '../io.js';
import { formatCount, formatCountOf, platformOptions, stopSignals } from './support.js';

interface WorkerOptions {
  readonly hosts?: string;
  readonly concurrency?: string;
  readonly leaseTimeout?: string;
  readonly pollInterval?: string;
  readonly batchSize?: string;
  readonly json?: boolean;
}

/** How a queue worker reaches a platform's hosts (here and in `inseam up` on the shared store). */
export function workerHosts(platform: Platform): WorkerHosts {
  return { record: (ref) => platform.store.hosts.get(ref), crawlTarget: (record) => platform.kinds.crawlTarget(record), forget: (ref) => platform.kinds.forget(ref) };
}

/** The store URL: the global `--store`, else INSEAM_DATABASE_URL; undefined for the embedded store. */
export function storeUrlOf(command: Command, io: CliIo): string | undefined {
  return resolveStoreUrl({ storeUrl: command.optsWithGlobals<{ store?: string }>().store, env: io.env });
}

/** The shared PostgreSQL store's URL. Throws `invalid_argument` when none is named. */
export function sharedStoreUrl(command: Command, io: CliIo, what: string): string {
  const url = storeUrlOf(command, io);
  if (url === undefined || !isPostgresUrl(url)) {
    throw new InvalidArgumentError(`${what} works on the shared PostgreSQL store: give --store postgres://… or set ${DATABASE_URL_ENV}.`, { details: { argument: 'store' } });
  }
  return url;
}

function whole(text: string | undefined, option: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${option} takes a whole number of at least 1, not ${JSON.stringify(text)}.`, { details: { argument: option.slice(2) } });
  return value;
}

/** Seconds (decimals allowed) as milliseconds, at least `minimumMs`. */
function secondsMs(text: string | undefined, option: string, fallbackMs: number, minimumMs: number): number {
  if (text === undefined) return fallbackMs;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(value) || value * 1000 < minimumMs) {
    throw new InvalidArgumentError(`${option} takes a number of seconds of at least ${minimumMs / 1000}, not ${JSON.stringify(text)}.`, { details: { argument: option.slice(2) } });
  }
  return Math.round(value * 1000);
}

function hostsFilter(text: string | undefined): WorkerHostsFilter {
  if (text === undefined) return 'all';
  if (!(WORKER_HOSTS_FILTERS as readonly string[]).includes(text)) {
    throw new InvalidArgumentError(`--hosts takes ${WORKER_HOSTS_FILTERS.join(' or ')}, not ${JSON.stringify(text)}: "remote" when this machine does not see the folders of fs/local hosts and pads.`, {
      details: { argument: 'hosts' },
    });
  }
  return text as WorkerHostsFilter;
}

function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/** One activity as a line for a person, or null for what only logs need. */
export function describeActivity(activity: WorkerActivity): string | null {
  switch (activity.type) {
    case 'started':
      return `worker ${activity.worker} on ${activity.machine} (pid ${activity.pid}) takes up to ${activity.concurrency} jobs at once${activity.serves === 'remote' ? ', of hosts that need no folder on this machine' : ''}`;
    case 'crawl-started':
      return `crawling ${activity.host} (${activity.mode}, ${activity.reason})`;
    case 'crawl-ended':
      return `crawled ${activity.host}: ${activity.state}, ${formatCountOf(activity.entries, 'entry', 'entries')} (run ${activity.run})${activity.error === null ? '' : ` — ${activity.error.message} [${activity.error.code}]`}`;
    case 'events-applied':
      return `applied changes to ${activity.host}: ${formatCount(activity.written)} written, ${formatCount(activity.moved)} moved, ${formatCount(activity.deleted)} removed${activity.errors > 0 ? `, ${formatCountOf(activity.errors, 'error', 'errors')}` : ''}`;
    case 'forwarded':
      return `passed a job for ${activity.host} to worker ${activity.to}, which holds it`;
    case 'deferred':
      return `put off a job for ${activity.host}: ${activity.why}`;
    case 'job-failed':
      return `a job for ${activity.host || 'an unknown host'} failed: ${activity.message} [${activity.code}]; it is retried later, or moved to the dead letter`;
    case 'watching':
      return `watching ${activity.host} for changes`;
    case 'reaped':
      return `worker ${activity.dead} is gone: ${activity.resumed} of its jobs queued again${activity.deadLettered > 0 ? `, ${activity.deadLettered} moved to the dead letter` : ''}`;
    case 'scheduled':
      return activity.queued > 0 ? `queued ${activity.queued} scheduled syncs` : null;
    case 'lease-lost':
      return `this worker's heartbeat lapsed, so its hosts may be others' now: it paused its work and joined again as ${activity.next}`;
    case 'warning':
      return `warning: ${activity.message}`;
    case 'stopped':
      return `worker ${activity.worker} stopped`;
  }
}


export function registerWorkerCommand(program: Command, io: CliIo): void {
  program
    .command('worker')
    .description('Crawl hosts from the shared queue; run it on any machine pointed at the PostgreSQL store.')
    .option('--hosts <which>', '"all" (default: this machine sees the folders of fs/local hosts and pads) or "remote" (it does not: take only hosts that need no folder)')
    .option('--concurrency <n>', 'jobs at once (default 4)')
    .option('--lease-timeout <seconds>', 'how long after its last heartbeat a worker counts as dead and its hosts move on (default 30)')
    .option('--poll-interval <seconds>', 'time between looks at the queue when idle (default 2)')
    .option('--batch-size <n>', 'entries per transaction (default 1000)')
    .option('--json', 'print each step as one JSON object per line')
    .action(async (options: WorkerOptions, command: Command) => {
      const serves = hostsFilter(options.hosts);
      const concurrency = whole(options.concurrency, '--concurrency', 4);
      const leaseMs = secondsMs(options.leaseTimeout, '--lease-timeout', 30_000, 1000);
      const pollMs = secondsMs(options.pollInterval, '--poll-interval', 2000, 50);
      const batchSize = whole(options.batchSize, '--batch-size', 1000);
      const url = sharedStoreUrl(command, io, 'inseam worker');
      // The crawler's own run lease is half the worker's, so a dead worker's run is free by the time its host lease is.
      // Loaded when the worker runs, so the other commands and --help do not pay for the platform and the queue.
      const [{ openPlatform }, { ConnectorLifecycle }, { HostQueue, QueueDatabase, QueueWorker }] = await Promise.all([
        import('../../platform/index.js'),
        import('../../connectors/index.js'),
        import('../../queue/index.js'),
      ]);
      const platform = await openPlatform({ ...platformOptions(command, io), storeUrl: url, crawler: { leaseMs: Math.ceil(leaseMs / 2), batchSize } });
      const database = new QueueDatabase({ url, max: concurrency + 4 });
      let queue: HostQueue | undefined;
      const signals = stopSignals(() => io.stderr.write('inseam: already stopping; crawls pause at their next checkpoint.\n'));
      try {
        const connectors = new ConnectorLifecycle(platform);
        for (const failure of (await connectors.restore()).failed) {
          io.stderr.write(`inseam: connector module ${failure.sha.slice(0, 12)} could not be registered again: ${failure.message} [${failure.code}]\n`);
        }
        queue = await HostQueue.start({ database });
        const worker = new QueueWorker({
          queue,
          store: platform.store,
          crawler: platform.crawler,
          hosts: workerHosts(platform),
          serves,
          concurrency,
          leaseMs,
          pollMs,
        });
        worker.on('activity', (activity) => {
          if (options.json === true) {
            io.stdout.write(`${JSON.stringify(activity)}\n`);
            return;
          }
          const line = describeActivity(activity);
          if (line === null) return;
          (activity.type === 'warning' ? io.stderr : io.stdout).write(`${clock(activity.at)} ${line}\n`);
        });
        await worker.start();
        if (options.json !== true) io.stderr.write('Press Ctrl-C to stop: crawls pause at a checkpoint and another worker resumes them.\n');
        await signals.stopped;
        await worker.stop();
      } finally {
        signals.dispose();
        await queue?.stop().catch(() => undefined);
        await database.close().catch(() => undefined);
        await platform.close();
      }
    });
}
