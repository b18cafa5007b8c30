/**
 * The catalog on PostgreSQL: entries, their indexed text and search vectors (search-text.ts),
 * crawl runs with their checkpoints, and each host's sync state.
 *
 * A batch is one transaction of a handful of set-based statements, whatever its size: the
 * entries it touches are read in one query, the batch is applied to them in memory in the order
 * SQLite applies it (deletes, then each put: move, insert or update, content), and what changed
 * is written with one statement per kind of change (unnest arrays), then the run's checkpoint —
 * so the cursor commits with exactly the entries it covers.
 *
 * Search matches the same entries as on SQLite (search-text.ts) and ranks them by FTS5's bm25
 * (k1 = 1.2, b = 0.75, a path word counting twice a text word), from the same ingredients:
 * each term's occurrences in a match (ts_rank_cd of that term alone over the match's vector,
 * text positions weighing 0.5 and path positions 1, doubled), the match's word count against
 * the average of every indexed entry (catalog_search_stats, kept by triggers), and each term's
 * inverse document frequency `ln((N − n + 0.5) / (n + 0.5))`, at least 1e-6, where n is counted
 * through the GIN index over the whole index, as FTS5 counts it — and only up to N/2 + 1, past
 * which the weight is 1e-6 whatever n is. For a single term that weight multiplies every score
 * alike, so it is not counted (n = 0): the order is bm25's, the scores a constant factor apart.
 * Lower is better, as on SQLite. Where the two still differ: PostgreSQL keeps at most 256
 * positions of a word, and the vector's text and path positions run on, so a phrase may span
 * the text's last word and the path's first.
 *
 * Concurrency: several processes share the database. Every write to a host's catalog (a batch,
 * a sweep, starting or ending a run) first locks the host's row (FOR NO KEY UPDATE, which host
 * reads and the foreign keys' checks do not wait for), so one host's writes run one at a time
 * and a batch sees the entries as the previous one left them; a run's owner is checked on the
 * run's locked row in the same transaction, so a run taken over by another process between the
 * check and the write is impossible. Locks are always taken host first, then run.
 */
import { BindingConflictError, InvalidArgumentError } from '@neuralis/package-system/contracts';
import { MAX_LIST_LIMIT, MAX_SEARCH_LIMIT, clampLimit, prefixEnd, searchablePath } from '../sqlite/catalog.js';
import { searchTerms } from '../sqlite/fts-query.js';
import type {
  BatchOutcome,
  CatalogBatch,
  CatalogSize,
  CatalogStore,
  ContentState,
  CrawlRunRecord,
  CrawlRunState,
  EntryPut,
  EntryRecord,
  EntryRow,
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
import { attempt, isUniqueViolation, type Db } from './database.js';
import { scopesSql } from '../search-scope.js';
import { postgresDialect } from './search-dialect.js';
import { SEARCH_SCOPE_FIRST_PARAM, joinedFirstSql, rankedFirstSql } from './search-sql.js';
import { EXCERPT_CHARS, EXCERPT_LEAD, RANK_WEIGHTS, WHOLE_BODY_BYTES, anchorOf, hitSnippet, pathVector, searchVector, termWords, tsqueryLiteral } from './search-text.js';
import { type EntryRowDb, type RunRowDb, toState, toEntry, toRun } from '../rows.js';

const ENTRY_COLUMNS = `id, host_id, path, size, mtime, etag, mime, native_hash, native_id, decision, dimensions, extra, envelope,
  content_state, content_key, content_bytes, seen_run, updated_at`;
const RUN_SELECT = `SELECT r.*, n.slug AS network, h.slug AS host FROM crawl_runs r JOIN hosts h ON h.id = r.host_id JOIN networks n ON n.id = h.network_id`;
const UNFINISHED = `('running', 'paused', 'failed')`;
/** work_mem of a transaction that indexes text (see #writeContent). */
const GIN_MERGE_MEMORY = '32MB';
/** How many of the best matches a search ranks before joining them to their entries: at least this, or twice the page's end. */
const MIN_RANKED_DEPTH = 64;

type SearchRow = { id: number; network: string; host: string; path: string; score: number; excerpt: string; at_start: boolean; at_end: boolean } & SearchHitEntry;
/** Where a moved entry's path waits while several entries trade paths in one batch. */
const PARKED = '\u0001inseam-moving\u0001';

/** PostgreSQL text cannot hold U+0000; indexed text keeps every other character. */
function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

function notOwned(runId: number): BindingConflictError {
  return new BindingConflictError('This crawl run is no longer this process\'s to write (it was taken over, paused or ended); nothing was written.', {
    details: { reason: 'run_not_owned', runId },
  });
}

/**
 * One entry as the batch leaves it. `text`: undefined leaves the stored text alone, a string
 * replaces it, null removes it.
 */
interface Working {
  readonly id: number | null;
  readonly original: EntryRowDb | null;
  path: string;
  row: Omit<EntryRow, 'path'>;
  contentState: ContentState;
  contentKey: string | null;
  contentBytes: number;
  seenRun: number;
  updatedAt: number;
  text: string | null | undefined;
  moved: boolean;
}

function fromStored(row: EntryRowDb): Working {
  return {
    id: row.id,
    original: row,
    path: row.path,
    row: {
      size: row.size,
      mtime: row.mtime,
      etag: row.etag,
      mime: row.mime,
      nativeHash: row.native_hash,
      nativeId: row.native_id,
      decision: row.decision,
      dimensions: row.dimensions,
      extra: row.extra,
      envelope: row.envelope,
    },
    contentState: row.content_state,
    contentKey: row.content_key,
    contentBytes: row.content_bytes,
    seenRun: row.seen_run,
    updatedAt: row.updated_at,
    text: undefined,
    moved: false,
  };
}

const META_FIELDS = ['size', 'mtime', 'etag', 'mime', 'nativeHash', 'nativeId', 'decision', 'dimensions', 'extra', 'envelope'] as const;

function sameMeta(a: Omit<EntryRow, 'path'>, b: EntryRow): boolean {
  return META_FIELDS.every((field) => a[field] === b[field]);
}

/** How a stored entry differs from what the batch leaves: not at all, only in the run that last saw it, or otherwise. */
function change(entry: Working): 'none' | 'seen' | 'row' {
  const o = entry.original!;
  const row =
    entry.moved ||
    entry.updatedAt !== o.updated_at ||
    entry.contentState !== o.content_state ||
    entry.contentKey !== o.content_key ||
    entry.contentBytes !== o.content_bytes ||
    entry.row.size !== o.size ||
    entry.row.mtime !== o.mtime ||
    entry.row.etag !== o.etag ||
    entry.row.mime !== o.mime ||
    entry.row.nativeHash !== o.native_hash ||
    entry.row.nativeId !== o.native_id ||
    entry.row.decision !== o.decision ||
    entry.row.dimensions !== o.dimensions ||
    entry.row.extra !== o.extra ||
    entry.row.envelope !== o.envelope;
  if (row) return 'row';
  return entry.seenRun !== o.seen_run ? 'seen' : 'none';
}

/** A batch applied in memory, in SQLite's order, to the entries it touches. */
class BatchPlan {
  readonly live = new Map<string, Working>();
  /** Stored entries the batch removes (their text goes with them). */
  readonly removed: number[] = [];
  inserted = 0;
  updated = 0;
  moved = 0;
  deleted = 0;
  newlySeen = 0;
  newlySeenBytes = 0;

  constructor(stored: readonly EntryRowDb[]) {
    for (const row of stored) this.live.set(row.path, fromStored(row));
  }

  delete(path: string): void {
    const entry = this.live.get(path);
    if (entry === undefined) return;
    this.#drop(entry);
    this.deleted += 1;
  }

  put(put: EntryPut, marker: number | null, now: number): void {
    const { row, content } = put;
    let entry = this.live.get(row.path);
    if (put.movedFrom !== undefined && put.movedFrom !== row.path) {
      const source = this.live.get(put.movedFrom);
      if (source !== undefined) {
        if (entry !== undefined) this.#drop(entry);
        this.live.delete(put.movedFrom);
        source.path = row.path;
        source.moved = true;
        source.updatedAt = now;
        this.live.set(row.path, source);
        entry = source;
        this.moved += 1;
      }
    }
    const seenBefore = entry?.seenRun;
    const seenRun = marker ?? entry?.seenRun ?? 0;
    const { path, ...fields } = row;
    if (entry === undefined) {
      this.live.set(path, {
        id: null,
        original: null,
        path,
        row: fields,
        contentState: content?.state ?? 'none',
        contentKey: content?.key ?? null,
        contentBytes: content?.state === 'indexed' ? content.bytes : 0,
        seenRun,
        updatedAt: now,
        text: content?.state === 'indexed' ? content.text : undefined,
        moved: false,
      });
      this.inserted += 1;
    } else {
      const bytes = content?.state === 'indexed' ? content.bytes : 0;
      const same = sameMeta(entry.row, row) && (content === undefined || (entry.contentState === content.state && entry.contentKey === content.key && entry.contentBytes === bytes));
      if (!same) entry.updatedAt = now;
      entry.row = fields;
      entry.seenRun = seenRun;
      if (content !== undefined) {
        entry.contentState = content.state;
        entry.contentKey = content.key;
        entry.contentBytes = bytes;
        entry.text = content.state === 'indexed' ? content.text : null;
      }
      this.updated += 1;
    }
    if (marker !== null && seenBefore !== marker) {
      this.newlySeen += 1;
      this.newlySeenBytes += row.size ?? 0;
    }
  }

  #drop(entry: Working): void {
    this.live.delete(entry.path);
    if (entry.id !== null) this.removed.push(entry.id);
  }
}

function entryColumns(entries: readonly Working[]): unknown[][] {
  return [
    entries.map((e) => e.path),
    entries.map((e) => e.row.size),
    entries.map((e) => e.row.mtime),
    entries.map((e) => e.row.etag),
    entries.map((e) => e.row.mime),
    entries.map((e) => e.row.nativeHash),
    entries.map((e) => e.row.nativeId),
    entries.map((e) => e.row.decision),
    entries.map((e) => e.row.dimensions),
    entries.map((e) => e.row.extra),
    entries.map((e) => e.row.envelope),
    entries.map((e) => e.contentState),
    entries.map((e) => e.contentKey),
    entries.map((e) => e.contentBytes),
    entries.map((e) => e.seenRun),
    entries.map((e) => e.updatedAt),
  ];
}

const ENTRY_ARRAYS = `$2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
  $12::text[], $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[]`;
const ENTRY_FIELDS = `path, size, mtime, etag, mime, native_hash, native_id, decision, dimensions, extra, envelope, content_state, content_key,
  content_bytes, seen_run, updated_at`;

export class PostgresCatalogStore implements CatalogStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  resolveHost(ref: HostRef): Promise<number | null> {
    return attempt('read the host', async () => {
      const row = await this.#db.one<{ id: number }>('SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = $1 AND h.slug = $2', [ref.network, ref.host]);
      return row?.id ?? null;
    });
  }

  lookup(hostId: number, paths: readonly string[]): Promise<Map<string, EntryState>> {
    return attempt('read the catalog', async () => {
      if (paths.length === 0) return new Map();
      const rows = await this.#db.query<EntryRowDb>(`SELECT ${ENTRY_COLUMNS} FROM catalog_entries WHERE host_id = $1 AND path = ANY($2::text[])`, [hostId, [...paths]]);
      return new Map(rows.map((row) => [row.path, toState(row)]));
    });
  }

  lookupNativeIds(hostId: number, nativeIds: readonly string[]): Promise<Map<string, EntryState>> {
    return attempt('read the catalog', async () => {
      if (nativeIds.length === 0) return new Map();
      const rows = await this.#db.query<EntryRowDb>(
        `SELECT DISTINCT ON (native_id) ${ENTRY_COLUMNS} FROM catalog_entries WHERE host_id = $1 AND native_id = ANY($2::text[]) ORDER BY native_id, id`,
        [hostId, [...nativeIds]],
      );
      return new Map(rows.map((row) => [row.native_id!, toState(row)]));
    });
  }

  commit(batch: CatalogBatch): Promise<BatchOutcome> {
    return attempt('write the catalog', () => this.#db.transaction((db) => this.#commit(db, batch)));
  }

  async #commit(db: Db, batch: CatalogBatch): Promise<BatchOutcome> {
    const { hostId, now } = batch;
    const host = await lockHost(db, hostId);
    if (batch.checkpoint !== undefined) await checkOwner(db, batch.checkpoint.runId, batch.checkpoint.owner);
    const marker = batch.marker ?? host?.active_full_run ?? null;
    const touched = new Set<string>(batch.deletes ?? []);
    for (const put of batch.puts) {
      touched.add(put.row.path);
      if (put.movedFrom !== undefined) touched.add(put.movedFrom);
    }
    const stored = touched.size === 0 ? [] : await db.query<EntryRowDb>(`SELECT ${ENTRY_COLUMNS} FROM catalog_entries WHERE host_id = $1 AND path = ANY($2::text[])`, [hostId, [...touched]]);
    const plan = new BatchPlan(stored);
    for (const path of batch.deletes ?? []) plan.delete(path);
    for (const put of batch.puts) plan.put(put, marker, now);
    await this.#write(db, hostId, plan);
    if (batch.checkpoint !== undefined) {
      const stamped = marker === batch.checkpoint.runId;
      await writeCheckpoint(db, batch.checkpoint, stamped ? plan.newlySeen : 0, stamped ? plan.newlySeenBytes : 0, plan.moved, plan.deleted);
    }
    return { inserted: plan.inserted, updated: plan.updated, moved: plan.moved, deleted: plan.deleted, newlySeen: plan.newlySeen };
  }

  async #write(db: Db, hostId: number, plan: BatchPlan): Promise<void> {
    const live = [...plan.live.values()];
    const stored = live.filter((entry) => entry.id !== null);
    const updates = stored.filter((entry) => change(entry) === 'row');
    // A rescan's unchanged entries only take the run's mark: one narrow statement, not every field of each.
    const marked = stored.filter((entry) => change(entry) === 'seen');
    const inserts = live.filter((entry) => entry.id === null);
    if (plan.removed.length > 0) await db.run('DELETE FROM catalog_entries WHERE id = ANY($1::bigint[])', [plan.removed]);
    const moving = updates.filter((entry) => entry.moved);
    if (moving.length > 1) {
      // Entries trading paths would collide with one another in a single UPDATE; each first steps aside to a path of its own.
      await db.run(`UPDATE catalog_entries SET path = $1 || id::text WHERE id = ANY($2::bigint[])`, [PARKED, moving.map((entry) => entry.id)]);
    }
    if (updates.length > 0) {
      await db.run(
        `UPDATE catalog_entries e SET (${ENTRY_FIELDS}) = (u.${ENTRY_FIELDS.split(',').map((field) => field.trim()).join(', u.')})
         FROM unnest($1::bigint[], ${ENTRY_ARRAYS}) AS u(id, ${ENTRY_FIELDS})
         WHERE e.id = u.id`,
        [updates.map((entry) => entry.id), ...entryColumns(updates)],
      );
    }
    if (marked.length > 0) {
      await db.run('UPDATE catalog_entries e SET seen_run = u.seen_run FROM unnest($1::bigint[], $2::bigint[]) AS u(id, seen_run) WHERE e.id = u.id', [
        marked.map((entry) => entry.id),
        marked.map((entry) => entry.seenRun),
      ]);
    }
    const ids = new Map<string, number>();
    if (inserts.length > 0) {
      const rows = await db.query<{ id: number; path: string }>(
        `INSERT INTO catalog_entries (host_id, ${ENTRY_FIELDS})
         SELECT $1, * FROM unnest(${ENTRY_ARRAYS})
         RETURNING id, path`,
        [hostId, ...entryColumns(inserts)],
      );
      for (const row of rows) ids.set(row.path, row.id);
    }
    await this.#writeContent(db, live, ids);
  }

  async #writeContent(db: Db, live: readonly Working[], ids: ReadonlyMap<string, number>): Promise<void> {
    const idOf = (entry: Working): number => entry.id ?? ids.get(entry.path)!;
    const removed = live.filter((entry) => entry.text === null && entry.original?.content_state === 'indexed').map(idOf);
    if (removed.length > 0) {
      await db.run('WITH text AS (DELETE FROM catalog_text WHERE entry_id = ANY($1::bigint[])) DELETE FROM catalog_search WHERE entry_id = ANY($1::bigint[])', [removed]);
    }
    const written = live.filter((entry): entry is Working & { text: string } => typeof entry.text === 'string');
    if (written.length > 0) {
      const vectors = written.map((entry) => searchVector(entry.text, searchablePath(entry.path)));
      // Room for the GIN pending list's merge, when this insert triggers one, to fold the whole
      // list at once (schema.ts): with the default 4 MB it merges in parts and writes more WAL.
      // Text written again unchanged (an event repeating a put) leaves its rows as they are.
      await db.query(`SELECT set_config('work_mem', $1, true)`, [GIN_MERGE_MEMORY]);
      await db.run(
        `WITH text AS (
           INSERT INTO catalog_text (entry_id, body) SELECT * FROM unnest($1::bigint[], $2::text[])
           ON CONFLICT (entry_id) DO UPDATE SET body = excluded.body WHERE catalog_text.body IS DISTINCT FROM excluded.body
         )
         INSERT INTO catalog_search (entry_id, words, search) SELECT id, words, search::tsvector FROM unnest($1::bigint[], $3::int[], $4::text[]) AS u(id, words, search)
         ON CONFLICT (entry_id) DO UPDATE SET words = excluded.words, search = excluded.search
           WHERE (catalog_search.words, catalog_search.search) IS DISTINCT FROM (excluded.words, excluded.search)`,
        [written.map(idOf), written.map((entry) => storableText(entry.text)), vectors.map((vector) => vector.words), vectors.map((vector) => vector.literal)],
      );
    }
    // A moved entry whose text stays keeps its text's words, with its new path's words after them.
    const renamed = live.filter((entry) => entry.moved && entry.text === undefined && entry.contentState === 'indexed');
    if (renamed.length > 0) {
      const before = renamed.map((entry) => pathVector(searchablePath(entry.original!.path)));
      const after = renamed.map((entry) => pathVector(searchablePath(entry.path)));
      await db.run(
        `UPDATE catalog_search s SET search = ts_filter(s.search, '{d}') || u.path::tsvector, words = s.words - u.before + u.after
         FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[]) AS u(id, path, before, after) WHERE s.entry_id = u.id`,
        [renamed.map(idOf), after.map((vector) => vector.literal), before.map((vector) => vector.words), after.map((vector) => vector.words)],
      );
    }
  }

  sweep({ hostId, runId, owner, limit, now }: SweepRequest): Promise<number> {
    return attempt('sweep the catalog', () =>
      this.#db.transaction(async (db) => {
        await lockHost(db, hostId);
        await checkOwner(db, runId, owner);
        const removed = await db.run('DELETE FROM catalog_entries WHERE id IN (SELECT id FROM catalog_entries WHERE host_id = $1 AND seen_run < $2 LIMIT $3)', [hostId, runId, limit]);
        if (removed > 0) await db.run('UPDATE crawl_runs SET deleted = deleted + $1, updated_at = $2 WHERE id = $3', [removed, now, runId]);
        return removed;
      }),
    );
  }

  createRun(run: NewRun): Promise<CrawlRunRecord> {
    return attempt('start a crawl run', () =>
      this.#db.transaction(async (db) => {
        await lockHost(db, run.hostId);
        let id: number;
        try {
          id = (await db.one<{ id: number }>(
            `INSERT INTO crawl_runs (host_id, mode, state, phase, since, owner, heartbeat_at, total_estimate, started_at, updated_at)
             VALUES ($1, $2, 'running', 'list', $3, $4, $5, $6, $5, $5) RETURNING id`,
            [run.hostId, run.mode, run.since, run.owner, run.now, run.totalEstimate],
          ))!.id;
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new BindingConflictError('This host has an unfinished crawl run; resume or abandon it before starting another.', { details: { reason: 'run_unfinished' } });
          }
          throw error;
        }
        await db.run(
          `INSERT INTO catalog_sync (host_id, last_run, active_full_run) VALUES ($1, $2::bigint, CASE WHEN $3::boolean THEN $2::bigint END)
           ON CONFLICT (host_id) DO UPDATE SET last_run = $2::bigint, active_full_run = CASE WHEN $3::boolean THEN $2::bigint ELSE catalog_sync.active_full_run END`,
          [run.hostId, id, run.mode === 'full'],
        );
        return toRun((await db.one<RunRowDb>(`${RUN_SELECT} WHERE r.id = $1`, [id]))!);
      }),
    );
  }

  unfinishedRun(hostId: number): Promise<CrawlRunRecord | null> {
    return attempt('read the crawl runs', async () => {
      const row = await this.#db.one<RunRowDb>(`${RUN_SELECT} WHERE r.host_id = $1 AND r.state IN ${UNFINISHED}`, [hostId]);
      return row === undefined ? null : toRun(row);
    });
  }

  claimRun(runId: number, expectedOwner: string | null, owner: string, now: number): Promise<boolean> {
    return attempt('claim the crawl run', async () =>
      (await this.#db.run(
        `UPDATE crawl_runs SET owner = $1, state = 'running', heartbeat_at = $2, updated_at = $2, error_code = NULL, error_message = NULL
         WHERE id = $3 AND owner IS NOT DISTINCT FROM $4::text AND state IN ${UNFINISHED}`,
        [owner, now, runId, expectedOwner],
      )) === 1,
    );
  }

  heartbeat(runId: number, owner: string, now: number): Promise<boolean> {
    return attempt('record the crawl heartbeat', async () =>
      (await this.#db.run(`UPDATE crawl_runs SET heartbeat_at = $1 WHERE id = $2 AND owner = $3 AND state = 'running'`, [now, runId, owner])) === 1,
    );
  }

  finishRun(runId: number, end: RunEnd): Promise<CrawlRunRecord> {
    return attempt('finish the crawl run', () =>
      this.#db.transaction(async (db) => {
        const run = await db.one<{ host_id: number }>('SELECT host_id FROM crawl_runs WHERE id = $1', [runId]);
        if (run === undefined) throw notOwned(runId);
        await lockHost(db, run.host_id);
        await checkOwner(db, runId, end.owner);
        const ended = end.state === 'completed' || end.state === 'abandoned';
        const row = (await db.one<RunRowDb>(
          `WITH r AS (
             UPDATE crawl_runs SET state = $2, phase = CASE WHEN $3 THEN 'done' ELSE phase END, owner = NULL, finished_at = $4,
               error_code = $5, error_message = $6, elapsed_ms = elapsed_ms + $7, updated_at = $8
             WHERE id = $1 RETURNING *
           )
           SELECT r.*, n.slug AS network, h.slug AS host FROM r JOIN hosts h ON h.id = r.host_id JOIN networks n ON n.id = h.network_id`,
          [runId, end.state, end.state === 'completed', ended ? end.now : null, end.error?.code ?? null, end.error?.message ?? null, Math.max(0, Math.round(end.elapsedMs ?? 0)), end.now],
        ))!;
        if (end.state === 'completed') {
          await db.run(
            `UPDATE catalog_sync SET
               watermark = CASE WHEN $3 THEN $4 ELSE watermark END,
               last_full_run = CASE WHEN $5 THEN $2 ELSE last_full_run END
             WHERE host_id = $1`,
            [row.host_id, runId, end.watermark !== undefined, end.watermark ?? null, row.mode === 'full'],
          );
        }
        if (ended) await db.run('UPDATE catalog_sync SET active_full_run = NULL WHERE host_id = $1 AND active_full_run = $2', [row.host_id, runId]);
        return toRun(row);
      }),
    );
  }

  getRun(runId: number): Promise<CrawlRunRecord | null> {
    return attempt('read the crawl run', async () => {
      const row = await this.#db.one<RunRowDb>(`${RUN_SELECT} WHERE r.id = $1`, [runId]);
      return row === undefined ? null : toRun(row);
    });
  }

  listRuns(hostId: number, limit = 20): Promise<CrawlRunRecord[]> {
    return attempt('read the crawl runs', async () =>
      (await this.#db.query<RunRowDb>(`${RUN_SELECT} WHERE r.host_id = $1 ORDER BY r.id DESC LIMIT $2`, [hostId, clampLimit(limit, 20, 1000)])).map(toRun),
    );
  }

  syncState(hostId: number): Promise<SyncState> {
    return attempt('read the sync state', async () => {
      const row = await this.#db.one<{ watermark: string | null; last_full_run: number | null; last_run: number | null; active_full_run: number | null }>(
        'SELECT watermark, last_full_run, last_run, active_full_run FROM catalog_sync WHERE host_id = $1',
        [hostId],
      );
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
    return attempt('read the catalog', async () => {
      const row = await this.#db.one<EntryRowDb>(`SELECT ${ENTRY_COLUMNS} FROM catalog_entries WHERE host_id = $1 AND path = $2`, [hostId, path]);
      return row === undefined ? null : toEntry(row);
    });
  }

  listEntries(hostId: number, options: ListEntriesOptions = {}): Promise<EntryRecord[]> {
    return attempt('read the catalog', async () => {
      const limit = clampLimit(options.limit, 100, MAX_LIST_LIMIT);
      const prefix = options.prefix ?? '';
      const from = options.after !== undefined && options.after >= prefix ? options.after : null;
      const rows = await this.#db.query<EntryRowDb>(
        `SELECT ${ENTRY_COLUMNS} FROM catalog_entries
         WHERE host_id = $1 AND path ${from === null ? '>=' : '>'} $2 AND ($3::text IS NULL OR path < $3)
         ORDER BY path LIMIT $4`,
        [hostId, from ?? prefix, prefix === '' ? null : prefixEnd(prefix), limit],
      );
      return rows.map(toEntry);
    });
  }

  countEntries(hostId: number): Promise<number> {
    return attempt('read the catalog', async () => (await this.#db.one<{ n: number }>('SELECT count(*) AS n FROM catalog_entries WHERE host_id = $1', [hostId]))!.n);
  }

  catalogSize(hostId: number): Promise<CatalogSize> {
    return attempt('read the catalog', async () => {
      const row = (await this.#db.one<{ entries: number | string; bytes: number | string }>('SELECT count(*) AS entries, coalesce(sum(size), 0) AS bytes FROM catalog_entries WHERE host_id = $1', [hostId]))!;
      return { entries: Number(row.entries), bytes: Number(row.bytes) };
    });
  }

  contentText(hostId: number, path: string): Promise<string | null> {
    return attempt('read the content index', async () => {
      const row = await this.#db.one<{ body: string }>(
        `SELECT t.body FROM catalog_entries e JOIN catalog_text t ON t.entry_id = e.id WHERE e.host_id = $1 AND e.path = $2 AND e.content_state = 'indexed'`,
        [hostId, path],
      );
      return row?.body ?? null;
    });
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    return attempt('search the content index', async () => {
      const terms = termWords(searchTerms(query.text));
      const limit = clampLimit(query.limit, 20, MAX_SEARCH_LIMIT);
      const offset = query.offset ?? 0;
      if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentError(`offset must be a whole number of 0 or more; it is ${String(offset)}.`);
      if (query.hostIds !== undefined && query.hostIds.length === 0) return [];
      if (query.scopes !== undefined && query.scopes.length === 0) return [];
      const match = tsqueryLiteral(terms);
      if (match === null) return [];
      // The scopes filter the matches before the page is cut (search-scope.ts).
      const scopeParams: unknown[] = [];
      const scoped = query.scopes === undefined ? '' : `AND ${scopesSql(query.scopes, postgresDialect(scopeParams, SEARCH_SCOPE_FIRST_PARAM))}`;
      const params = [
        match,
        query.hostIds === undefined ? null : [...query.hostIds],
        query.network ?? null,
        limit,
        offset,
        WHOLE_BODY_BYTES,
        anchorOf(terms),
        EXCERPT_CHARS,
        RANK_WEIGHTS,
        terms.map((term) => tsqueryLiteral([term])),
        // One term's weight multiplies every score alike, so it is not counted (see the module comment).
        terms.length === 1,
        EXCERPT_LEAD,
        ...scopeParams,
      ];
      const depth = Math.max(MIN_RANKED_DEPTH, 2 * (offset + limit));
      const first = await this.#db.query<SearchRow & { ranked: number }>(rankedFirstSql(scoped, params.length + 1), [...params, depth]);
      const page = first.filter((row) => row.id !== null);
      const complete = page.length === limit || (first[0]?.ranked ?? 0) < depth;
      const rows = complete ? page : await this.#db.query<SearchRow>(joinedFirstSql(scoped), params);
      return rows.map((row) => {
        const { text, highlights } = hitSnippet(searchablePath(row.path), { text: row.excerpt, atStart: row.at_start, atEnd: row.at_end }, terms);
        return {
          entryId: row.id,
          host: { network: row.network, host: row.host },
          path: row.path,
          score: row.score,
          snippet: text,
          highlights,
          entry: { size: row.size, mtime: row.mtime, etag: row.etag, mime: row.mime },
        };
      });
    });
  }
}

/** Locks the host's row for this transaction (see the module comment); undefined when the host is gone. */
function lockHost(db: Db, hostId: number): Promise<{ active_full_run: number | null } | undefined> {
  return db.one<{ active_full_run: number | null }>(
    'SELECT (SELECT active_full_run FROM catalog_sync WHERE host_id = h.id) AS active_full_run FROM hosts h WHERE h.id = $1 FOR NO KEY UPDATE',
    [hostId],
  );
}

/** Throws `binding_conflict` unless run `runId` is running and owned by `owner`; locks the run's row. */
async function checkOwner(db: Db, runId: number, owner: string): Promise<void> {
  const run = await db.one<{ owner: string | null; state: CrawlRunState }>('SELECT owner, state FROM crawl_runs WHERE id = $1 FOR UPDATE', [runId]);
  if (run === undefined || run.state !== 'running' || run.owner !== owner) throw notOwned(runId);
}

async function writeCheckpoint(db: Db, checkpoint: RunCheckpoint, entries: number, bytes: number, moved: number, deleted: number): Promise<void> {
  const c = checkpoint.counters ?? {};
  await db.run(
    `UPDATE crawl_runs SET
       cursor = CASE WHEN $2 THEN $3 ELSE cursor END,
       phase = coalesce($4, phase),
       watermark = CASE WHEN $5 THEN $6 ELSE watermark END,
       tally_entries = CASE WHEN $7 THEN $8 ELSE tally_entries END,
       tally_bytes = CASE WHEN $7 THEN $9 ELSE tally_bytes END,
       tally_counted = CASE WHEN $7 THEN $10 ELSE tally_counted END,
       entries = entries + $11, bytes = bytes + $12, indexed = indexed + $13, content_bytes = content_bytes + $14, skipped = skipped + $15,
       moved = moved + $16, deleted = deleted + $17, errors = errors + $18, pages = pages + $19,
       elapsed_ms = elapsed_ms + $20, heartbeat_at = $21, updated_at = $21
     WHERE id = $1`,
    [
      checkpoint.runId,
      checkpoint.cursor !== undefined,
      checkpoint.cursor ?? null,
      checkpoint.phase ?? null,
      checkpoint.watermark !== undefined,
      checkpoint.watermark ?? null,
      checkpoint.scopeTally !== undefined,
      checkpoint.scopeTally?.entries ?? null,
      checkpoint.scopeTally?.bytes ?? null,
      checkpoint.scopeTally?.counted ?? null,
      entries,
      bytes,
      c.indexed ?? 0,
      c.contentBytes ?? 0,
      c.skipped ?? 0,
      moved,
      deleted,
      c.errors ?? 0,
      c.pages ?? 0,
      Math.max(0, Math.round(checkpoint.elapsedMs ?? 0)),
      checkpoint.now,
    ],
  );
}
