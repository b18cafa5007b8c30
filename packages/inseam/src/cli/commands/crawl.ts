/**
 * `inseam crawl <host> [--full] [--restart] [--follow] [--json]`: crawls a host into the
 * catalog. The first crawl lists everything in scope; later ones are incremental; `--full`
 * rescans (and removes what is gone); an interrupted crawl resumes from its checkpoint unless
 * `--restart`. Progress goes to stderr (a bar on a terminal), the summary to stdout.
 *
 * Ctrl-C pauses the crawl at the next batch boundary; the next `inseam crawl` resumes it.
 * `--follow` keeps the host in sync after the crawl — its watch when the kind can watch, and an
 * incremental sync every `--interval` (default: the host's sync interval, else PT5M) — until
 * interrupted.
 *
 * Exit codes: 0 completed; 1 paused by an interrupt, or failed by the connector; 3 failed
 * because the host was unavailable, timed out or rate limited (try again later).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { progressOf, type CrawlProgress } from '../../catalog/progress.js';
import type { CrawlHandle, Watcher } from '../../crawl/index.js';
import type { Platform } from '../../platform/index.js';
import { parseDuration, subtractDuration } from '../../scope/duration.js';
import type { CrawlRunRecord, HostRef } from '../../store/index.js';
import { EXIT, type CliIo } from '../io.js';
import { progressView } from './progress.js';
import { formatBytes, formatCount, formatCountOf, formatDuration, printJson, resolveHost, withPlatform } from './support.js';

interface CrawlOptions {
  readonly network?: string;
  readonly full?: boolean;
  readonly restart?: boolean;
  readonly follow?: boolean;
  readonly interval?: string;
  readonly json?: boolean;
}

const RETRY_LATER: ReadonlySet<string> = new Set(['unavailable', 'timeout', 'rate_limited']);
const DEFAULT_FOLLOW_INTERVAL = 'PT5M';
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function summary(ref: HostRef, progress: CrawlProgress): string {
  const parts = [
    `${formatCountOf(progress.entries, 'entry', 'entries')} (${formatBytes(progress.bytes)})`,
    `${formatCount(progress.indexed)} indexed`,
    `${formatCount(progress.skipped)} skipped`,
    ...(progress.moved > 0 ? [`${formatCount(progress.moved)} moved`] : []),
    ...(progress.deleted > 0 ? [`${formatCount(progress.deleted)} removed`] : []),
    formatCountOf(progress.errors, 'error', 'errors'),
  ];
  const ending = progress.error === null ? progress.state : `${progress.state}: ${progress.error.message} [${progress.error.code}]`;
  return `Crawled ${ref.network}/${ref.host} (${progress.mode}): ${parts.join(', ')} in ${formatDuration(progress.elapsedMs)} — ${ending}.\n`;
}

function exitCodeOf(run: CrawlRunRecord): number {
  if (run.state === 'completed') return EXIT.ok;
  if (run.state === 'failed' && run.error !== null && RETRY_LATER.has(run.error.code)) return EXIT.unavailable;
  return EXIT.no;
}

function intervalMs(text: string): number {
  const duration = parseDuration(text);
  if ('problem' in duration) throw new InvalidArgumentError(`--interval ${JSON.stringify(text)} is not an ISO 8601 duration such as PT5M: ${duration.problem}.`, { details: { argument: 'interval' } });
  const now = Date.now();
  return Math.max(1000, now - subtractDuration(new Date(now), duration));
}

/** Resolves at the first SIGINT or SIGTERM; `cancel` removes the listeners. */
function interrupted(): { readonly signal: Promise<void>; cancel(): void } {
  let cancel = (): void => undefined;
  const signal = new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    for (const name of STOP_SIGNALS) process.once(name, stop);
    cancel = () => {
      for (const name of STOP_SIGNALS) process.removeListener(name, stop);
    };
  });
  return { signal, cancel: () => cancel() };
}

/** Runs one crawl with progress; an interrupt pauses it. */
async function crawlOnce(platform: Platform, ref: HostRef, options: CrawlOptions, io: CliIo): Promise<CrawlRunRecord> {
  const handle: CrawlHandle = await platform.sync(ref, { ...(options.full === true ? { mode: 'full' } : {}), ...(options.restart === true ? { restart: true } : {}) });
  const view = progressView(io.stderr, `${ref.network}/${ref.host}`);
  handle.on('progress', (progress) => view.update(progress));
  const stop = interrupted();
  void stop.signal.then(() => handle.pause());
  try {
    const run = await handle.result;
    // A one-off process: the text it catalogued is embedded before it exits (resumed next time if killed).
    if (run.state === 'completed') await platform.vectors.request(ref.network);
    return run;
  } finally {
    stop.cancel();
    view.finish();
  }
}

async function follow(platform: Platform, ref: HostRef, options: CrawlOptions, io: CliIo): Promise<void> {
  const record = await platform.networks.hostRecord(ref);
  const target = await platform.kinds.crawlTarget(record);
  const every = intervalMs(options.interval ?? record.sync?.interval ?? DEFAULT_FOLLOW_INTERVAL);
  const stop = interrupted();
  let watcher: Watcher | undefined;
  if (target.description.capabilities.includes('watch') && typeof target.connector.watch === 'function') {
    watcher = await platform.crawler.watch(target);
    watcher.on('applied', (outcome) => {
      io.stdout.write(`Changes in ${ref.network}/${ref.host}: ${formatCount(outcome.written)} written, ${formatCount(outcome.moved)} moved, ${formatCount(outcome.deleted)} removed${outcome.errors > 0 ? `, ${formatCountOf(outcome.errors, 'error', 'errors')}` : ''}.\n`);
    });
    watcher.on('failed', (error) => io.stderr.write(`inseam: applying changes failed: ${error instanceof Error ? error.message : String(error)}\n`));
  }
  let current: CrawlHandle | undefined;
  const timer = setInterval(() => {
    if (current !== undefined) return;
    void platform.sync(ref).then(
      async (handle) => {
        current = handle;
        const run = await handle.result.finally(() => (current = undefined));
        if (run.counters.entries > 0 || run.state !== 'completed') io.stdout.write(summary(ref, progressOf(run)));
      },
      (error: unknown) => io.stderr.write(`inseam: the sync could not start: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  }, every);
  io.stderr.write(`Following ${ref.network}/${ref.host}${watcher === undefined ? '' : ' (watching for changes)'}; syncing every ${formatDuration(every)}. Press Ctrl-C to stop.\n`);
  try {
    await stop.signal;
  } finally {
    stop.cancel();
    clearInterval(timer);
    current?.pause();
    await current?.result.catch(() => undefined);
    await watcher?.stop();
  }
}

export function registerCrawlCommand(program: Command, io: CliIo): void {
  program
    .command('crawl')
    .description('Crawl a host into the catalog (listing, metadata and content for search).')
    .argument('<host>', 'network/host, inseam://network/host, or host:// in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--full', 'rescan everything in scope and remove what is gone')
    .option('--restart', 'abandon an interrupted crawl instead of resuming it')
    .option('--follow', 'keep the host in sync after the crawl, until interrupted')
    .option('--interval <duration>', 'with --follow: time between syncs, ISO 8601 (default: the host\'s sync interval, else PT5M)')
    .option('--json', 'print the finished run as JSON')
    .action(async (text: string, options: CrawlOptions, command: Command) => {
      if (options.interval !== undefined) intervalMs(options.interval);
      await withPlatform(command, io, async (platform) => {
        const ref = await resolveHost(platform, text, options.network, io);
        const run = await crawlOnce(platform, ref, options, io);
        const progress = progressOf(run);
        if (options.json === true) printJson(io, progress);
        else io.stdout.write(summary(ref, progress));
        if (run.state === 'paused') io.stderr.write('Paused; run `inseam crawl` again to resume where it stopped.\n');
        if (options.follow === true && run.state === 'completed') await follow(platform, ref, options, io);
        process.exitCode = exitCodeOf(run);
      });
    });
}
