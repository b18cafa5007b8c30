/**
 * Honours a host's sync settings (`sources[].sync`, or what a person set):
 *
 * - `trigger: "auto"`: synced when added (a first crawl, or the resumption of an unfinished one),
 *   then every `interval` (ISO 8601, default PT15M) incrementally, with a full rescan — whose diff
 *   finds deletions — once `rescanInterval` (default P1D) has passed since the last; its watch is
 *   subscribed when the connector can watch.
 * - `trigger: "manual"`: nothing runs by itself; `syncNow` runs it (the CLI's `inseam sync`).
 * - `exclude`: globs the crawler leaves out (applied by the crawler, see CrawlTarget.sync).
 * - `alwaysActive`: the host keeps syncing while its network is inactive. Others stop — timers
 *   cleared, watch unsubscribed, a running crawl paused (it resumes from its checkpoint) — until
 *   `setActive(network, true)`. Networks start active.
 *
 * A host without sync settings is manual.
 */
import { EventEmitter } from 'node:events';
import { InvalidConfigError, NotFoundError } from '@neuralis/package-system/contracts';
import type { SourceSyncSettings } from '@neuralis/package-system/contracts';
import { parseDuration, subtractDuration } from '../scope/index.js';
import type { HostRef } from '../store/index.js';
import type { Crawler, SyncOptions } from './crawler.js';
import { excludeMatcher } from './crawler.js';
import type { CrawlHandle } from './handle.js';
import type { CrawlTarget } from './target.js';
import type { Watcher } from './watcher.js';

export interface SyncSchedulerOptions {
  readonly crawler: Crawler;
  /** For `trigger: "auto"` without an interval. Default PT15M. */
  readonly defaultInterval?: string;
  /** Time between full rescans of an auto host. Default P1D. */
  readonly rescanInterval?: string;
  readonly now?: () => number;
}

export interface SyncSchedulerEvents {
  /** A scheduled or requested sync started (or was already running). */
  sync: [HostRef, CrawlHandle];
  /** A sync could not start or failed, or the watch could not be subscribed. */
  failed: [HostRef, unknown];
}

interface Scheduled {
  readonly target: CrawlTarget;
  readonly settings: SourceSyncSettings;
  readonly intervalMs: number;
  timer: NodeJS.Timeout | undefined;
  watcher: Promise<Watcher | null> | undefined;
  /** When the host last had a full run (or was added: a rescan is due one rescan interval later). */
  lastFullAt: number;
  running: boolean;
}

export class SyncScheduler extends EventEmitter<SyncSchedulerEvents> {
  readonly #crawler: Crawler;
  readonly #defaultIntervalMs: number;
  readonly #rescanMs: number;
  readonly #now: () => number;
  readonly #hosts = new Map<string, Scheduled>();
  readonly #inactive = new Set<string>();
  #stopped = false;

  /** Throws `invalid_config` for a duration that is not ISO 8601. */
  constructor(options: SyncSchedulerOptions) {
    super();
    this.#crawler = options.crawler;
    this.#now = options.now ?? Date.now;
    this.#defaultIntervalMs = durationMs(options.defaultInterval ?? 'PT15M', 'defaultInterval', this.#now());
    this.#rescanMs = durationMs(options.rescanInterval ?? 'P1D', 'rescanInterval', this.#now());
  }

  /**
   * Schedules a host by its sync settings (replacing an earlier registration of it). Throws
   * `invalid_config` naming a bad interval or exclude glob.
   */
  add(target: CrawlTarget): void {
    const settings = target.sync ?? { trigger: 'manual' };
    excludeMatcher(settings.exclude ?? []);
    const intervalMs = settings.interval === undefined ? this.#defaultIntervalMs : durationMs(settings.interval, 'sync.interval', this.#now());
    const key = refKey(target.ref);
    void this.#deactivate(this.#hosts.get(key));
    const host: Scheduled = { target, settings, intervalMs, timer: undefined, watcher: undefined, lastFullAt: this.#now(), running: false };
    this.#hosts.set(key, host);
    if (this.#live(host)) this.#activate(host);
  }

  /** Stops scheduling the host (a running crawl is paused). False when it was not added. */
  async remove(ref: HostRef): Promise<boolean> {
    const host = this.#hosts.get(refKey(ref));
    if (host === undefined) return false;
    this.#hosts.delete(refKey(ref));
    await this.#deactivate(host);
    return true;
  }

  /** Syncs a host now, whatever its trigger. Throws `not_found` when it was not added. */
  syncNow(ref: HostRef, options: SyncOptions = {}): CrawlHandle {
    const host = this.#hosts.get(refKey(ref));
    if (host === undefined) throw new NotFoundError(`Host "${ref.host}" of network "${ref.network}" is not scheduled.`, { details: { network: ref.network, host: ref.host } });
    return this.#run(host, options);
  }

  /** Marks a network active or inactive; hosts without `alwaysActive` follow it. */
  setActive(network: string, active: boolean): void {
    if (active) this.#inactive.delete(network);
    else this.#inactive.add(network);
    for (const host of this.#hosts.values()) {
      if (host.target.ref.network !== network || host.settings.alwaysActive === true || host.settings.trigger !== 'auto') continue;
      if (active) this.#activate(host);
      else void this.#deactivate(host);
    }
  }

  /** Stops everything: timers, watches, and running crawls (paused, resumable). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#hosts.values()].map((host) => this.#deactivate(host)));
  }

  #live(host: Scheduled): boolean {
    return !this.#stopped && host.settings.trigger === 'auto' && (host.settings.alwaysActive === true || !this.#inactive.has(host.target.ref.network));
  }

  #activate(host: Scheduled): void {
    if (host.timer === undefined && !host.running) this.#schedule(host, 0);
    if (host.watcher === undefined && host.target.description.capabilities.includes('watch') && typeof host.target.connector.watch === 'function') {
      host.watcher = this.#crawler.watch(host.target).catch((error: unknown) => {
        this.emit('failed', host.target.ref, error);
        return null;
      });
    }
  }

  async #deactivate(host: Scheduled | undefined): Promise<void> {
    if (host === undefined) return;
    clearTimeout(host.timer);
    host.timer = undefined;
    const watcher = host.watcher;
    host.watcher = undefined;
    const running = this.#crawler.running(host.target.ref);
    running?.pause();
    await Promise.all([(await watcher)?.stop(), running?.result.catch(() => undefined)]);
  }

  #schedule(host: Scheduled, delayMs: number): void {
    clearTimeout(host.timer);
    host.timer = setTimeout(() => {
      host.timer = undefined;
      if (this.#live(host)) this.#run(host, {});
    }, delayMs);
    host.timer.unref();
  }

  #run(host: Scheduled, options: SyncOptions): CrawlHandle {
    const mode = options.mode ?? (this.#now() - host.lastFullAt >= this.#rescanMs ? 'full' : 'auto');
    const handle = this.#crawler.sync(host.target, { ...options, mode });
    host.running = true;
    this.emit('sync', host.target.ref, handle);
    handle.result.then(
      (run) => {
        host.running = false;
        if (run.state === 'completed' && run.mode === 'full') host.lastFullAt = run.finishedAt ?? this.#now();
        if (run.state === 'failed') this.emit('failed', host.target.ref, run.error);
        if (this.#live(host) && this.#hosts.get(refKey(host.target.ref)) === host) this.#schedule(host, host.intervalMs);
      },
      (error: unknown) => {
        host.running = false;
        this.emit('failed', host.target.ref, error);
        if (this.#live(host) && this.#hosts.get(refKey(host.target.ref)) === host) this.#schedule(host, host.intervalMs);
      },
    );
    return handle;
  }
}

function refKey(ref: HostRef): string {
  return `${ref.network}/${ref.host}`;
}

function durationMs(text: string, name: string, now: number): number {
  const duration = parseDuration(text);
  if ('problem' in duration) throw new InvalidConfigError(`${name}: ${duration.problem}.`, { details: { reason: 'duration_invalid', setting: name } });
  return now - subtractDuration(new Date(now), duration);
}
