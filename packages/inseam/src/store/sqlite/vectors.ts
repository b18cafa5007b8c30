/**
 * The vector index on SQLite: records and spans in plain tables, vectors in one sqlite-vec vec0
 * table per model (vector-schema.ts). A query is sqlite-vec's own KNN (an exact scan of the
 * model's vectors, filtered by host partition and chunk ids before ranking), joined with the
 * spans and paths of the k hits it returns — nothing more, so it stays within a small factor of
 * a bare vec0 query (bench/vector.mjs). A query with search scopes tests them on a few more
 * candidates than k and scans again with them as a filter only when those cannot decide
 * (#scopedQuery). Writes of one entry are one transaction.
 */
import type Database from 'better-sqlite3';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { HostRef } from '../types.js';
import { checkChunks, checkDimension, checkK, checkModelId, checkVector, vectorBytes } from '../vector-input.js';
import { RECORD_COLUMNS, RECORD_FROM, checkExpectation, pageLimit, toVectorEntry, type EntryContentRow, type VectorEntryRow } from '../vector-rows.js';
import type { HostSearchScope } from '../search-scope.js';
import type {
  PendingEntry,
  PendingQuery,
  VectorBackendStatus,
  VectorChunkRecord,
  VectorCounts,
  VectorEntriesOptions,
  VectorEntryRecord,
  VectorFailure,
  VectorHit,
  VectorModelRecord,
  VectorQuery,
  VectorStore,
  VectorUpsert,
} from '../vector-types.js';
import { scopesSql } from '../search-scope.js';
import { prefixEnd } from './catalog.js';
import { attempt, type SqliteDatabase } from './database.js';
import { sqliteDialect } from './search-dialect.js';
import { dropModelTableSql, modelTable, modelTableSql } from './vector-schema.js';

type Named = Record<string, unknown>;
type Statement = Database.Statement<unknown[]>;

interface ModelRow {
  id: number;
  model: string;
  dimension: number;
  created_at: number;
}

const toModel = (row: ModelRow): VectorModelRecord => ({ id: row.id, model: row.model, dimension: row.dimension, createdAt: row.created_at });

export class SqliteVectorStore implements VectorStore {
  readonly #db: SqliteDatabase;
  readonly #s: ReturnType<typeof prepareStatements>;
  /** Per model id: its vector insert and its four query shapes (with or without host and entry filters). */
  readonly #perModel = new Map<number, { insert: Statement; queries: Map<string, Statement> }>();
  /** Scoped query statements by SQL text, least recently used first. */
  readonly #scopedStatements = new Map<string, Statement>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#s = prepareStatements(db);
  }

  backend(): Promise<VectorBackendStatus> {
    return attempt('read the vector index', () => ({ backend: 'sqlite-vec' as const, version: this.#s.version.get()!.version }));
  }

  ensureModel(model: string, dimension: number, now = Date.now()): Promise<VectorModelRecord> {
    return attempt('register the model', () => {
      const id = checkModelId(model);
      const size = checkDimension(dimension);
      return this.#db.transaction(() => {
        const existing = this.#s.modelByName.get(id);
        if (existing !== undefined) {
          if (existing.dimension !== size) {
            throw new InvalidArgumentError(`Model "${id}" is registered with ${existing.dimension} dimensions, not ${size}; a model's vectors all have one length.`, { details: { argument: 'dimension' } });
          }
          return toModel(existing);
        }
        const row = this.#s.insertModel.get(id, size, now)!;
        this.#db.exec(modelTableSql(row.id, size));
        return toModel(row);
      }).immediate();
    });
  }

  models(): Promise<VectorModelRecord[]> {
    return attempt('read the vector index', () => this.#s.models.all().map(toModel));
  }

  dropModel(model: string): Promise<boolean> {
    return attempt('drop the model', () =>
      this.#db.transaction(() => {
        const row = this.#s.modelByName.get(model);
        if (row === undefined) return false;
        this.#perModel.delete(row.id);
        // The vectors go with their table; without its trigger, the cascade below only removes rows.
        this.#db.exec(dropModelTableSql(row.id));
        this.#s.deleteModel.run(row.id);
        return true;
      }).immediate(),
    );
  }

  upsert(input: VectorUpsert): Promise<VectorEntryRecord> {
    return attempt('store the embedding', () =>
      this.#db.transaction(() => {
        const model = this.#model(input.model);
        checkChunks(input.chunks, model.dimension);
        const entry = checkExpectation(input.entryId, this.#s.entryContent.get(input.entryId), input.expect);
        this.#s.upsertEntry.run({
          entryId: entry.id,
          modelId: model.id,
          hostId: entry.host_id,
          state: 'indexed',
          contentKey: entry.content_key,
          chunks: input.chunks.length,
          code: null,
          message: null,
          indexedAt: input.now,
          now: input.now,
        });
        this.#s.deleteChunks.run(entry.id, model.id);
        const { insert } = this.#statements(model.id);
        input.chunks.forEach((chunk, ordinal) => {
          const { id } = this.#s.insertChunk.get(entry.id, model.id, entry.host_id, ordinal, chunk.span.start, chunk.span.end)!;
          insert.run(BigInt(id), BigInt(entry.host_id), vectorBytes(chunk.vector));
        });
        return this.#record(entry.id, model.id)!;
      }).immediate(),
    );
  }

  markFailed(input: VectorFailure): Promise<VectorEntryRecord> {
    return attempt('record the failed embedding', () =>
      this.#db.transaction(() => {
        const model = this.#model(input.model);
        const entry = checkExpectation(input.entryId, this.#s.entryContent.get(input.entryId), input.expect);
        this.#s.upsertEntry.run({
          entryId: entry.id,
          modelId: model.id,
          hostId: entry.host_id,
          state: 'failed',
          contentKey: null,
          chunks: 0,
          code: String(input.error.code),
          message: String(input.error.message).slice(0, 2000),
          indexedAt: null,
          now: input.now,
        });
        this.#s.deleteChunks.run(entry.id, model.id);
        return this.#record(entry.id, model.id)!;
      }).immediate(),
    );
  }

  remove(entryId: number, model?: string): Promise<number> {
    return attempt('remove the embedding', () => {
      if (model === undefined) return this.#s.removeAll.run(entryId).changes;
      const row = this.#s.modelByName.get(model);
      return row === undefined ? 0 : this.#s.removeOne.run(entryId, row.id).changes;
    });
  }

  get(entryId: number, model: string): Promise<VectorEntryRecord | null> {
    return attempt('read the vector index', () => {
      const row = this.#s.modelByName.get(model);
      return row === undefined ? null : this.#record(entryId, row.id);
    });
  }

  entries(hostId: number, options: VectorEntriesOptions = {}): Promise<VectorEntryRecord[]> {
    return attempt('read the vector index', () => {
      const limit = pageLimit(options.limit);
      const modelId = options.model === undefined ? null : (this.#s.modelByName.get(options.model)?.id ?? -1);
      const prefix = options.prefix ?? '';
      const after = options.after ?? null;
      const lower = after !== null && after >= prefix ? after : prefix;
      const paths = this.#s.entryPage.all({ hostId, modelId, lower, inclusive: after !== null && after >= prefix ? 0 : 1, upper: prefix === '' ? null : prefixEnd(prefix), limit });
      if (paths.length === 0) return [];
      return this.#s.recordsOf.all({ ids: JSON.stringify(paths.map((row) => row.id)), modelId }).map(toVectorEntry);
    });
  }

  hosts(network: string): Promise<{ readonly hostId: number; readonly host: HostRef }[]> {
    return attempt('read the vector index', () => this.#s.hosts.all(network).map((row) => ({ hostId: row.id, host: { network, host: row.slug } })));
  }

  chunks(entryId: number, model: string): Promise<VectorChunkRecord[]> {
    return attempt('read the vector index', () => {
      const row = this.#s.modelByName.get(model);
      if (row === undefined) return [];
      return this.#s.chunks.all(entryId, row.id).map((chunk) => ({ chunkId: chunk.id, ordinal: chunk.ordinal, span: { start: chunk.span_start, end: chunk.span_end } }));
    });
  }

  pending(query: PendingQuery): Promise<PendingEntry[]> {
    return attempt('read the vector index', () => {
      const model = this.#model(query.model);
      return this.#s.pending
        .all({
          modelId: model.id,
          hosts: JSON.stringify(query.hostIds ?? []),
          after: query.afterEntryId ?? 0,
          retry: query.retryFailedBefore ?? null,
          limit: pageLimit(query.limit),
        })
        .map((row) => ({ entryId: row.id, hostId: row.host_id, path: row.path, contentKey: row.content_key, updatedAt: row.updated_at, state: row.state ?? 'new' }));
    });
  }

  counts(model: string, hostIds?: readonly number[]): Promise<VectorCounts> {
    return attempt('read the vector index', () => {
      const row = this.#s.modelByName.get(model);
      const hosts = hostIds === undefined ? null : JSON.stringify(hostIds);
      if (row === undefined) return { indexed: 0, failed: 0, chunks: 0, pending: this.#s.unembedded.get({ modelId: -1, hosts })!.n };
      const counts = { indexed: 0, pending: 0, failed: 0, chunks: 0 };
      for (const state of this.#s.counts.all({ modelId: row.id, hosts })) {
        counts[state.state] += state.n;
        counts.chunks += state.chunks;
      }
      counts.pending += this.#s.unembedded.get({ modelId: row.id, hosts })!.n;
      return counts;
    });
  }

  query(query: VectorQuery): Promise<VectorHit[]> {
    return attempt('search the vector index', () => {
      const model = this.#model(query.model);
      const vector = checkVector(query.vector, model.dimension);
      const k = checkK(query.k);
      if (query.scopes !== undefined && query.scopes.length === 0) return [];
      const shape = `${query.hostIds === undefined ? '' : 'h'}${query.entryIds === undefined ? '' : 'e'}`;
      const params: Named = { vector: vectorBytes(vector), k };
      if (query.hostIds !== undefined) params['hosts'] = JSON.stringify(query.hostIds);
      if (query.entryIds !== undefined) params['entries'] = JSON.stringify(query.entryIds);
      if (query.scopes !== undefined) return this.#scopedQuery(model.id, shape, params, query.scopes, k).map(toHit);
      return (this.#query(model.id, shape).all(params) as HitRow[]).map(toHit);
    });
  }

  /**
   * The k nearest chunks within the scopes. First the nearest `candidateK(k)` per scoped host
   * (one scan, as a bare KNN), with the scopes tested on those candidates only; that answer is
   * exact when k of them pass and the k-th is nearer than anything a host's cut could have left
   * out, or when no host was cut at all. Otherwise (scopes that hide most of what is near) the
   * scopes go into the scan as a chunk-id filter, which costs a pass over every scoped chunk.
   */
  #scopedQuery(modelId: number, shape: string, params: Named, scopes: readonly HostSearchScope[], k: number): HitRow[] {
    // The scopes' SQL differs with their values' shapes, so it is prepared per call (not cached).
    params['scopeHosts'] = JSON.stringify(scopes.map((scope) => scope.hostId));
    const inScopes = scopesSql(scopes, sqliteDialect(params));
    const scopedHosts = 'AND host_id IN (SELECT value FROM json_each(@scopeHosts))';
    const wide = candidateK(k);
    const candidates = this.#prepared(candidatesSql(modelId, shape, scopedHosts, inScopes)).all({ ...params, k: wide }) as CandidateRow[];
    const decided = fromCandidates(candidates, k, wide);
    if (decided !== undefined) return decided;
    const filtered = `${scopedHosts} AND rowid IN (SELECT c.id FROM vector_chunks c JOIN catalog_entries e ON e.id = c.entry_id WHERE c.model_id = ${modelId} AND ${inScopes})`;
    return this.#prepared(querySql(modelId, shape, filtered)).all(params) as HitRow[];
  }

  /** A statement for SQL built per call: scopes of the same shapes give the same text, so the last few are kept. */
  #prepared(sql: string): Statement {
    let statement = this.#scopedStatements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      if (this.#scopedStatements.size >= SCOPED_STATEMENTS_KEPT) this.#scopedStatements.delete(this.#scopedStatements.keys().next().value!);
    } else {
      this.#scopedStatements.delete(sql);
    }
    this.#scopedStatements.set(sql, statement);
    return statement;
  }

  /** The registered model. Throws `invalid_argument` when it is not registered. */
  #model(model: string): ModelRow {
    const row = this.#s.modelByName.get(model);
    if (row === undefined) throw new InvalidArgumentError(`Model "${model}" is not registered in the vector index; register it (ensureModel) first.`, { details: { argument: 'model' } });
    return row;
  }

  #record(entryId: number, modelId: number): VectorEntryRecord | null {
    const row = this.#s.record.get(entryId, modelId);
    return row === undefined ? null : toVectorEntry(row);
  }

  #statements(modelId: number): { insert: Statement; queries: Map<string, Statement> } {
    let statements = this.#perModel.get(modelId);
    if (statements === undefined) {
      statements = { insert: this.#db.prepare(`INSERT INTO ${modelTable(modelId)} (rowid, host_id, embedding) VALUES (?, ?, ?)`), queries: new Map() };
      this.#perModel.set(modelId, statements);
    }
    return statements;
  }

  #query(modelId: number, shape: string): Statement {
    const { queries } = this.#statements(modelId);
    let statement = queries.get(shape);
    if (statement === undefined) {
      statement = this.#db.prepare(querySql(modelId, shape, ''));
      queries.set(shape, statement);
    }
    return statement;
  }
}

/**
 * A KNN over the model's vec0 table, with the filters the shape names and `more` (SQL filters on
 * its rows). sqlite-vec answers k per partition when several hosts are asked for, so the union is
 * cut to k again.
 */
function querySql(modelId: number, shape: string, more: string): string {
  const filters = [
    shape.includes('h') ? 'AND host_id IN (SELECT value FROM json_each(@hosts))' : '',
    shape.includes('e') ? `AND rowid IN (SELECT id FROM vector_chunks WHERE model_id = ${modelId} AND entry_id IN (SELECT value FROM json_each(@entries)))` : '',
    more,
  ].join(' ');
  return `WITH knn AS MATERIALIZED (SELECT rowid AS chunk_id, distance FROM ${modelTable(modelId)} WHERE embedding MATCH @vector AND k = @k ${filters})
         SELECT knn.chunk_id, knn.distance, c.entry_id, c.host_id, c.span_start, c.span_end, e.path, n.slug AS network, h.slug AS host, v.content_key
         FROM knn
         JOIN vector_chunks c ON c.id = knn.chunk_id
         JOIN vector_entries v ON v.entry_id = c.entry_id AND v.model_id = c.model_id AND v.state = 'indexed'
         JOIN catalog_entries e ON e.id = c.entry_id
         JOIN hosts h ON h.id = c.host_id
         JOIN networks n ON n.id = h.network_id
         ORDER BY knn.distance, knn.chunk_id LIMIT @k`;
}

/**
 * Candidates asked of each scoped host before the scopes are tested: enough that a few hidden
 * chunks near the query rarely force the exact pass, few enough that the scan costs about what a
 * bare top-k does (sqlite-vec's top 64 of 100,000 costs about a fifth more than its top 10).
 */
function candidateK(k: number): number {
  return Math.min(SQLITE_VEC_MAX_K, 2 * k + 8);
}

/** How many scoped query statements are kept prepared. */
const SCOPED_STATEMENTS_KEPT = 32;

/** sqlite-vec refuses a larger k. */
const SQLITE_VEC_MAX_K = 4096;

/** The model's nearest `@k` chunks per host the shape and `hosts` name, each with whether it is a hit within `inScopes`. */
function candidatesSql(modelId: number, shape: string, hosts: string, inScopes: string): string {
  const entries = shape.includes('e') ? `AND rowid IN (SELECT id FROM vector_chunks WHERE model_id = ${modelId} AND entry_id IN (SELECT value FROM json_each(@entries)))` : '';
  const named = shape.includes('h') ? 'AND host_id IN (SELECT value FROM json_each(@hosts))' : '';
  return `WITH knn AS MATERIALIZED (SELECT rowid AS chunk_id, distance, host_id AS partition FROM ${modelTable(modelId)} WHERE embedding MATCH @vector AND k = @k ${named} ${entries} ${hosts})
         SELECT knn.chunk_id, knn.distance, knn.partition, c.entry_id, c.host_id, c.span_start, c.span_end, e.path, n.slug AS network, h.slug AS host, v.content_key,
           (v.entry_id IS NOT NULL AND n.id IS NOT NULL AND ${inScopes}) AS hit
         FROM knn
         LEFT JOIN vector_chunks c ON c.id = knn.chunk_id
         LEFT JOIN vector_entries v ON v.entry_id = c.entry_id AND v.model_id = c.model_id AND v.state = 'indexed'
         LEFT JOIN catalog_entries e ON e.id = c.entry_id
         LEFT JOIN hosts h ON h.id = c.host_id
         LEFT JOIN networks n ON n.id = h.network_id
         ORDER BY knn.distance, knn.chunk_id`;
}

interface CandidateRow extends HitRow {
  partition: number;
  hit: number | null;
}

/**
 * The top k hits from the candidates, or undefined when they cannot be known from them: a host
 * that returned all `wide` it was asked for may hold more at its last distance or beyond, so a
 * hit is certain only when it is strictly nearer than every such host's last candidate.
 */
function fromCandidates(candidates: readonly CandidateRow[], k: number, wide: number): HitRow[] | undefined {
  const perHost = new Map<number, { count: number; last: number }>();
  for (const row of candidates) {
    const seen = perHost.get(row.partition) ?? { count: 0, last: -Infinity };
    perHost.set(row.partition, { count: seen.count + 1, last: Math.max(seen.last, row.distance) });
  }
  let bound = Infinity;
  for (const { count, last } of perHost.values()) if (count >= wide) bound = Math.min(bound, last);
  const hits: HitRow[] = [];
  for (const row of candidates) {
    if (row.hit !== 1) continue;
    if (row.distance >= bound) return undefined;
    const { partition: _partition, hit: _hit, ...hitRow } = row;
    hits.push(hitRow);
    if (hits.length === k) return hits;
  }
  return bound === Infinity ? hits : undefined;
}

interface HitRow {
  chunk_id: number;
  distance: number;
  entry_id: number;
  host_id: number;
  span_start: number;
  span_end: number;
  path: string;
  network: string;
  host: string;
  content_key: string | null;
}

function toHit(row: HitRow): VectorHit {
  return {
    chunkId: row.chunk_id,
    entryId: row.entry_id,
    hostId: row.host_id,
    host: { network: row.network, host: row.host },
    path: row.path,
    span: { start: row.span_start, end: row.span_end },
    score: 1 - row.distance,
    contentKey: row.content_key,
  };
}

function prepareStatements(db: SqliteDatabase) {
  return {
    version: db.prepare<[], { version: string }>('SELECT vec_version() AS version'),
    modelByName: db.prepare<[string], ModelRow>('SELECT * FROM vector_models WHERE model = ?'),
    models: db.prepare<[], ModelRow>('SELECT * FROM vector_models ORDER BY model'),
    insertModel: db.prepare<[string, number, number], ModelRow>('INSERT INTO vector_models (model, dimension, created_at) VALUES (?, ?, ?) RETURNING *'),
    deleteModel: db.prepare<[number]>('DELETE FROM vector_models WHERE id = ?'),
    entryContent: db.prepare<[number], EntryContentRow>('SELECT id, host_id, content_state, content_key, updated_at FROM catalog_entries WHERE id = ?'),
    upsertEntry: db.prepare<Named>(
      `INSERT INTO vector_entries (entry_id, model_id, host_id, state, content_key, chunks, attempts, error_code, error_message, indexed_at, updated_at)
       VALUES (@entryId, @modelId, @hostId, @state, @contentKey, @chunks, CASE WHEN @state = 'failed' THEN 1 ELSE 0 END, @code, @message, @indexedAt, @now)
       ON CONFLICT (entry_id, model_id) DO UPDATE SET state = excluded.state, content_key = excluded.content_key, chunks = excluded.chunks,
         attempts = CASE WHEN excluded.state = 'failed' THEN attempts + 1 ELSE 0 END, error_code = excluded.error_code,
         error_message = excluded.error_message, indexed_at = excluded.indexed_at, updated_at = excluded.updated_at`,
    ),
    deleteChunks: db.prepare<[number, number]>('DELETE FROM vector_chunks WHERE entry_id = ? AND model_id = ?'),
    insertChunk: db.prepare<[number, number, number, number, number, number], { id: number }>(
      'INSERT INTO vector_chunks (entry_id, model_id, host_id, ordinal, span_start, span_end) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    ),
    removeAll: db.prepare<[number]>('DELETE FROM vector_entries WHERE entry_id = ?'),
    removeOne: db.prepare<[number, number]>('DELETE FROM vector_entries WHERE entry_id = ? AND model_id = ?'),
    record: db.prepare<[number, number], VectorEntryRow>(`SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE v.entry_id = ? AND v.model_id = ?`),
    entryPage: db.prepare<Named, { id: number }>(
      `SELECT e.id FROM catalog_entries e
       WHERE e.host_id = @hostId AND (e.path > @lower OR (@inclusive = 1 AND e.path = @lower)) AND (@upper IS NULL OR e.path < @upper)
         AND EXISTS (SELECT 1 FROM vector_entries v WHERE v.entry_id = e.id AND (@modelId IS NULL OR v.model_id = @modelId))
       ORDER BY e.path LIMIT @limit`,
    ),
    recordsOf: db.prepare<Named, VectorEntryRow>(
      `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM}
       WHERE v.entry_id IN (SELECT value FROM json_each(@ids)) AND (@modelId IS NULL OR v.model_id = @modelId)
       ORDER BY e.path, m.model`,
    ),
    hosts: db.prepare<[string], { id: number; slug: string }>(
      `SELECT h.id, h.slug FROM hosts h JOIN networks n ON n.id = h.network_id
       WHERE n.slug = ? AND EXISTS (SELECT 1 FROM vector_entries v WHERE v.host_id = h.id) ORDER BY h.slug`,
    ),
    chunks: db.prepare<[number, number], { id: number; ordinal: number; span_start: number; span_end: number }>(
      'SELECT id, ordinal, span_start, span_end FROM vector_chunks WHERE entry_id = ? AND model_id = ? ORDER BY ordinal',
    ),
    pending: db.prepare<Named, { id: number; host_id: number; path: string; content_key: string | null; updated_at: number; state: 'pending' | 'failed' | null }>(
      `SELECT e.id, e.host_id, e.path, e.content_key, e.updated_at, v.state
       FROM catalog_entries e LEFT JOIN vector_entries v ON v.entry_id = e.id AND v.model_id = @modelId
       WHERE e.host_id IN (SELECT value FROM json_each(@hosts)) AND e.content_state = 'indexed' AND e.id > @after
         AND (v.state IS NULL OR v.state = 'pending' OR (v.state = 'failed' AND @retry IS NOT NULL AND v.updated_at < @retry))
       ORDER BY e.id LIMIT @limit`,
    ),
    counts: db.prepare<Named, { state: 'pending' | 'indexed' | 'failed'; n: number; chunks: number }>(
      `SELECT state, count(*) AS n, coalesce(sum(chunks), 0) AS chunks FROM vector_entries
       WHERE model_id = @modelId AND (@hosts IS NULL OR host_id IN (SELECT value FROM json_each(@hosts))) GROUP BY state`,
    ),
    unembedded: db.prepare<Named, { n: number }>(
      `SELECT count(*) AS n FROM catalog_entries e
       WHERE e.content_state = 'indexed' AND (@hosts IS NULL OR e.host_id IN (SELECT value FROM json_each(@hosts)))
         AND NOT EXISTS (SELECT 1 FROM vector_entries v WHERE v.entry_id = e.id AND v.model_id = @modelId)`,
    ),
  };
}
