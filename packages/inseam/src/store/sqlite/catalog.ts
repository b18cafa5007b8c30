/**
 * The catalog in SQLite: entries, the FTS5 content index (rowid = entry id, so a move keeps its
 * content), crawl runs with their checkpoints, and each host's sync state. Every statement is
 * prepared once; a batch is one transaction.
 */
import { BindingConflictError, InvalidArgumentError } from '@neuralis/package-system/contracts';
import type {
  BatchOutcome,
  CatalogBatch,
  CatalogSize,
  CatalogStore,
  ContentState,
  ContentUpdate,
  CrawlMode,
  CrawlRunRecord,
  CrawlRunState,
  EntryRecord,
  EntryState,
  HostRef,
  ListEntriesOptions,
  NewRun,
  RunCheckpoint,
  RunEnd,
  SearchHit,
  SearchHitEntry,
  SearchQuery,
  SweepRequest,
  SyncState,
} from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { scopesSql } from '../search-scope.js';
import { registerSearchFunctions, sqliteDialect } from './search-dialect.js';
import { ftsQuery, readHighlights, HIGHLIGHT_CLOSE, HIGHLIGHT_OPEN } from './fts-query.js';
import { type StateRow, type EntryRowDb, type RunRowDb, toState, toEntry, toRun } from '../rows.js';

type Named = Record<string, unknown>;

const STATE_COLUMNS = 'id, path, etag, native_hash, native_id, size, content_state, content_key, seen_run';
const RUN_SELECT = `SELECT r.*, n.slug AS network, h.slug AS host FROM crawl_runs r JOIN hosts h ON h.id = r.host_id JOIN networks n ON n.id = h.network_id`;
const UNFINISHED = `('running', 'paused', 'failed')`;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

// Whether a stored field differs from the incoming row; an update that changes nothing keeps
// `updated_at`, so it says when the entry last changed rather than when it was last listed.
const META_UNCHANGED = `size IS @size AND mtime IS @mtime AND etag IS @etag AND mime IS @mime AND native_hash IS @nativeHash
  AND native_id IS @nativeId AND decision = @decision AND dimensions = @dimensions AND extra IS @extra AND envelope IS @envelope`;
const META_SET = `size = @size, mtime = @mtime, etag = @etag, mime = @mime, native_hash = @nativeHash, native_id = @nativeId,
  decision = @decision, dimensions = @dimensions, extra = @extra, envelope = @envelope, seen_run = @seenRun`;

/** The path as words for the index: percent-escapes decoded, so `a%20report.md` finds "report". */
export function searchablePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The smallest string above every string that starts with `prefix` (null: there is none). */
export function prefixEnd(prefix: string): string | null {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}

/** `limit`, or `fallback` when absent, at most `max`. Throws `invalid_argument` unless it is a whole number of 1 or more. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError(`limit must be a whole number from 1 to ${max}; it is ${String(limit)}.`);
  return Math.min(limit, max);
}

export class SqliteCatalogStore implements CatalogStore {
  readonly #db: SqliteDatabase;
  readonly #s: ReturnType<typeof prepareStatements>;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#s = prepareStatements(db);
    this.#prepare = cachedPrepare(db);
    registerSearchFunctions(db);
  }

  resolveHost(ref: HostRef): Promise<number | null> {
    return attempt('read the host', () => this.#s.hostId.get(ref.network, ref.host)?.id ?? null);
  }

  lookup(hostId: number, paths: readonly string[]): Promise<Map<string, EntryState>> {
    return attempt('read the catalog', () => {
      const found = new Map<string, EntryState>();
      for (const path of paths) {
        const row = this.#s.byPath.get(hostId, path);
        if (row !== undefined) found.set(path, toState(row));
      }
      return found;
    });
  }

  lookupNativeIds(hostId: number, nativeIds: readonly string[]): Promise<Map<string, EntryState>> {
    return attempt('read the catalog', () => {
      const found = new Map<string, EntryState>();
      for (const nativeId of nativeIds) {
        const row = this.#s.byNativeId.get(hostId, nativeId);
        if (row !== undefined) found.set(nativeId, toState(row));
      }
      return found;
    });
  }

  commit(batch: CatalogBatch): Promise<BatchOutcome> {
    return attempt('write the catalog', () => this.#commit(batch));
  }

  #commit(batch: CatalogBatch): BatchOutcome {
    const s = this.#s;
    return this.#db.transaction(() => {
      const { hostId, now } = batch;
      if (batch.checkpoint !== undefined) this.#checkOwner(batch.checkpoint.runId, batch.checkpoint.owner);
      const marker = batch.marker ?? s.activeFullRun.get(hostId)?.active_full_run ?? null;
      let inserted = 0;
      let updated = 0;
      let moved = 0;
      let deleted = 0;
      let newlySeen = 0;
      let newlySeenBytes = 0;
      const index = new IndexWrites(s);
      for (const path of batch.deletes ?? []) deleted += s.deleteByPath.run(hostId, path).changes;
      for (const put of batch.puts) {
        const { row, content } = put;
        let state = s.byPath.get(hostId, row.path);
        if (put.movedFrom !== undefined && put.movedFrom !== row.path) {
          const source = s.byPath.get(hostId, put.movedFrom);
          if (source !== undefined) {
            if (state !== undefined) {
              // Its content goes by trigger, which must come after what this batch queued for it.
              index.flush();
              s.deleteById.run(state.id);
            }
            s.movePath.run(row.path, now, source.id);
            if (source.content_state === 'indexed' && content === undefined) index.path(source.id, row.path);
            state = { ...source, path: row.path };
            moved += 1;
          }
        }
        const seenRun = marker ?? state?.seen_run ?? 0;
        let id: number;
        if (state === undefined) {
          // Positional parameters: binding seventeen named ones from an object was 40% of an
          // insert's cost, and a first crawl is one insert an entry (bench/crawl-metadata.mjs).
          const stored = content === undefined ? NO_CONTENT : contentParams(content);
          id = s.insert.get(
            hostId, row.path, row.size, row.mtime, row.etag, row.mime, row.nativeHash, row.nativeId, row.decision, row.dimensions, row.extra, row.envelope, seenRun, now,
            stored.contentState, stored.contentKey, stored.contentBytes,
          )!.id;
          inserted += 1;
        } else {
          const params = { ...row, hostId, seenRun, now };
          id = state.id;
          if (content === undefined) s.update.run({ ...params, id });
          else {
            s.updateWithContent.run({ ...params, ...contentParams(content), id });
            if (state.content_state === 'indexed') index.remove(id);
          }
          updated += 1;
        }
        if (content?.state === 'indexed') index.insert(id, row.path, content.text);
        if (marker !== null && state?.seen_run !== marker) {
          newlySeen += 1;
          newlySeenBytes += row.size ?? 0;
        }
      }
      index.flush();
      if (batch.checkpoint !== undefined) {
        const stamped = marker === batch.checkpoint.runId;
        this.#checkpoint(batch.checkpoint, stamped ? newlySeen : 0, stamped ? newlySeenBytes : 0, moved, deleted);
      }
      return { inserted, updated, moved, deleted, newlySeen };
    })();
  }

  #checkpoint(checkpoint: RunCheckpoint, entries: number, bytes: number, moved: number, deleted: number): void {
    const c = checkpoint.counters ?? {};
    this.#s.checkpoint.run({
      id: checkpoint.runId,
      setCursor: checkpoint.cursor === undefined ? 0 : 1,
      cursor: checkpoint.cursor ?? null,
      phase: checkpoint.phase ?? null,
      setWatermark: checkpoint.watermark === undefined ? 0 : 1,
      watermark: checkpoint.watermark ?? null,
      setTally: checkpoint.scopeTally === undefined ? 0 : 1,
      tallyEntries: checkpoint.scopeTally?.entries ?? null,
      tallyBytes: checkpoint.scopeTally?.bytes ?? null,
      tallyCounted: checkpoint.scopeTally?.counted ?? null,
      entries,
      bytes,
      indexed: c.indexed ?? 0,
      contentBytes: c.contentBytes ?? 0,
      skipped: c.skipped ?? 0,
      moved,
      deleted,
      errors: c.errors ?? 0,
      pages: c.pages ?? 0,
      elapsed: Math.max(0, Math.round(checkpoint.elapsedMs ?? 0)),
      now: checkpoint.now,
    });
  }

  #checkOwner(runId: number, owner: string): void {
    const run = this.#s.runOwner.get(runId);
    if (run === undefined || run.state !== 'running' || run.owner !== owner) {
      throw new BindingConflictError('This crawl run is no longer this process\'s to write (it was taken over, paused or ended); nothing was written.', {
        details: { reason: 'run_not_owned', runId },
      });
    }
  }

  sweep({ hostId, runId, owner, limit, now }: SweepRequest): Promise<number> {
    return attempt('sweep the catalog', () =>
      this.#db.transaction(() => {
        this.#checkOwner(runId, owner);
        const removed = this.#s.sweep.run(hostId, runId, limit).changes;
        if (removed > 0) this.#s.addDeleted.run(removed, now, runId);
        return removed;
      })(),
    );
  }

  createRun(run: NewRun): Promise<CrawlRunRecord> {
    return attempt('start a crawl run', () =>
      this.#db.transaction(() => {
        let id: number;
        try {
          id = this.#s.createRun.get(run.hostId, run.mode, run.since, run.owner, run.now, run.totalEstimate, run.now, run.now)!.id;
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new BindingConflictError('This host has an unfinished crawl run; resume or abandon it before starting another.', { details: { reason: 'run_unfinished' } });
          }
          throw error;
        }
        this.#s.syncStarted.run({ hostId: run.hostId, id, full: run.mode === 'full' ? 1 : 0 });
        return toRun(this.#s.run.get(id)!);
      }).immediate(),
    );
  }

  unfinishedRun(hostId: number): Promise<CrawlRunRecord | null> {
    return attempt('read the crawl runs', () => {
      const row = this.#s.unfinished.get(hostId);
      return row === undefined ? null : toRun(row);
    });
  }

  claimRun(runId: number, expectedOwner: string | null, owner: string, now: number): Promise<boolean> {
    return attempt('claim the crawl run', () => this.#s.claim.run(owner, now, now, runId, expectedOwner).changes === 1);
  }

  heartbeat(runId: number, owner: string, now: number): Promise<boolean> {
    return attempt('record the crawl heartbeat', () => this.#s.heartbeat.run(now, runId, owner).changes === 1);
  }

  finishRun(runId: number, end: RunEnd): Promise<CrawlRunRecord> {
    return attempt('finish the crawl run', () =>
      this.#db.transaction(() => {
        this.#checkOwner(runId, end.owner);
        const ended = end.state === 'completed' || end.state === 'abandoned';
        this.#s.finish.run({
          id: runId,
          state: end.state,
          done: end.state === 'completed' ? 1 : 0,
          finishedAt: ended ? end.now : null,
          code: end.error?.code ?? null,
          message: end.error?.message ?? null,
          elapsed: Math.max(0, Math.round(end.elapsedMs ?? 0)),
          now: end.now,
        });
        const row = this.#s.run.get(runId)!;
        if (end.state === 'completed') {
          this.#s.syncCompleted.run({
            hostId: row.host_id,
            id: runId,
            full: row.mode === 'full' ? 1 : 0,
            setWatermark: end.watermark === undefined ? 0 : 1,
            watermark: end.watermark ?? null,
          });
        }
        if (ended) this.#s.syncEnded.run(row.host_id, runId);
        return toRun(row);
      }).immediate(),
    );
  }

  getRun(runId: number): Promise<CrawlRunRecord | null> {
    return attempt('read the crawl run', () => {
      const row = this.#s.run.get(runId);
      return row === undefined ? null : toRun(row);
    });
  }

  listRuns(hostId: number, limit = 20): Promise<CrawlRunRecord[]> {
    return attempt('read the crawl runs', () => this.#s.runs.all(hostId, clampLimit(limit, 20, 1000)).map(toRun));
  }

  syncState(hostId: number): Promise<SyncState> {
    return attempt('read the sync state', () => {
      const row = this.#s.sync.get(hostId);
      return {
        hostId,
        watermark: row?.watermark ?? null,
        lastFullRun: row?.last_full_run ?? null,
        lastRun: row?.last_run ?? null,
        activeFullRun: row?.active_full_run ?? null,
      };
    });
  }

  getEntry(hostId: number, path: string): Promise<EntryRecord | null> {
    return attempt('read the catalog', () => {
      const row = this.#s.entry.get(hostId, path);
      return row === undefined ? null : toEntry(row);
    });
  }

  listEntries(hostId: number, options: ListEntriesOptions = {}): Promise<EntryRecord[]> {
    return attempt('read the catalog', () => {
      const limit = clampLimit(options.limit, 100, MAX_LIST_LIMIT);
      const prefix = options.prefix ?? '';
      const from = options.after !== undefined && options.after >= prefix ? options.after : null;
      const rows = this.#s.list.all({
        hostId,
        lower: from ?? prefix,
        inclusive: from === null ? 1 : 0,
        upper: prefix === '' ? null : prefixEnd(prefix),
        limit,
      });
      return rows.map(toEntry);
    });
  }

  countEntries(hostId: number): Promise<number> {
    return attempt('read the catalog', () => this.#s.count.get(hostId)!.n);
  }

  catalogSize(hostId: number): Promise<CatalogSize> {
    return attempt('read the catalog', () => {
      const { entries, bytes } = this.#s.size.get(hostId)!;
      return { entries, bytes };
    });
  }

  contentText(hostId: number, path: string): Promise<string | null> {
    return attempt('read the content index', () => this.#s.contentText.get(hostId, path)?.body ?? null);
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    return attempt('search the content index', () => {
      const match = ftsQuery(query.text);
      const limit = clampLimit(query.limit, 20, MAX_SEARCH_LIMIT);
      const offset = query.offset ?? 0;
      if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentError(`offset must be a whole number of 0 or more; it is ${String(offset)}.`);
      if (query.hostIds !== undefined && query.hostIds.length === 0) return [];
      if (query.scopes !== undefined && query.scopes.length === 0) return [];
      const filters: Record<string, unknown> = {
        hosts: query.hostIds === undefined ? null : JSON.stringify(query.hostIds),
        network: query.network ?? null,
      };
      const scoped = query.scopes === undefined ? '' : `AND ${scopesSql(query.scopes, sqliteDialect(filters))}`;
      const search: PlannedSearch = { match, filters, scoped, limit, offset };
      return this.#rankedFirst(search) ?? this.#joinedFirst(search);
    });
  }

  /**
   * Ranking scores every match either way; what ranking before the join saves is looking up every
   * match's entry, host and network. The top `depth` are checked against the filters, deeper while
   * the filters leave too few for the page; null when even that is not enough: the filters are
   * selective, and the join should go first.
   */
  #rankedFirst(search: PlannedSearch): SearchHit[] | null {
    const { match, filters, scoped, offset } = search;
    const wanted = offset + search.limit;
    const admitted = this.#prepare<Named, AdmittedRow>(ADMITTED_SQL.replace('/* scopes */', () => scoped));
    const admit = <Row extends RankedRow>(top: readonly Row[]): (Row & AdmittedRow)[] => {
      const byId = new Map(admitted.all({ ...filters, ids: JSON.stringify(top.map((row) => row.id)) }).map((row) => [row.id, row]));
      return top.flatMap((row) => {
        const entry = byId.get(row.id);
        return entry === undefined ? [] : [{ ...row, ...entry, id: row.id }];
      });
    };
    // A first page usually keeps every one of its top matches, and snippet() inside the ranking
    // costs what the page's hits cost (SQLite computes it for the rows it returns; measured: 3 ms
    // for 20 hits of a prefix, against 10 ms seeking each hit's row again). Past the first page
    // it would be computed for every row skipped too.
    const known = new Map<number, string | null>();
    if (offset === 0) {
      const top = this.#prepare<Named, RankedRow & { snippet: string | null }>(RANKED_SNIPPETS_SQL).all({ match, depth: wanted, open: HIGHLIGHT_OPEN, close: HIGHLIGHT_CLOSE });
      const page = admit(top);
      if (page.length === top.length || top.length < wanted) return page.map(toHit);
      for (const row of top) known.set(row.id, row.snippet);
    }
    const ranked = this.#prepare<Named, RankedRow>(RANKED_SQL);
    const snippet = this.#prepare<Named, { snippet: string | null }>(SNIPPET_SQL);
    for (let depth = Math.max(MIN_RANKED_DEPTH, 2 * wanted); depth <= MAX_RANKED_DEPTH; depth *= RANKED_DEPTH_GROWTH) {
      const top = ranked.all({ match, depth });
      const page = admit(top);
      if (page.length >= wanted || top.length < depth) {
        return page.slice(offset, wanted).map((row) => {
          const seen = known.get(row.id);
          return toHit({ ...row, snippet: seen !== undefined ? seen : (snippet.get({ match, id: BigInt(row.id), open: HIGHLIGHT_OPEN, close: HIGHLIGHT_CLOSE })?.snippet ?? null) });
        });
      }
    }
    return null;
  }

  /** The filters go in the WHERE clause, so ORDER BY … LIMIT cut the page from what they let through. */
  #joinedFirst({ match, filters, scoped, limit, offset }: PlannedSearch): SearchHit[] {
    return this.#prepare<Named, RankedRow & AdmittedRow & { snippet: string | null }>(JOINED_SQL.replace('/* scopes */', () => scoped))
      .all({ ...filters, match, limit, offset, open: HIGHLIGHT_OPEN, close: HIGHLIGHT_CLOSE })
      .map(toHit);
  }
}

/** A search's MATCH expression, filters (named parameters and the scopes' SQL) and page. */
interface PlannedSearch {
  readonly match: string;
  readonly filters: Readonly<Named>;
  readonly scoped: string;
  readonly limit: number;
  readonly offset: number;
}

function toHit({ id, score, network, host, path, snippet, size, mtime, etag, mime }: RankedRow & AdmittedRow & { snippet: string | null }): SearchHit {
  const { text, highlights } = readHighlights(snippet ?? '');
  return { entryId: id, host: { network, host }, path, score, snippet: text, highlights, entry: { size, mtime, etag, mime } };
}

interface RankedRow {
  id: number;
  score: number;
}

interface AdmittedRow extends SearchHitEntry {
  id: number;
  network: string;
  host: string;
  path: string;
}

const MIN_RANKED_DEPTH = 64;
const MAX_RANKED_DEPTH = 1024;
const RANKED_DEPTH_GROWTH = 16;

// The entry id (the content's rowid) breaks ties between equal scores, so pages never overlap or
// skip; the ranking carries no join, so SQLite keeps only the top `depth` in its sorter.
const RANKED_SQL = `SELECT rowid AS id, bm25(catalog_content, 2.0, 1.0) AS score
FROM catalog_content WHERE catalog_content MATCH @match
ORDER BY score, rowid LIMIT @depth`;

const RANKED_SNIPPETS_SQL = `SELECT rowid AS id, bm25(catalog_content, 2.0, 1.0) AS score,
       snippet(catalog_content, -1, @open, @close, '…', 16) AS snippet
FROM catalog_content WHERE catalog_content MATCH @match
ORDER BY score, rowid LIMIT @depth`;

// Which of the ranked ids the filters let through: the network, the hosts, and the scopes. CROSS
// JOIN keeps the ids outermost; left to itself the planner scans the host's entries instead.
const ADMITTED_SQL = `SELECT e.id, n.slug AS network, h.slug AS host, e.path, e.size, e.mtime, e.etag, e.mime
FROM json_each(@ids) AS ranked
CROSS JOIN catalog_entries e ON e.id = ranked.value
JOIN hosts h ON h.id = e.host_id
JOIN networks n ON n.id = h.network_id
WHERE (@hosts IS NULL OR e.host_id IN (SELECT value FROM json_each(@hosts)))
  AND (@network IS NULL OR n.slug = @network)
  /* scopes */`;

const JOINED_SQL = `SELECT e.id, n.slug AS network, h.slug AS host, e.path, e.size, e.mtime, e.etag, e.mime, bm25(catalog_content, 2.0, 1.0) AS score,
       snippet(catalog_content, -1, @open, @close, '…', 16) AS snippet
FROM catalog_content
JOIN catalog_entries e ON e.id = catalog_content.rowid
JOIN hosts h ON h.id = e.host_id
JOIN networks n ON n.id = h.network_id
WHERE catalog_content MATCH @match
  AND (@hosts IS NULL OR e.host_id IN (SELECT value FROM json_each(@hosts)))
  AND (@network IS NULL OR n.slug = @network)
  /* scopes */
ORDER BY score, e.id LIMIT @limit OFFSET @offset`;

// One hit's snippet: FTS5 seeks the match to that one row. The id is bound as a BigInt: with MATCH,
// FTS5 (SQLite 3.53.2) drops a `rowid =` constraint whose value is a REAL — which is how
// better-sqlite3 binds a JavaScript number — and answers every matching row.
const SNIPPET_SQL = `SELECT snippet(catalog_content, -1, @open, @close, '…', 16) AS snippet
FROM catalog_content WHERE catalog_content MATCH @match AND rowid = @id`;

/**
 * Content-index writes of one batch, applied after its entry writes: FTS5 indexes a run of
 * inserts several times faster when no other table is written between them (measured: 2–3× on
 * 2 KiB documents), so they are queued and applied in order at the end.
 */
class IndexWrites {
  readonly #s: ReturnType<typeof prepareStatements>;
  #queue: (readonly [op: 'insert' | 'remove' | 'path', id: number, path?: string, text?: string])[] = [];

  constructor(statements: ReturnType<typeof prepareStatements>) {
    this.#s = statements;
  }

  insert(id: number, path: string, text: string): void {
    this.#queue.push(['insert', id, path, text]);
  }

  remove(id: number): void {
    this.#queue.push(['remove', id]);
  }

  path(id: number, path: string): void {
    this.#queue.push(['path', id, path]);
  }

  flush(): void {
    for (const [op, id, path, text] of this.#queue) {
      if (op === 'insert') this.#s.ftsInsert.run(id, searchablePath(path!), text!);
      else if (op === 'remove') this.#s.ftsDelete.run(id);
      else this.#s.ftsPath.run(searchablePath(path!), id);
    }
    this.#queue = [];
  }
}

/** An insert's parameters in column order: the entry row, its host, run and time, then its content columns. */
type InsertParams = [
  hostId: number, path: string, size: number | null, mtime: string | null, etag: string | null, mime: string | null, nativeHash: string | null, nativeId: string | null,
  decision: string, dimensions: string, extra: string | null, envelope: string | null, seenRun: number, now: number,
  contentState: ContentState, contentKey: string | null, contentBytes: number,
];

/** The content columns of an entry inserted without content (the table's defaults). */
const NO_CONTENT = { contentState: 'none', contentKey: null, contentBytes: 0 } as const;

function contentParams(content: ContentUpdate): { contentState: ContentState; contentKey: string | null; contentBytes: number } {
  return { contentState: content.state, contentKey: content.key, contentBytes: content.state === 'indexed' ? content.bytes : 0 };
}

function prepareStatements(db: SqliteDatabase) {
  const insertColumns = `host_id, path, size, mtime, etag, mime, native_hash, native_id, decision, dimensions, extra, envelope, seen_run, updated_at`;
  return {
    hostId: db.prepare<[string, string], { id: number }>('SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?'),
    byPath: db.prepare<[number, string], StateRow>(`SELECT ${STATE_COLUMNS} FROM catalog_entries WHERE host_id = ? AND path = ?`),
    byNativeId: db.prepare<[number, string], StateRow>(`SELECT ${STATE_COLUMNS} FROM catalog_entries WHERE host_id = ? AND native_id = ? ORDER BY id LIMIT 1`),
    insert: db.prepare<InsertParams, { id: number }>(
      `INSERT INTO catalog_entries (${insertColumns}, content_state, content_key, content_bytes)
       VALUES (${Array.from({ length: 17 }, () => '?').join(', ')}) RETURNING id`,
    ),
    update: db.prepare(`UPDATE catalog_entries SET updated_at = CASE WHEN ${META_UNCHANGED} THEN updated_at ELSE @now END, ${META_SET} WHERE id = @id`),
    updateWithContent: db.prepare(
      `UPDATE catalog_entries SET
         updated_at = CASE WHEN ${META_UNCHANGED} AND content_state = @contentState AND content_key IS @contentKey AND content_bytes = @contentBytes
                      THEN updated_at ELSE @now END,
         ${META_SET}, content_state = @contentState, content_key = @contentKey, content_bytes = @contentBytes
       WHERE id = @id`,
    ),
    movePath: db.prepare('UPDATE catalog_entries SET path = ?, updated_at = ? WHERE id = ?'),
    deleteById: db.prepare('DELETE FROM catalog_entries WHERE id = ?'),
    deleteByPath: db.prepare('DELETE FROM catalog_entries WHERE host_id = ? AND path = ?'),
    ftsInsert: db.prepare('INSERT INTO catalog_content (rowid, path, body) VALUES (?, ?, ?)'),
    ftsDelete: db.prepare('DELETE FROM catalog_content WHERE rowid = ?'),
    ftsPath: db.prepare('UPDATE catalog_content SET path = ? WHERE rowid = ?'),
    runOwner: db.prepare<[number], { owner: string | null; state: CrawlRunState }>('SELECT owner, state FROM crawl_runs WHERE id = ?'),
    activeFullRun: db.prepare<[number], { active_full_run: number | null }>('SELECT active_full_run FROM catalog_sync WHERE host_id = ?'),
    checkpoint: db.prepare(
      `UPDATE crawl_runs SET
         cursor = CASE WHEN @setCursor = 1 THEN @cursor ELSE cursor END,
         phase = coalesce(@phase, phase),
         watermark = CASE WHEN @setWatermark = 1 THEN @watermark ELSE watermark END,
         tally_entries = CASE WHEN @setTally = 1 THEN @tallyEntries ELSE tally_entries END,
         tally_bytes = CASE WHEN @setTally = 1 THEN @tallyBytes ELSE tally_bytes END,
         tally_counted = CASE WHEN @setTally = 1 THEN @tallyCounted ELSE tally_counted END,
         entries = entries + @entries, bytes = bytes + @bytes, indexed = indexed + @indexed,
         content_bytes = content_bytes + @contentBytes, skipped = skipped + @skipped, moved = moved + @moved,
         deleted = deleted + @deleted, errors = errors + @errors, pages = pages + @pages,
         elapsed_ms = elapsed_ms + @elapsed, heartbeat_at = @now, updated_at = @now
       WHERE id = @id`,
    ),
    sweep: db.prepare('DELETE FROM catalog_entries WHERE id IN (SELECT id FROM catalog_entries WHERE host_id = ? AND seen_run < ? LIMIT ?)'),
    addDeleted: db.prepare('UPDATE crawl_runs SET deleted = deleted + ?, updated_at = ? WHERE id = ?'),
    createRun: db.prepare<[number, CrawlMode, string | null, string, number, number | null, number, number], { id: number }>(
      `INSERT INTO crawl_runs (host_id, mode, state, phase, since, owner, heartbeat_at, total_estimate, started_at, updated_at)
       VALUES (?, ?, 'running', 'list', ?, ?, ?, ?, ?, ?) RETURNING id`,
    ),
    syncStarted: db.prepare(
      `INSERT INTO catalog_sync (host_id, last_run, active_full_run) VALUES (@hostId, @id, CASE WHEN @full = 1 THEN @id END)
       ON CONFLICT (host_id) DO UPDATE SET last_run = @id, active_full_run = CASE WHEN @full = 1 THEN @id ELSE active_full_run END`,
    ),
    syncCompleted: db.prepare(
      `UPDATE catalog_sync SET
         watermark = CASE WHEN @setWatermark = 1 THEN @watermark ELSE watermark END,
         last_full_run = CASE WHEN @full = 1 THEN @id ELSE last_full_run END
       WHERE host_id = @hostId`,
    ),
    syncEnded: db.prepare('UPDATE catalog_sync SET active_full_run = NULL WHERE host_id = ? AND active_full_run = ?'),
    unfinished: db.prepare<[number], RunRowDb>(`${RUN_SELECT} WHERE r.host_id = ? AND r.state IN ${UNFINISHED}`),
    claim: db.prepare(
      `UPDATE crawl_runs SET owner = ?, state = 'running', heartbeat_at = ?, updated_at = ?, error_code = NULL, error_message = NULL
       WHERE id = ? AND owner IS ? AND state IN ${UNFINISHED}`,
    ),
    heartbeat: db.prepare(`UPDATE crawl_runs SET heartbeat_at = ? WHERE id = ? AND owner = ? AND state = 'running'`),
    finish: db.prepare(
      `UPDATE crawl_runs SET state = @state, phase = CASE WHEN @done = 1 THEN 'done' ELSE phase END, owner = NULL,
         finished_at = @finishedAt, error_code = @code, error_message = @message, elapsed_ms = elapsed_ms + @elapsed, updated_at = @now
       WHERE id = @id`,
    ),
    run: db.prepare<[number], RunRowDb>(`${RUN_SELECT} WHERE r.id = ?`),
    runs: db.prepare<[number, number], RunRowDb>(`${RUN_SELECT} WHERE r.host_id = ? ORDER BY r.id DESC LIMIT ?`),
    sync: db.prepare<
      [number],
      { watermark: string | null; last_full_run: number | null; last_run: number | null; active_full_run: number | null }
    >('SELECT * FROM catalog_sync WHERE host_id = ?'),
    entry: db.prepare<[number, string], EntryRowDb>('SELECT * FROM catalog_entries WHERE host_id = ? AND path = ?'),
    list: db.prepare<Named, EntryRowDb>(
      `SELECT * FROM catalog_entries
       WHERE host_id = @hostId AND (path > @lower OR (@inclusive = 1 AND path = @lower)) AND (@upper IS NULL OR path < @upper)
       ORDER BY path LIMIT @limit`,
    ),
    count: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM catalog_entries WHERE host_id = ?'),
    size: db.prepare<[number], { entries: number; bytes: number }>('SELECT count(*) AS entries, coalesce(sum(size), 0) AS bytes FROM catalog_entries WHERE host_id = ?'),
    contentText: db.prepare<[number, string], { body: string }>(
      `SELECT c.body FROM catalog_entries e JOIN catalog_content c ON c.rowid = e.id
       WHERE e.host_id = ? AND e.path = ? AND e.content_state = 'indexed'`,
    ),
  };
}
