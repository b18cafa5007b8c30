/**
 * One crawl run, from its checkpoint to its end.
 *
 * Listing goes page by page. Entries are decided by the scope, prepared (stored state looked up,
 * moves followed, changed content read) and committed in batches; each commit carries, in the
 * same transaction, the cursor after the last page it completes, the run's counters and the scope
 * tally. A run killed at any point therefore resumes from a cursor whose pages are all stored, and
 * what it lists again is upserted idempotently. A page larger than a batch is committed in parts
 * without moving the cursor; its page-level counts (skipped, malformed, pages) go only with the
 * part that moves it, so nothing is counted twice.
 *
 * An incremental run of a host with a names-only listing first diffs it against the catalog
 * (diff.ts): deletions, new names and moves, which its `since` listing cannot show. A run resumed
 * before its first listing checkpoint diffs again (nothing it applied differs any more). When the
 * names carry etags (the imap kind's), the diff also stores what changed under an unchanged name,
 * so it has seen every change and the `since` listing is skipped.
 *
 * When listing ends, the phase becomes `sweep` in that same commit. A full run then removes what
 * it did not see (mark and sweep on `seen_run`); an incremental run only finishes.
 */
import {
  ConnectorFailedError,
  UnavailableError,
  isConnectorError,
  type ConnectorError,
} from '@neuralis/package-system/contracts';
import type { Entry, HostListPage } from '@inseam/connector';
import { entryProblem, progressOf } from '../catalog/index.js';
import type { CompiledScope } from '../scope/index.js';
import type { CatalogStore, CrawlPhase, CrawlRunRecord, EntryPut, RunEnd, ScopeTallySnapshot } from '../store/index.js';
import type { ResolvedCrawlerOptions } from './options.js';
import type { CrawlHandle } from './handle.js';
import type { Ordering } from './ordering.js';
import type { EntryPreparer, Prepared, WriteItem } from './prepare.js';
import { diffNames, type DiffEnd } from './diff.js';
import { ResumableTally } from './tally.js';
import { hostMemo, hostNames, type CrawlTarget } from './target.js';

type Comparable = string | number;
/** A list() page after its shape was checked; entries are checked one by one later. */
type ListedPage = { readonly entries: readonly unknown[]; readonly cursor?: string };

/** A failure of the connector (not of the store): the run ends `failed` and can be resumed. */
export class ConnectorCallError extends Error {
  readonly failure: ConnectorError;

  constructor(failure: ConnectorError) {
    super(failure.message);
    this.failure = failure;
  }
}

const TRANSIENT = new Set(['rate_limited', 'unavailable', 'timeout']);
/** Completed pages are checkpointed at least this often, even when they stored little (all skipped, say). */
const CHECKPOINT_EVERY_MS = 2000;

/** What a batch holds until it is committed. */
class Pending {
  puts: EntryPut[] = [];
  textLength = 0;
  indexed = 0;
  contentBytes = 0;
  errors = 0;
  changed = 0;
  /** Set once a page is complete: the cursor after it (null: the listing ended). */
  cursor: string | null | undefined = undefined;
  pages = 0;
  skipped = 0;
  tally: ScopeTallySnapshot | undefined = undefined;
  watermark: Comparable | undefined = undefined;

  add(prepared: Prepared): void {
    for (const put of prepared.puts) this.puts.push(put);
    this.textLength += prepared.textLength;
    this.indexed += prepared.indexed;
    this.contentBytes += prepared.contentBytes;
    this.errors += prepared.errors;
    this.changed += prepared.changed;
  }
}

export interface RunSessionParts {
  readonly store: CatalogStore;
  readonly options: ResolvedCrawlerOptions;
  readonly owner: string;
  readonly target: CrawlTarget;
  readonly hostId: number;
  readonly run: CrawlRunRecord;
  readonly handle: CrawlHandle;
  readonly scope: CompiledScope;
  readonly ordering: Ordering;
  readonly preparer: EntryPreparer;
  readonly excluded: (path: string) => boolean;
  /** The host's watermark before this run (an incremental run only raises it). */
  readonly previousWatermark: string | null;
}

export class RunSession {
  readonly #p: RunSessionParts;
  readonly #store: CatalogStore;
  readonly #tally: ResumableTally;
  readonly #windowFrom: Comparable | undefined;
  #run: CrawlRunRecord;
  #watermark: Comparable | undefined;
  #mark: number;
  #added = 0;
  #changed = 0;

  constructor(parts: RunSessionParts) {
    this.#p = parts;
    this.#store = parts.store;
    this.#run = parts.run;
    this.#tally = new ResumableTally(parts.scope, parts.run.scopeTally);
    this.#watermark = parts.run.watermark === null ? undefined : parts.ordering.parse(parts.run.watermark);
    const { window } = parts.scope;
    // With newest-first listing honoured, the first entry below the window's lower bound ends it.
    this.#windowFrom = parts.target.honoursOrder === true && window.outside === 'skip' && window.from !== undefined ? parts.ordering.parse(String(window.from)) : undefined;
    this.#mark = parts.options.now();
  }

  /** What this stretch of the run added (new entries) and changed (stored entries whose size or validator changed), as committed. */
  get changes(): { readonly added: number; readonly changed: number } {
    return { added: this.#added, changed: this.#changed };
  }

  async execute(): Promise<CrawlRunRecord> {
    const heartbeat = setInterval(() => {
      this.#store.heartbeat(this.#run.id, this.#p.owner, this.#p.options.now()).catch(() => undefined);
    }, Math.max(1000, Math.floor(this.#p.options.leaseMs / 3)));
    heartbeat.unref();
    try {
      this.#p.handle.report(progressOf(this.#run));
      // The diff goes first: a name it adds or moves is then listed unchanged, where the other
      // order would add a renamed entry listed by `since` before the diff could see it moved.
      if (this.#run.mode === 'incremental' && this.#run.phase === 'list' && this.#run.cursor === null) {
        const diffed = await this.#diff();
        if (diffed === 'paused') return await this.#end({ state: 'paused' });
        // Names with etags showed every change: a `since` listing would only list again what they did.
        if (diffed === 'complete') await this.#commit(Object.assign(new Pending(), { cursor: null }), 'sweep');
      }
      if (this.#run.phase === 'list' && !(await this.#list())) return await this.#end({ state: 'paused' });
      if (this.#run.mode === 'full' && !(await this.#sweep())) return await this.#end({ state: 'paused' });
      return await this.#end({ state: 'completed' });
    } catch (error) {
      if (!(error instanceof ConnectorCallError)) throw error;
      return await this.#end({ state: 'failed', error: { code: error.failure.code, message: error.failure.message } });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Lists to the end (true) or until a pause is asked for (false). */
  async #list(): Promise<boolean> {
    const { options, target, hostId, preparer } = this.#p;
    const order = target.honoursOrder === true || this.#p.scope.window.count !== undefined ? ('newest' as const) : undefined;
    const since = this.#run.since ?? undefined;
    let cursor = this.#run.cursor ?? undefined;
    const pending = new Pending();
    if (this.#tally.exhausted) {
      pending.cursor = null;
      await this.#commit(pending, 'sweep');
      return true;
    }
    const pageAt = (at: string | undefined): Promise<ListedPage> =>
      this.#fetch({ ...(at === undefined ? {} : { cursor: at }), ...(since === undefined ? {} : { since }), ...(order === undefined ? {} : { order }) });
    // The next page is asked for as soon as this one arrives, so the connector (a sandbox process,
    // a remote API) works on it while this page is stored. Not where the scope may end the
    // listing early: there the page after the last one needed would be a wasted (maybe metered)
    // request. A page read ahead and then dropped by a pause was never checkpointed, so nothing
    // is skipped.
    const readAhead = !this.#tally.canExhaust && this.#windowFrom === undefined;
    let ahead: Promise<ListedPage> | undefined;
    for (;;) {
      if (this.#p.handle.pauseRequested) {
        await this.#commit(pending);
        return false;
      }
      const page = await (ahead ?? pageAt(cursor));
      ahead = undefined;
      if (page.cursor !== undefined && page.cursor === cursor) {
        throw new ConnectorCallError(new ConnectorFailedError('list() returned the cursor it was given, so the listing would never end.', { details: { reason: 'cursor_repeated' } }));
      }
      if (readAhead && page.cursor !== undefined) {
        ahead = pageAt(page.cursor);
        ahead.catch(() => undefined);
      }
      let skipped = 0;
      let malformed = 0;
      let stop = false;
      let watermark: Comparable | undefined;
      for (let start = 0; start < page.entries.length && !stop; start += options.batchSize) {
        const items: WriteItem[] = [];
        for (const value of page.entries.slice(start, start + options.batchSize)) {
          if (entryProblem(value) !== undefined) {
            malformed += 1;
            continue;
          }
          const entry = value as Entry;
          watermark = this.#p.ordering.max(watermark, this.#p.ordering.comparable(entry));
          if (this.#p.excluded(entry.path)) {
            skipped += 1;
            continue;
          }
          const decision = this.#tally.decide(entry);
          if (decision === 'skip') {
            skipped += 1;
            if (this.#tally.exhausted || this.#pastWindow(entry)) {
              stop = true;
              break;
            }
            continue;
          }
          items.push({ entry, decision });
          if (this.#tally.exhausted) {
            stop = true;
            break;
          }
        }
        for (const part of this.#byExpectedBytes(items)) {
          pending.add(await preparer.prepare(hostId, part, this.#run.id));
          if (this.#full(pending)) await this.#commit(pending);
        }
      }
      const ended = stop || page.cursor === undefined;
      pending.cursor = ended ? null : page.cursor;
      pending.pages += 1;
      pending.skipped += skipped;
      pending.errors += malformed;
      pending.tally = this.#tally.snapshot();
      pending.watermark = this.#p.ordering.max(pending.watermark, watermark);
      if (ended) {
        await this.#commit(pending, 'sweep');
        return true;
      }
      if (this.#full(pending) || this.#p.options.now() - this.#mark >= CHECKPOINT_EVERY_MS) await this.#commit(pending);
      cursor = page.cursor;
    }
  }

  /** One page, retrying transient failures with backoff; anything else fails the run. */
  async #fetch(options: { cursor?: string; since?: string; order?: 'newest' }): Promise<ListedPage> {
    const { retry } = this.#p.options;
    for (let attempt = 0; ; attempt++) {
      try {
        return checkPage(await this.#p.target.connector.list(options));
      } catch (error) {
        const failure = asConnectorError(error);
        if (attempt >= retry.attempts || !TRANSIENT.has(failure.code) || this.#p.handle.pauseRequested) throw new ConnectorCallError(failure);
        const hinted = typeof failure.details['retryAfterMs'] === 'number' ? failure.details['retryAfterMs'] : 0;
        await delay(Math.min(retry.maxMs, Math.max(hinted, retry.baseMs * 2 ** attempt)));
      }
    }
  }

  #pastWindow(entry: Entry): boolean {
    if (this.#windowFrom === undefined) return false;
    const value = this.#p.ordering.comparable(entry);
    return value !== undefined && this.#p.ordering.compare(value, this.#windowFrom) < 0;
  }

  /** Splits items so the content one part may read stays within a batch's bytes. */
  *#byExpectedBytes(items: readonly WriteItem[]): Generator<WriteItem[]> {
    const { batchBytes, maxContentBytes } = this.#p.options;
    let part: WriteItem[] = [];
    let bytes = 0;
    for (const item of items) {
      const expected = item.decision === 'include' ? Math.min(item.entry.size ?? maxContentBytes, maxContentBytes) : 0;
      if (part.length > 0 && bytes + expected > batchBytes) {
        yield part;
        part = [];
        bytes = 0;
      }
      part.push(item);
      bytes += expected;
    }
    if (part.length > 0) yield part;
  }

  #full(pending: Pending): boolean {
    // Text is UTF-16 in memory: two bytes a character.
    return pending.puts.length >= this.#p.options.batchSize || pending.textLength * 2 >= this.#p.options.batchBytes;
  }

  async #commit(pending: Pending, phase?: CrawlPhase): Promise<void> {
    const now = this.#p.options.now();
    if (pending.watermark !== undefined) this.#watermark = this.#p.ordering.max(this.#watermark, pending.watermark);
    const outcome = await this.#store.commit({
      hostId: this.#p.hostId,
      marker: this.#run.id,
      puts: pending.puts,
      now,
      checkpoint: {
        runId: this.#run.id,
        owner: this.#p.owner,
        ...(pending.cursor === undefined ? {} : { cursor: pending.cursor }),
        ...(phase === undefined ? {} : { phase }),
        ...(pending.watermark === undefined || this.#watermark === undefined ? {} : { watermark: this.#p.ordering.format(this.#watermark) }),
        counters: { indexed: pending.indexed, contentBytes: pending.contentBytes, skipped: pending.skipped, errors: pending.errors, pages: pending.pages },
        ...(pending.tally === undefined ? {} : { scopeTally: pending.tally }),
        elapsedMs: now - this.#mark,
        now,
      },
    });
    this.#mark = now;
    this.#added += outcome.inserted;
    this.#changed += pending.changed;
    Object.assign(pending, new Pending());
    await this.#refresh();
  }

  /** Removes what a full run did not see, a batch at a time (true when done). */
  async #sweep(): Promise<boolean> {
    for (;;) {
      if (this.#p.handle.pauseRequested) return false;
      const removed = await this.#store.sweep({ hostId: this.#p.hostId, runId: this.#run.id, owner: this.#p.owner, limit: this.#p.options.sweepBatch, now: this.#p.options.now() });
      if (removed === 0) return true;
      await this.#refresh();
    }
  }

  /** The names diff of an incremental run ('done' when the host has no names listing). */
  async #diff(): Promise<DiffEnd> {
    const { target, options } = this.#p;
    const names = hostNames(target.connector);
    if (names === undefined) return 'done';
    return diffNames({
      store: this.#store,
      hostId: this.#p.hostId,
      runId: this.#run.id,
      owner: this.#p.owner,
      connector: target.connector,
      names,
      ...(options.memos === undefined ? {} : { memo: hostMemo(options.memos, this.#p.hostId) }),
      description: target.description,
      scope: this.#p.scope,
      excluded: this.#p.excluded,
      preparer: this.#p.preparer,
      batchSize: options.batchSize,
      statConcurrency: options.readConcurrency,
      now: options.now,
      paused: () => this.#p.handle.pauseRequested,
      committed: (outcome) => {
        // The diff's new names are the run's additions too (the sync history counts them).
        this.#added += outcome.inserted;
        return this.#refresh();
      },
      hostFailed: (error) => new ConnectorCallError(asConnectorError(error)),
    });
  }

  async #end(end: Pick<RunEnd, 'state' | 'error'>): Promise<CrawlRunRecord> {
    const now = this.#p.options.now();
    let watermark: string | null | undefined;
    if (end.state === 'completed') watermark = this.#settledWatermark();
    const finished = await this.#store.finishRun(this.#run.id, { ...end, owner: this.#p.owner, elapsedMs: now - this.#mark, ...(watermark === undefined ? {} : { watermark }), now });
    this.#run = finished;
    this.#p.handle.report(progressOf(finished));
    return finished;
  }

  /** A full run sets the host's watermark; an incremental one only raises it. */
  #settledWatermark(): string | null | undefined {
    const { ordering } = this.#p;
    const settled = this.#watermark === undefined ? undefined : ordering.settle(this.#watermark, this.#run.startedAt);
    if (this.#run.mode === 'full') return settled ?? null;
    if (settled === undefined) return undefined;
    const previous = this.#p.previousWatermark === null ? undefined : ordering.parse(this.#p.previousWatermark);
    const raised = ordering.max(previous, ordering.parse(settled));
    return raised === undefined ? settled : ordering.format(raised);
  }

  async #refresh(): Promise<void> {
    const run = await this.#store.getRun(this.#run.id);
    if (run === null) throw new UnavailableError('The crawl run disappeared from the store (was its host deleted?).', { details: { reason: 'run_missing' } });
    this.#run = run;
    this.#p.handle.report(progressOf(run));
  }
}

function checkPage(page: unknown): ListedPage {
  if (typeof page !== 'object' || page === null || !Array.isArray((page as HostListPage).entries)) {
    throw new ConnectorFailedError('list() did not return { entries: [...] }.', { details: { reason: 'list_malformed' } });
  }
  const { entries, cursor } = page as { entries: unknown[]; cursor?: unknown };
  if (cursor !== undefined && cursor !== null && (typeof cursor !== 'string' || cursor === '')) {
    throw new ConnectorFailedError('list() returned a cursor that is not a non-empty string.', { details: { reason: 'list_malformed' } });
  }
  return typeof cursor === 'string' ? { entries, cursor } : { entries };
}

/** Typed errors keep their code and message; anything else is not shown (it may hold a secret). */
export function asConnectorError(error: unknown): ConnectorError {
  if (isConnectorError(error)) return error;
  return new ConnectorFailedError('The connector failed with an error that was not a typed inseam error.', { details: { reason: 'untyped_error' } });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
