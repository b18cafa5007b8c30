/**
 * The names diff an incremental run ends with, for hosts that offer a names-only listing
 * (`HostNames`, the folder kinds): the host's paths and the catalog's, both in ascending
 * code-unit order, merged in one pass, so memory holds a page of each and a batch of changes.
 *
 * - a path on the host only is a new name: stat'ed (the only stats the diff makes besides the
 *   check below) and stored by the scope's decision — unless the sync excludes or the scope's
 *   path rules alone leave it out, which costs no stat;
 * - a path in the catalog only is gone: stat'ed once more (an object written since the listing
 *   read its folder is not removed), then removed;
 * - a gone entry and a new one that are the same object become a move: the catalog row goes to
 *   the new path with its id and content (search follows), rather than a delete and an add.
 *   Same object: the same nativeId; else the same nativeHash or etag and size; else the same size
 *   and mtime when exactly one gone and one new entry of the batch have them (a folder's rename
 *   keeps both). Content is read again only when the validator changed. Unmatched changes wait
 *   for their other half up to 10 batches (`batchSize` changes each) before they are applied
 *   alone, so a move is recognised when its two names lie within that many changes of each other.
 *
 * - a path on both sides whose etag the host states (names() with `etags`) and the catalog holds
 *   under another etag changed (a mail's flags, say): stat'ed and stored again, or removed when
 *   the scope now leaves it out. A host that states etags for every path has then shown every
 *   change, and the run skips its `since` listing.
 *
 * A scope with counted limits (`maxEntries`, `maxBytes`, `window.last: N`) decides what is kept
 * by a tally over a whole listing, so there the diff only removes: new names (and the new side of
 * a move) and changed entries wait for the next full rescan.
 *
 * Each batch is one commit, with its counts on the run. The diff keeps no position: a run paused
 * or killed in it diffs again from the start when resumed, which repeats no change (what it
 * already applied no longer differs).
 */
import { ConnectorFailedError } from '@neuralis/package-system/contracts';
import type { Connector, Description, Entry, Scope, ScopePredicate } from '@inseam/connector';
import { entryProblem } from '../catalog/index.js';
import { compileScope, type CompiledScope } from '../scope/index.js';
import type { BatchOutcome, CatalogStore, EntryRecord } from '../store/index.js';
import type { EntryPreparer, WriteItem } from './prepare.js';
import type { HostNames, NamesMemo } from './target.js';

/** How a diff ended: paused (it resumes from the start), done, or done having seen every change (etags on every name). */
export type DiffEnd = 'paused' | 'done' | 'complete';

export interface DiffParts {
  readonly store: CatalogStore;
  readonly hostId: number;
  readonly runId: number;
  readonly owner: string;
  readonly connector: Connector;
  readonly names: HostNames;
  /** The host's memo, handed to names() (absent when the crawler keeps none). */
  readonly memo?: NamesMemo;
  readonly description: Description;
  readonly scope: CompiledScope;
  readonly excluded: (path: string) => boolean;
  readonly preparer: EntryPreparer;
  readonly batchSize: number;
  readonly statConcurrency: number;
  readonly now: () => number;
  /** Checked between batches: true stops the diff (it resumes from the start). */
  readonly paused: () => boolean;
  /** Called after each commit with what it did, so the run counts what the diff added. */
  readonly committed: (outcome: BatchOutcome) => Promise<void>;
  /** What a failed or malformed names() call is thrown as (it ends the run failed). */
  readonly hostFailed: (error: unknown) => Error;
}

const CATALOG_PAGE = 1000;

/** Runs the diff to the end or until a pause is asked for. */
export async function diffNames(parts: DiffParts): Promise<DiffEnd> {
  const pathSkipped = pathRuleSkipper(parts.scope.scope, parts.description);
  // Counted limits are a tally over a whole listing: an entry cannot be added outside one.
  const { limits, window } = parts.scope;
  const adds = limits.maxEntries === undefined && limits.maxBytes === undefined && window.count === undefined;
  const listing = { everyEtag: true };
  const host = hostPaths(parts.names, parts.memo, parts.hostFailed, listing);
  const catalog = catalogEntries(parts.store, parts.hostId);
  const held = new Held(parts);
  let fresh: string[] = [];
  let gone: EntryRecord[] = [];
  let changed: EntryRecord[] = [];
  let h = await host.next();
  let c = await catalog.next();
  while (!h.done || !c.done) {
    if (!c.done && (h.done || c.value.path < h.value.path)) {
      gone.push(c.value);
      c = await catalog.next();
    } else if (c.done || h.value.path < c.value.path) {
      if (adds && !parts.excluded(h.value.path) && !pathSkipped(h.value.path)) fresh.push(h.value.path);
      h = await host.next();
    } else {
      if (adds && h.value.etag !== undefined && h.value.etag !== c.value.etag) changed.push(c.value);
      h = await host.next();
      c = await catalog.next();
    }
    if (fresh.length + gone.length + changed.length >= parts.batchSize) {
      if (parts.paused()) return 'paused';
      await held.add(fresh, gone, changed);
      fresh = [];
      gone = [];
      changed = [];
    }
  }
  if (parts.paused()) return 'paused';
  await held.add(fresh, gone, changed);
  await held.flush();
  // Under counted limits changes wait for a rescan, so the `since` listing still runs.
  return listing.everyEtag && adds ? 'complete' : 'done';
}

/**
 * Checked changes waiting for their other half: a gone entry and a new one may be a move whose
 * names lie far apart in path order (a folder renamed), so both wait — up to HOLD_BATCHES
 * batches of them — before a gone entry is removed and a new one added on its own.
 */
class Held {
  readonly #p: DiffParts;
  #fresh: WriteItem[] = [];
  #gone: EntryRecord[] = [];
  #errors = 0;

  constructor(parts: DiffParts) {
    this.#p = parts;
  }

  async add(freshPaths: readonly string[], goneEntries: readonly EntryRecord[], changedEntries: readonly EntryRecord[] = []): Promise<void> {
    const p = this.#p;
    const stat = async (path: string): Promise<Entry | null | 'failed'> => {
      try {
        const entry = await p.connector.stat(path);
        return entry === null ? null : { ...entry, path };
      } catch {
        return 'failed';
      }
    };
    const [freshStats, goneStats, changedStats] = await Promise.all([
      mapPool(freshPaths, p.statConcurrency, stat),
      mapPool(
        goneEntries.map((entry) => entry.path),
        p.statConcurrency,
        stat,
      ),
      mapPool(
        changedEntries.map((entry) => entry.path),
        p.statConcurrency,
        stat,
      ),
    ]);
    // A changed entry is stored again at once (it is no half of a move), or removed when the
    // scope now leaves it out or it went away since the names were listed.
    const updates: WriteItem[] = [];
    const removals: string[] = [];
    changedEntries.forEach((entry, index) => {
      const found = changedStats[index];
      if (found === 'failed' || (found !== null && found !== undefined && entryProblem(found) !== undefined)) this.#errors += 1;
      else if (found === null || found === undefined) removals.push(entry.path);
      else {
        const decision = p.scope.decide(found);
        if (decision === 'skip') removals.push(entry.path);
        else updates.push({ entry: found, decision });
      }
    });
    if (updates.length > 0 || removals.length > 0) await this.#commit(updates, removals);
    for (const found of freshStats) {
      if (found === null) continue;
      if (found === 'failed' || entryProblem(found) !== undefined) {
        this.#errors += 1;
        continue;
      }
      const decision = p.scope.decide(found);
      if (decision !== 'skip') this.#fresh.push({ entry: found, decision });
    }
    // A gone entry the host answers for again (written since its folder was read) stays.
    goneEntries.forEach((entry, index) => {
      const found = goneStats[index];
      if (found === null) this.#gone.push(entry);
      else if (found === 'failed') this.#errors += 1;
    });
    const moved = matchMoves(this.#fresh, this.#gone);
    if (moved.size > 0) {
      const from = new Set(moved.values());
      const puts = this.#fresh.filter((item) => moved.has(item)).map((item) => ({ ...item, movedFrom: moved.get(item)! }));
      this.#fresh = this.#fresh.filter((item) => !moved.has(item));
      this.#gone = this.#gone.filter((entry) => !from.has(entry.path));
      await this.#commit(puts, []);
    }
    if (this.#fresh.length + this.#gone.length > HOLD_BATCHES * p.batchSize) await this.flush();
  }

  /** Adds what is new and removes what is gone, unmatched. */
  async flush(): Promise<void> {
    const fresh = this.#fresh;
    const gone = this.#gone.map((entry) => entry.path);
    this.#fresh = [];
    this.#gone = [];
    const size = this.#p.batchSize;
    for (let at = 0; at < Math.max(fresh.length, gone.length); at += size) await this.#commit(fresh.slice(at, at + size), gone.slice(at, at + size));
    if (this.#errors > 0) await this.#commit([], []);
  }

  async #commit(items: readonly WriteItem[], deletes: readonly string[]): Promise<void> {
    const p = this.#p;
    const prepared = await p.preparer.prepare(p.hostId, items, p.runId);
    const errors = this.#errors + prepared.errors;
    this.#errors = 0;
    const now = p.now();
    const outcome = await p.store.commit({
      hostId: p.hostId,
      marker: p.runId,
      puts: prepared.puts,
      deletes,
      now,
      checkpoint: { runId: p.runId, owner: p.owner, counters: { indexed: prepared.indexed, contentBytes: prepared.contentBytes, errors }, now },
    });
    await p.committed(outcome);
  }
}

const HOLD_BATCHES = 10;

/** The host's names with their etags (undefined where the page states none; `listing.everyEtag` is cleared then). */
async function* hostPaths(names: HostNames, memo: NamesMemo | undefined, failed: (error: unknown) => Error, listing: { everyEtag: boolean }): AsyncGenerator<{ readonly path: string; readonly etag: string | null | undefined }> {
  let cursor: string | undefined;
  let previous: string | undefined;
  for (;;) {
    let page;
    try {
      page = await names.names({ ...(cursor === undefined ? {} : { cursor }), ...(memo === undefined ? {} : { memo }) });
    } catch (error) {
      throw failed(error);
    }
    if (typeof page !== 'object' || page === null || !Array.isArray(page.paths) || (page.etags !== undefined && (!Array.isArray(page.etags) || page.etags.length !== page.paths.length))) {
      throw failed(new ConnectorFailedError('names() did not return { paths: [...] } (with etags, if any, one a path).', { details: { reason: 'names_malformed' } }));
    }
    const etags = page.etags;
    if (etags === undefined) listing.everyEtag = false;
    for (const [index, path] of page.paths.entries()) {
      // Out of order would make the merge call present paths gone: refuse rather than guess.
      if (typeof path !== 'string' || (previous !== undefined && path <= previous)) {
        throw failed(new ConnectorFailedError('names() returned paths out of ascending order.', { details: { reason: 'names_unordered' } }));
      }
      previous = path;
      const etag = etags?.[index];
      yield { path, etag: etags === undefined ? undefined : typeof etag === 'string' ? etag : null };
    }
    if (page.cursor === undefined || page.cursor === cursor) return;
    cursor = page.cursor;
  }
}

async function* catalogEntries(store: CatalogStore, hostId: number): AsyncGenerator<EntryRecord> {
  let after: string | undefined;
  for (;;) {
    const page = await store.listEntries(hostId, { limit: CATALOG_PAGE, ...(after === undefined ? {} : { after }) });
    for (const entry of page) yield entry;
    if (page.length < CATALOG_PAGE) return;
    after = page[page.length - 1]!.path;
  }
}

/** New items that are a gone entry moved, with the gone entry's path (see the header for "same object"). */
function matchMoves(items: readonly WriteItem[], gone: readonly EntryRecord[]): Map<WriteItem, string> {
  const moved = new Map<WriteItem, string>();
  if (items.length === 0 || gone.length === 0) return moved;
  const taken = new Set<string>();
  const exact = new Map<string, EntryRecord>();
  for (const entry of gone) {
    if (entry.nativeId !== null) exact.set(`i:${entry.nativeId}`, entry);
    if (entry.size !== null && entry.nativeHash !== null) exact.set(`h:${entry.size}:${entry.nativeHash}`, entry);
    if (entry.size !== null && entry.etag !== null) exact.set(`e:${entry.size}:${entry.etag}`, entry);
  }
  const take = (item: WriteItem, entry: EntryRecord | undefined): boolean => {
    if (entry === undefined || taken.has(entry.path)) return false;
    taken.add(entry.path);
    moved.set(item, entry.path);
    return true;
  };
  for (const item of items) {
    const { entry } = item;
    if (entry.nativeId !== undefined) {
      take(item, exact.get(`i:${entry.nativeId}`));
      continue;
    }
    if (entry.size !== undefined && entry.nativeHash !== undefined && take(item, exact.get(`h:${entry.size}:${entry.nativeHash}`))) continue;
    if (entry.size !== undefined && entry.etag !== undefined) take(item, exact.get(`e:${entry.size}:${entry.etag}`));
  }
  // Size and mtime: only a pair that is unique on both sides.
  const key = (size: number | null | undefined, mtime: string | null | undefined): string | undefined => (size == null || mtime == null ? undefined : `${size}:${mtime}`);
  const goneBy = groupBy(gone.filter((entry) => !taken.has(entry.path) && entry.nativeId === null), (entry) => key(entry.size, entry.mtime));
  const newBy = groupBy(items.filter((item) => !moved.has(item) && item.entry.nativeId === undefined), (item) => key(item.entry.size, item.entry.mtime));
  for (const [k, news] of newBy) {
    const olds = goneBy.get(k);
    if (news.length === 1 && olds !== undefined && olds.length === 1) take(news[0]!, olds[0]);
  }
  return moved;
}

function groupBy<T>(values: readonly T[], keyOf: (value: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [value]);
    else group.push(value);
  }
  return groups;
}

/**
 * True for a path the scope's rules leave out whatever the rest of its entry says: the first
 * rule that matches, among the leading rules that read only path dimensions, is an exclude.
 */
export function pathRuleSkipper(scope: Scope, description: Description): (path: string) => boolean {
  const pathDims = new Set(Object.entries(description.dimensions).filter(([, dimension]) => dimension.from === 'path').map(([name]) => name));
  const onlyPath = (predicate: ScopePredicate): boolean => {
    if ('all' in predicate) return predicate.all.every(onlyPath);
    if ('any' in predicate) return predicate.any.every(onlyPath);
    if ('not' in predicate) return onlyPath(predicate.not);
    return pathDims.has(predicate.dim);
  };
  const rules = [];
  for (const rule of scope.rules ?? []) {
    if (!onlyPath('include' in rule ? rule.include : rule.exclude)) break;
    rules.push(rule);
  }
  if (!rules.some((rule) => 'exclude' in rule)) return () => false;
  const compiled = compileScope({ rules }, description);
  return (path) => compiled.decide({ path }) === 'skip';
}

async function mapPool<T, R>(values: readonly T[], concurrency: number, work: (value: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(values.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < values.length) {
      const index = next++;
      results[index] = await work(values[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, values.length) }, worker));
  return results;
}
