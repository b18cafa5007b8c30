/**
 * The crawl and sync engine. It drives a host through the host `Connector` interface and writes
 * through the catalog interface (`CatalogStore`) only.
 *
 * - `sync` runs a crawl: the first one lists the whole host (within its scope); later ones are
 *   incremental, listing with `since` from the host's watermark and then diffing the host's
 *   names-only listing against the catalog (deletions, new names, moves; diff.ts) — or, for a
 *   host with no names listing whose listing is free, full; `mode: "full"` is a rescan, whose
 *   mark-and-sweep removes what is gone. An unfinished run of the host — paused, failed, or left by a
 *   process that died — is resumed from its checkpoint instead of starting another.
 * - `applyEvents`, `applyWebhook` and `watch` apply change events as they arrive.
 */
import { hostname } from 'node:os';
import {
  BindingConflictError,
  ConnectorFailedError,
  InvalidConfigError,
  NotFoundError,
  UnsupportedOperationError,
  type ConnectorError,
} from '@neuralis/package-system/contracts';
import type { ChangeEvent, Entry } from '@inseam/connector';
import { EntryEncoder, entryProblem } from '../catalog/index.js';
import { compileGlob, compileHostScope, type CompiledScope } from '../scope/index.js';
import type { CatalogStore, CrawlMode, CrawlRunRecord, HostRef, SyncHistoryStore } from '../store/index.js';
import { CrawlHandle } from './handle.js';
import { resolveOptions, type CrawlerOptions, type ResolvedCrawlerOptions } from './options.js';
import { Ordering } from './ordering.js';
import { ownerIsAlive } from './owner.js';
import { EntryPreparer, type WriteItem } from './prepare.js';
import { RunSession, asConnectorError } from './run.js';
import { hostNames, type CrawlTarget } from './target.js';
import type { EventOutcome } from './outcome.js';
import { startWatch, type Watcher } from './watcher.js';

/** `auto`: resume, else a first crawl, else incremental. `full`: a rescan. `incremental`: since the watermark (a first crawl when there is none). */
export type SyncMode = 'auto' | 'full' | 'incremental';

export interface SyncOptions {
  readonly mode?: SyncMode;
  /** Abandon the host's unfinished run and start afresh instead of resuming it. */
  readonly restart?: boolean;
}

const EVENT_TYPES = new Set(['put', 'delete', 'move', 'rescan']);
const EVENT_BATCH = 500;

interface HostContext {
  readonly hostId: number;
  readonly scope: CompiledScope;
  readonly ordering: Ordering;
  readonly preparer: EntryPreparer;
  readonly excluded: (path: string) => boolean;
}

export class Crawler {
  readonly #o: ResolvedCrawlerOptions;
  readonly #store: CatalogStore;
  readonly #history: SyncHistoryStore | undefined;
  readonly #running = new Map<string, CrawlHandle>();

  /** Throws `invalid_argument` for a setting out of range. */
  constructor(options: CrawlerOptions) {
    this.#o = resolveOptions(options);
    this.#store = options.store;
    this.#history = options.history;
  }

  /** This crawler's owner id, as crawl runs record it. */
  get owner(): string {
    return this.#o.owner;
  }

  /**
   * Starts (or resumes) a crawl of the host and returns its handle at once; while it runs, a
   * second call for the same host returns the same handle. See `CrawlHandle.result` for how it ends.
   */
  sync(target: CrawlTarget, options: SyncOptions = {}): CrawlHandle {
    const key = refKey(target.ref);
    const current = this.#running.get(key);
    if (current !== undefined) return current;
    const handle = new CrawlHandle((h) => this.#execute(target, options, h));
    this.#running.set(key, handle);
    handle.result.then(
      (run) => {
        this.#running.delete(key);
        if (run.state === 'completed' || run.state === 'paused') this.#o.onWritten(target.ref);
      },
      () => this.#running.delete(key),
    );
    return handle;
  }

  /** The crawl of `ref` this crawler is running, if any. */
  running(ref: HostRef): CrawlHandle | undefined {
    return this.#running.get(refKey(ref));
  }

  async #execute(target: CrawlTarget, options: SyncOptions, handle: CrawlHandle): Promise<CrawlRunRecord> {
    const context = await this.#context(target, new Date(this.#o.now()));
    const { run, previousWatermark, resumed } = await this.#acquire(target, context, options);
    // A resumed run keeps the window it started with (a `last` duration counts back from its start).
    const startedScope = resumed ? await this.#context(target, new Date(run.startedAt), context.hostId) : context;
    const session = new RunSession({
      store: this.#store,
      options: this.#o,
      owner: this.#o.owner,
      target,
      hostId: context.hostId,
      run,
      handle,
      scope: startedScope.scope,
      ordering: startedScope.ordering,
      preparer: startedScope.preparer,
      excluded: startedScope.excluded,
      previousWatermark,
    });
    const ended = await session.execute();
    await this.#recordStop(context.hostId, ended, session.changes);
    return ended;
  }

  /** The run's stop, in the host's sync history. The crawl's own outcome stands even when this cannot be written. */
  async #recordStop(hostId: number, run: CrawlRunRecord, changes: { readonly added: number; readonly changed: number }): Promise<void> {
    if (this.#history === undefined) return;
    const { counters } = run;
    // The catalog as the run left it, for the history's chart of the catalog over time; unreadable, the stop is still recorded.
    const catalog = await this.#store.catalogSize(hostId).catch(() => null);
    await this.#history
      .record(hostId, {
        runId: run.id,
        mode: run.mode,
        state: run.state,
        startedAt: run.startedAt,
        endedAt: run.finishedAt ?? run.updatedAt,
        elapsedMs: run.elapsedMs,
        entries: counters.entries,
        added: changes.added,
        changed: changes.changed,
        removed: counters.deleted,
        moved: counters.moved,
        errors: counters.errors,
        error: run.error,
        catalog,
      })
      .catch(() => undefined);
  }

  /** Claims the host's unfinished run, or creates a new one. */
  async #acquire(target: CrawlTarget, context: HostContext, options: SyncOptions): Promise<{ run: CrawlRunRecord; previousWatermark: string | null; resumed: boolean }> {
    const { hostId } = context;
    const now = this.#o.now();
    const state = await this.#store.syncState(hostId);
    const unfinished = await this.#store.unfinishedRun(hostId);
    if (unfinished !== null) {
      const { owner } = unfinished;
      if (owner !== null && owner !== this.#o.owner && unfinished.state === 'running' && ownerIsAlive(owner, unfinished.heartbeatAt, now, this.#o.leaseMs)) {
        throw busy(unfinished.id);
      }
      if (!(await this.#store.claimRun(unfinished.id, owner, this.#o.owner, now))) throw busy(unfinished.id);
      if (options.restart !== true) {
        const run = await this.#store.getRun(unfinished.id);
        return { run: run!, previousWatermark: state.watermark, resumed: true };
      }
      await this.#store.finishRun(unfinished.id, { state: 'abandoned', owner: this.#o.owner, now });
    }
    const requested = options.mode ?? 'auto';
    let mode: CrawlMode = requested === 'full' || state.lastFullRun === null ? 'full' : 'incremental';
    // The catalog must equal the host after every sync. A `since` listing cannot show deletions
    // or renames; a names-only listing can (the diff an incremental run ends with), else a host
    // whose listing is free is rescanned each time. A metered host waits for its rescan interval
    // (or its events) — docs/connectors/README.md says how soon each kind shows a deletion.
    if (requested === 'auto' && mode === 'incremental' && hostNames(target.connector) === undefined && target.description.listing === 'free') mode = 'full';
    let since = context.scope.window.since;
    if (mode === 'incremental' && state.watermark !== null) {
      const fromWatermark = context.ordering.since(state.watermark, this.#o.overlapMs);
      since = since === undefined ? fromWatermark : this.#later(context.ordering, since, fromWatermark);
    }
    let total: number | null = null;
    if (mode === 'full' && state.lastFullRun !== null) {
      const stored = await this.#store.countEntries(hostId);
      if (stored > 0) total = stored;
    }
    const { maxEntries } = context.scope.limits;
    if (maxEntries !== undefined) total = total === null ? maxEntries : Math.min(total, maxEntries);
    const run = await this.#store.createRun({ hostId, mode, since: since ?? null, owner: this.#o.owner, totalEstimate: total, now });
    return { run, previousWatermark: state.watermark, resumed: false };
  }

  #later(ordering: Ordering, a: string, b: string): string {
    const x = ordering.parse(a);
    const y = ordering.parse(b);
    if (x === undefined || y === undefined) return b;
    return ordering.compare(x, y) >= 0 ? a : b;
  }

  async #context(target: CrawlTarget, now: Date, knownHostId?: number): Promise<HostContext> {
    const hostId = knownHostId ?? (await this.#store.resolveHost(target.ref));
    if (hostId === null) throw new NotFoundError(`Network "${target.ref.network}" has no host "${target.ref.host}".`, { details: { network: target.ref.network, host: target.ref.host } });
    const scope = compileHostScope(target.description, target.scope ?? undefined, { now });
    const preparer = new EntryPreparer(this.#store, target.connector, new EntryEncoder(target.description), {
      readConcurrency: this.#o.readConcurrency,
      maxContentBytes: scope.limits.maxEntryBytes ?? this.#o.maxContentBytes,
      readTimeoutMs: this.#o.readTimeoutMs,
      extractor: this.#o.extractor,
    });
    return { hostId, scope, ordering: new Ordering(target.description), preparer, excluded: excludeMatcher(target.sync?.exclude ?? []) };
  }

  /**
   * Applies change events in order: `put` stores the entry (the event's, else `stat(path)`; a
   * null stat deletes), reading changed content; `delete` removes; `move` follows the entry from
   * `from` to `path` with its content; `rescan` starts a full sync. An entry the scope or the
   * sync's excludes leave out is removed. Writes stamp the host's running full crawl, so its
   * rescan diff does not undo them. Rejects with `not_found` for an unknown host, `scope_invalid`,
   * or `unavailable` (the store); malformed events and failed stats are counted, not thrown.
   */
  async applyEvents(target: CrawlTarget, events: readonly ChangeEvent[]): Promise<EventOutcome> {
    const context = await this.#context(target, new Date(this.#o.now()));
    const totals = { written: 0, moved: 0, deleted: 0, ignored: 0, errors: 0 };
    let rescan = false;
    let group: ChangeEvent[] = [];
    const touched = new Set<string>();
    const flush = async (): Promise<void> => {
      if (group.length === 0) return;
      const result = await this.#applyGroup(target, context, group);
      totals.written += result.written;
      totals.moved += result.moved;
      totals.deleted += result.deleted;
      totals.errors += result.errors;
      group = [];
      touched.clear();
    };
    for (const event of events) {
      if (!isEvent(event)) {
        totals.ignored += 1;
        continue;
      }
      if (event.type === 'rescan') {
        rescan = true;
        continue;
      }
      const paths = event.type === 'move' ? [event.path, event.from!] : [event.path];
      // Two events on one path keep their order: the later one goes in a later transaction.
      if (paths.some((path) => touched.has(path)) || group.length >= EVENT_BATCH) await flush();
      group.push(event);
      for (const path of paths) touched.add(path);
    }
    await flush();
    if (totals.written > 0 || totals.moved > 0) this.#o.onWritten(target.ref);
    return { ...totals, rescan: rescan ? this.sync(target, { mode: 'full' }) : null };
  }

  async #applyGroup(target: CrawlTarget, context: HostContext, group: readonly ChangeEvent[]): Promise<{ written: number; moved: number; deleted: number; errors: number }> {
    const items: WriteItem[] = [];
    const deletes: string[] = [];
    let errors = 0;
    const drop = (event: ChangeEvent): void => {
      deletes.push(event.path);
      if (event.type === 'move') deletes.push(event.from!);
    };
    for (const event of group) {
      if (event.type === 'delete') {
        deletes.push(event.path);
        continue;
      }
      let entry: Entry | null;
      try {
        const found = event.entry !== undefined ? event.entry : await target.connector.stat(event.path);
        // The event names the path; an entry (or stat) spelling it otherwise does not move it.
        entry = found === null ? null : { ...found, path: event.path };
      } catch {
        errors += 1;
        continue;
      }
      if (entry === null) {
        drop(event);
        continue;
      }
      if (entryProblem(entry) !== undefined) {
        errors += 1;
        continue;
      }
      if (context.excluded(entry.path)) {
        drop(event);
        continue;
      }
      const decision = context.scope.decide(entry);
      if (decision === 'skip') {
        drop(event);
        continue;
      }
      items.push({ entry, decision, ...(event.type === 'move' ? { movedFrom: event.from! } : {}) });
    }
    const prepared = await context.preparer.prepare(context.hostId, items, null);
    const outcome = await this.#store.commit({ hostId: context.hostId, marker: null, puts: prepared.puts, deletes, now: this.#o.now() });
    return { written: prepared.puts.length, moved: outcome.moved, deleted: outcome.deleted, errors: errors + prepared.errors };
  }

  /**
   * Parses a webhook delivery with the connector and applies its events. Rejects with
   * `unsupported` when the connector has no webhook, with the connector's typed error when it
   * refuses the request, and as `applyEvents` does.
   */
  async applyWebhook(target: CrawlTarget, request: Request): Promise<EventOutcome> {
    const { connector } = target;
    if (typeof connector.webhook !== 'function') throw new UnsupportedOperationError(target.description.kind, 'webhook');
    let events: ChangeEvent[];
    try {
      events = await connector.webhook(request);
    } catch (error) {
      throw asConnectorError(error);
    }
    if (!Array.isArray(events)) throw new ConnectorFailedError('webhook() did not return an array of change events.', { details: { reason: 'webhook_malformed' } });
    return this.applyEvents(target, events);
  }

  /**
   * Subscribes to the connector's watch and applies its events as they arrive, in order, in
   * batches. When more than `watchQueueLimit` events wait, they are dropped and a full sync
   * (whose diff finds everything they said) is started instead. Rejects with `unsupported` when
   * the connector cannot watch.
   */
  async watch(target: CrawlTarget): Promise<Watcher> {
    const { connector } = target;
    if (typeof connector.watch !== 'function' || !target.description.capabilities.includes('watch')) {
      throw new UnsupportedOperationError(target.description.kind, 'watch');
    }
    return startWatch({
      subscribe: (emit) => connector.watch!(emit),
      apply: (events) => this.applyEvents(target, events),
      overflow: () => this.sync(target, { mode: 'full' }),
      limit: this.#o.watchQueueLimit,
      batch: EVENT_BATCH,
    });
  }
}

function refKey(ref: HostRef): string {
  return `${ref.network}/${ref.host}`;
}

function busy(runId: number): ConnectorError {
  return new BindingConflictError(`Another process (on ${hostname()} or elsewhere) is crawling this host now; wait for it to finish or stop it.`, {
    details: { reason: 'run_in_progress', runId },
  });
}

function isEvent(value: unknown): value is ChangeEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Partial<ChangeEvent>;
  if (typeof event.type !== 'string' || !EVENT_TYPES.has(event.type)) return false;
  if (event.type === 'rescan') return true;
  if (typeof event.path !== 'string' || event.path === '') return false;
  if (event.type === 'move' && (typeof event.from !== 'string' || event.from === '')) return false;
  return event.entry === undefined || (typeof event.entry === 'object' && event.entry !== null);
}

/** The sync settings' exclude globs as one test. Throws `invalid_config` naming a bad glob. */
export function excludeMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map((glob, index) => {
    const compiled = compileGlob(glob, 'path');
    if ('problem' in compiled) {
      throw new InvalidConfigError(`sync.exclude[${index}] ${JSON.stringify(glob)} is not a valid glob: ${compiled.problem}.`, { details: { reason: 'exclude_invalid', index } });
    }
    return compiled.regexp;
  });
  if (patterns.length === 0) return () => false;
  return (path) => patterns.some((pattern) => pattern.test(path));
}
