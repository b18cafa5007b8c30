/**
 * The vector index on PostgreSQL. Records, spans and vectors live in plain tables
 * (vector-schema.ts); a query is either
 * - exact, in this process: the model's vectors are read in pages of SCAN_PAGE rows by key (the
 *   host and entry filters applied in SQL first), each page scored against the query and folded
 *   into a bounded top-k, so memory holds one page and k hits however many vectors there are; or
 * - pgvector's, when the model's vectors are also in a `vector(n)` table (the extension was
 *   installed when the model was registered): ranked in the server with `<=>`.
 * Either way the k hits are then joined with their spans and paths.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { HostRef } from '../types.js';
import { TopK, checkChunks, checkDimension, checkK, checkModelId, checkVector, unit, vectorBytes } from '../vector-input.js';
import { RECORD_COLUMNS, RECORD_FROM, checkExpectation, pageLimit, toVectorEntry, type EntryContentRow, type VectorEntryRow } from '../vector-rows.js';
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
import type { Db } from './database.js';
import { attempt, isUniqueViolation } from './database.js';
import { scopesSql, type HostSearchScope } from '../search-scope.js';
import { postgresDialect } from './search-dialect.js';
import { pgvectorTable, pgvectorTableSql } from './vector-schema.js';

/** Vectors read per round trip of the exact scan: about 400 KB at 100 dimensions. */
export const SCAN_PAGE = 1024;

interface ModelRow {
  id: number;
  model: string;
  dimension: number;
  pgvector: boolean;
  created_at: number;
}

const toModel = (row: ModelRow): VectorModelRecord => ({ id: row.id, model: row.model, dimension: row.dimension, createdAt: row.created_at });

/** pgvector's text form of a vector. */
const pgvectorLiteral = (vector: Float32Array): string => `[${Array.from(vector).join(',')}]`;

export class PostgresVectorStore implements VectorStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  backend(): Promise<VectorBackendStatus> {
    return attempt('read the vector index', async () => {
      const version = await this.#pgvectorVersion(this.#db);
      return version === null ? { backend: 'exact' as const, version: null } : { backend: 'pgvector' as const, version };
    });
  }

  ensureModel(model: string, dimension: number, now = Date.now()): Promise<VectorModelRecord> {
    return attempt('register the model', async () => {
      const id = checkModelId(model);
      const size = checkDimension(dimension);
      const existing = await this.#modelRow(this.#db, id);
      if (existing !== undefined) return toModel(checkSameDimension(existing, size));
      try {
        return await this.#db.transaction(async (db) => {
          const pgvector = (await this.#pgvectorVersion(db)) !== null;
          const row = (await db.one<ModelRow>('INSERT INTO vector_models (model, dimension, pgvector, created_at) VALUES ($1, $2, $3, $4) RETURNING *', [id, size, pgvector, now]))!;
          if (pgvector) await db.run(pgvectorTableSql(row.id, size));
          return toModel(row);
        });
      } catch (error) {
        // Another process registered it first.
        if (!isUniqueViolation(error)) throw error;
        return toModel(checkSameDimension((await this.#modelRow(this.#db, id))!, size));
      }
    });
  }

  models(): Promise<VectorModelRecord[]> {
    return attempt('read the vector index', async () => (await this.#db.query<ModelRow>('SELECT * FROM vector_models ORDER BY model')).map(toModel));
  }

  dropModel(model: string): Promise<boolean> {
    return attempt('drop the model', () =>
      this.#db.transaction(async (db) => {
        const row = await this.#modelRow(db, model);
        if (row === undefined) return false;
        if (row.pgvector) await db.run(`DROP TABLE IF EXISTS ${pgvectorTable(row.id)}`);
        await db.run('DELETE FROM vector_models WHERE id = $1', [row.id]);
        return true;
      }),
    );
  }

  upsert(input: VectorUpsert): Promise<VectorEntryRecord> {
    return attempt('store the embedding', () =>
      this.#db.transaction(async (db) => {
        const model = await this.#model(db, input.model);
        checkChunks(input.chunks, model.dimension);
        const entry = await this.#lockEntry(db, input.entryId, input.expect);
        await this.#writeRecord(db, entry, model.id, { state: 'indexed', contentKey: entry.content_key, chunks: input.chunks.length, error: null, indexedAt: input.now, now: input.now });
        await db.run('DELETE FROM vector_chunks WHERE entry_id = $1 AND model_id = $2', [entry.id, model.id]);
        if (input.chunks.length > 0) {
          const units = input.chunks.map((chunk) => unit(chunk.vector));
          const ids = await db.query<{ id: number }>(
            `INSERT INTO vector_chunks (entry_id, model_id, host_id, ordinal, span_start, span_end, embedding)
             SELECT $1, $2, $3, u.ordinal, u.span_start, u.span_end, u.embedding
             FROM unnest($4::int[], $5::int[], $6::int[], $7::bytea[]) AS u(ordinal, span_start, span_end, embedding)
             ORDER BY u.ordinal RETURNING id`,
            [entry.id, model.id, entry.host_id, units.map((_, ordinal) => ordinal), input.chunks.map((chunk) => chunk.span.start), input.chunks.map((chunk) => chunk.span.end), units.map(vectorBytes)],
          );
          if (model.pgvector) {
            await db.run(`INSERT INTO ${pgvectorTable(model.id)} (chunk_id, host_id, embedding) SELECT u.id, $1, u.embedding::vector FROM unnest($2::bigint[], $3::text[]) AS u(id, embedding)`, [
              entry.host_id,
              ids.map((row) => row.id),
              units.map(pgvectorLiteral),
            ]);
          }
        }
        return (await this.#record(db, entry.id, model.id))!;
      }),
    );
  }

  markFailed(input: VectorFailure): Promise<VectorEntryRecord> {
    return attempt('record the failed embedding', () =>
      this.#db.transaction(async (db) => {
        const model = await this.#model(db, input.model);
        const entry = await this.#lockEntry(db, input.entryId, input.expect);
        await this.#writeRecord(db, entry, model.id, {
          state: 'failed',
          contentKey: null,
          chunks: 0,
          error: { code: String(input.error.code), message: String(input.error.message).slice(0, 2000) },
          indexedAt: null,
          now: input.now,
        });
        await db.run('DELETE FROM vector_chunks WHERE entry_id = $1 AND model_id = $2', [entry.id, model.id]);
        return (await this.#record(db, entry.id, model.id))!;
      }),
    );
  }

  remove(entryId: number, model?: string): Promise<number> {
    return attempt('remove the embedding', () =>
      model === undefined
        ? this.#db.run('DELETE FROM vector_entries WHERE entry_id = $1', [entryId])
        : this.#db.run('DELETE FROM vector_entries WHERE entry_id = $1 AND model_id = (SELECT id FROM vector_models WHERE model = $2)', [entryId, model]),
    );
  }

  get(entryId: number, model: string): Promise<VectorEntryRecord | null> {
    return attempt('read the vector index', async () => {
      const row = await this.#db.one<VectorEntryRow>(`SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE v.entry_id = $1 AND m.model = $2`, [entryId, model]);
      return row === undefined ? null : toVectorEntry(row);
    });
  }

  entries(hostId: number, options: VectorEntriesOptions = {}): Promise<VectorEntryRecord[]> {
    return attempt('read the vector index', async () => {
      const limit = pageLimit(options.limit);
      const prefix = options.prefix ?? '';
      const after = options.after ?? null;
      const model = options.model ?? null;
      const paths = await this.#db.query<{ id: number }>(
        `SELECT e.id FROM catalog_entries e
         WHERE e.host_id = $1 AND ($2::text IS NULL OR e.path > $2) AND starts_with(e.path, $3)
           AND EXISTS (SELECT 1 FROM vector_entries v JOIN vector_models m ON m.id = v.model_id WHERE v.entry_id = e.id AND ($4::text IS NULL OR m.model = $4))
         ORDER BY e.path LIMIT $5`,
        [hostId, after, prefix, model, limit],
      );
      if (paths.length === 0) return [];
      const rows = await this.#db.query<VectorEntryRow>(
        `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE v.entry_id = ANY($1::bigint[]) AND ($2::text IS NULL OR m.model = $2) ORDER BY e.path, m.model`,
        [paths.map((row) => row.id), model],
      );
      return rows.map(toVectorEntry);
    });
  }

  hosts(network: string): Promise<{ readonly hostId: number; readonly host: HostRef }[]> {
    return attempt('read the vector index', async () =>
      (
        await this.#db.query<{ id: number; slug: string }>(
          `SELECT h.id, h.slug FROM hosts h JOIN networks n ON n.id = h.network_id
           WHERE n.slug = $1 AND EXISTS (SELECT 1 FROM vector_entries v WHERE v.host_id = h.id) ORDER BY h.slug`,
          [network],
        )
      ).map((row) => ({ hostId: row.id, host: { network, host: row.slug } })),
    );
  }

  chunks(entryId: number, model: string): Promise<VectorChunkRecord[]> {
    return attempt('read the vector index', async () =>
      (
        await this.#db.query<{ id: number; ordinal: number; span_start: number; span_end: number }>(
          `SELECT c.id, c.ordinal, c.span_start, c.span_end FROM vector_chunks c JOIN vector_models m ON m.id = c.model_id
           WHERE c.entry_id = $1 AND m.model = $2 ORDER BY c.ordinal`,
          [entryId, model],
        )
      ).map((row) => ({ chunkId: row.id, ordinal: row.ordinal, span: { start: row.span_start, end: row.span_end } })),
    );
  }

  pending(query: PendingQuery): Promise<PendingEntry[]> {
    return attempt('read the vector index', async () => {
      const model = await this.#model(this.#db, query.model);
      const rows = await this.#db.query<{ id: number; host_id: number; path: string; content_key: string | null; updated_at: number; state: 'pending' | 'failed' | null }>(
        `SELECT e.id, e.host_id, e.path, e.content_key, e.updated_at, v.state
         FROM catalog_entries e LEFT JOIN vector_entries v ON v.entry_id = e.id AND v.model_id = $1
         WHERE e.host_id = ANY($2::bigint[]) AND e.content_state = 'indexed' AND e.id > $3
           AND (v.state IS NULL OR v.state = 'pending' OR (v.state = 'failed' AND $4::bigint IS NOT NULL AND v.updated_at < $4))
         ORDER BY e.id LIMIT $5`,
        [model.id, query.hostIds ?? [], query.afterEntryId ?? 0, query.retryFailedBefore ?? null, pageLimit(query.limit)],
      );
      return rows.map((row) => ({ entryId: row.id, hostId: row.host_id, path: row.path, contentKey: row.content_key, updatedAt: row.updated_at, state: row.state ?? 'new' }));
    });
  }

  counts(model: string, hostIds?: readonly number[]): Promise<VectorCounts> {
    return attempt('read the vector index', async () => {
      const row = await this.#modelRow(this.#db, model);
      const hosts = hostIds === undefined ? null : [...hostIds];
      const counts = { indexed: 0, pending: 0, failed: 0, chunks: 0 };
      if (row !== undefined) {
        const states = await this.#db.query<{ state: 'pending' | 'indexed' | 'failed'; n: number; chunks: number }>(
          `SELECT state, count(*)::int AS n, coalesce(sum(chunks), 0)::bigint AS chunks FROM vector_entries
           WHERE model_id = $1 AND ($2::bigint[] IS NULL OR host_id = ANY($2)) GROUP BY state`,
          [row.id, hosts],
        );
        for (const state of states) {
          counts[state.state] += state.n;
          counts.chunks += state.chunks;
        }
      }
      const unembedded = await this.#db.one<{ n: number }>(
        `SELECT count(*)::int AS n FROM catalog_entries e
         WHERE e.content_state = 'indexed' AND ($2::bigint[] IS NULL OR e.host_id = ANY($2))
           AND NOT EXISTS (SELECT 1 FROM vector_entries v WHERE v.entry_id = e.id AND v.model_id = $1)`,
        [row?.id ?? -1, hosts],
      );
      counts.pending += unembedded?.n ?? 0;
      return counts;
    });
  }

  query(query: VectorQuery): Promise<VectorHit[]> {
    return attempt('search the vector index', async () => {
      const model = await this.#model(this.#db, query.model);
      const vector = unit(checkVector(query.vector, model.dimension));
      const k = checkK(query.k);
      if (query.scopes !== undefined && query.scopes.length === 0) return [];
      const hosts = query.hostIds === undefined ? null : [...query.hostIds];
      const entries = query.entryIds === undefined ? null : [...query.entryIds];
      const scope = query.scopes === undefined ? undefined : scopeFilter(query.scopes);
      const best = model.pgvector ? await this.#pgvectorScan(model.id, vector, k, hosts, entries, scope) : await this.#exactScan(model.id, vector, k, hosts, entries, scope);
      if (best.length === 0) return [];
      const rows = await this.#db.query<HitRow>(
        `SELECT c.id AS chunk_id, c.entry_id, c.host_id, c.span_start, c.span_end, e.path, n.slug AS network, h.slug AS host, v.content_key
         FROM vector_chunks c
         JOIN vector_entries v ON v.entry_id = c.entry_id AND v.model_id = c.model_id AND v.state = 'indexed'
         JOIN catalog_entries e ON e.id = c.entry_id
         JOIN hosts h ON h.id = c.host_id
         JOIN networks n ON n.id = h.network_id
         WHERE c.id = ANY($1::bigint[])`,
        [best.map((hit) => hit.chunkId)],
      );
      const byId = new Map(rows.map((row) => [row.chunk_id, row]));
      return best.flatMap(({ chunkId, score }) => {
        const row = byId.get(chunkId);
        return row === undefined ? [] : [toHit(row, score)];
      });
    });
  }

  /** The k best chunks by an exact scan in pages: memory holds one page and k candidates. */
  async #exactScan(modelId: number, vector: Float32Array, k: number, hosts: number[] | null, entries: number[] | null, scope?: ScopeFilter): Promise<{ chunkId: number; score: number }[]> {
    const top = new TopK<number>(k);
    const dimension = vector.length;
    const scratch = new Float32Array(dimension);
    const scratchBytes = new Uint8Array(scratch.buffer);
    let after = 0;
    for (;;) {
      const page = await this.#db.query<{ id: number; embedding: Buffer }>(
        `SELECT id, embedding FROM vector_chunks c
         WHERE model_id = $1 AND id > $2 AND ($3::bigint[] IS NULL OR host_id = ANY($3)) AND ($4::bigint[] IS NULL OR entry_id = ANY($4))
           ${scope === undefined ? '' : scope.sql(5)}
         ORDER BY id LIMIT ${SCAN_PAGE}`,
        [modelId, after, hosts, entries, ...(scope?.params ?? [])],
      );
      for (const row of page) {
        // The bytes of a pg Buffer are not float-aligned: copy them into an aligned scratch first.
        scratchBytes.set(row.embedding.subarray(0, dimension * 4));
        let dot = 0;
        for (let index = 0; index < dimension; index += 1) dot += scratch[index]! * vector[index]!;
        // Ties rank by chunk id, as sqlite-vec's do: the scan goes up by id and only a better score displaces.
        if (dot > top.floor) top.offer(dot, row.id);
      }
      if (page.length < SCAN_PAGE) break;
      after = page[page.length - 1]!.id;
    }
    return top
      .sorted()
      .sort((a, b) => b.score - a.score || a.item - b.item)
      .map(({ score, item }) => ({ chunkId: item, score }));
  }

  async #pgvectorScan(modelId: number, vector: Float32Array, k: number, hosts: number[] | null, entries: number[] | null, scope?: ScopeFilter): Promise<{ chunkId: number; score: number }[]> {
    const rows = await this.#db.query<{ chunk_id: number; score: number }>(
      `SELECT p.chunk_id, 1 - (p.embedding <=> $1::vector) AS score FROM ${pgvectorTable(modelId)} p
       WHERE ($2::bigint[] IS NULL OR p.host_id = ANY($2))
         AND ($3::bigint[] IS NULL OR p.chunk_id IN (SELECT id FROM vector_chunks WHERE model_id = $4 AND entry_id = ANY($3)))
         ${scope === undefined ? '' : `AND p.chunk_id IN (SELECT c.id FROM vector_chunks c WHERE c.model_id = $4 ${scope.sql(6)})`}
       ORDER BY p.embedding <=> $1::vector, p.chunk_id LIMIT $5`,
      [pgvectorLiteral(vector), hosts, entries, modelId, k, ...(scope?.params ?? [])],
    );
    return rows.map((row) => ({ chunkId: row.chunk_id, score: Number(row.score) }));
  }

  async #pgvectorVersion(db: Db): Promise<string | null> {
    return (await db.one<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'vector'"))?.extversion ?? null;
  }

  #modelRow(db: Db, model: string): Promise<ModelRow | undefined> {
    return db.one<ModelRow>('SELECT * FROM vector_models WHERE model = $1', [model]);
  }

  async #model(db: Db, model: string): Promise<ModelRow> {
    const row = await this.#modelRow(db, model);
    if (row === undefined) throw new InvalidArgumentError(`Model "${model}" is not registered in the vector index; register it (ensureModel) first.`, { details: { argument: 'model' } });
    return row;
  }

  /** The entry, locked against a concurrent catalog write until the transaction ends, checked against `expect`. */
  async #lockEntry(db: Db, entryId: number, expect: VectorUpsert['expect']): Promise<EntryContentRow> {
    const row = await db.one<EntryContentRow>('SELECT id, host_id, content_state, content_key, updated_at FROM catalog_entries WHERE id = $1 FOR SHARE', [entryId]);
    return checkExpectation(entryId, row, expect);
  }

  async #writeRecord(
    db: Db,
    entry: EntryContentRow,
    modelId: number,
    record: { state: 'indexed' | 'failed'; contentKey: string | null; chunks: number; error: { code: string; message: string } | null; indexedAt: number | null; now: number },
  ): Promise<void> {
    await db.run(
      `INSERT INTO vector_entries (entry_id, model_id, host_id, state, content_key, chunks, attempts, error_code, error_message, indexed_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $4 = 'failed' THEN 1 ELSE 0 END, $7, $8, $9, $10)
       ON CONFLICT (entry_id, model_id) DO UPDATE SET state = excluded.state, content_key = excluded.content_key, chunks = excluded.chunks,
         attempts = CASE WHEN excluded.state = 'failed' THEN vector_entries.attempts + 1 ELSE 0 END, error_code = excluded.error_code,
         error_message = excluded.error_message, indexed_at = excluded.indexed_at, updated_at = excluded.updated_at`,
      [entry.id, modelId, entry.host_id, record.state, record.contentKey, record.chunks, record.error?.code ?? null, record.error?.message ?? null, record.indexedAt, record.now],
    );
  }

  async #record(db: Db, entryId: number, modelId: number): Promise<VectorEntryRecord | null> {
    const row = await db.one<VectorEntryRow>(`SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE v.entry_id = $1 AND v.model_id = $2`, [entryId, modelId]);
    return row === undefined ? null : toVectorEntry(row);
  }
}

function checkSameDimension(row: ModelRow, dimension: number): ModelRow {
  if (row.dimension !== dimension) {
    throw new InvalidArgumentError(`Model "${row.model}" is registered with ${row.dimension} dimensions, not ${dimension}; a model's vectors all have one length.`, { details: { argument: 'dimension' } });
  }
  return row;
}

interface HitRow {
  chunk_id: number;
  entry_id: number;
  host_id: number;
  span_start: number;
  span_end: number;
  path: string;
  network: string;
  host: string;
  content_key: string | null;
}

function toHit(row: HitRow, score: number): VectorHit {
  return {
    chunkId: row.chunk_id,
    entryId: row.entry_id,
    hostId: row.host_id,
    host: { network: row.network, host: row.host },
    path: row.path,
    span: { start: row.span_start, end: row.span_end },
    score,
    contentKey: row.content_key,
  };
}

interface ScopeFilter {
  /** `AND …` on a `vector_chunks c` row, its parameters numbered from `first`. */
  sql(first: number): string;
  readonly params: readonly unknown[];
}

/** The scopes (search-scope.ts) as a condition on a chunk's catalog entry. */
function scopeFilter(scopes: readonly HostSearchScope[]): ScopeFilter {
  let params: unknown[] = [];
  return {
    sql(first) {
      params = [];
      const condition = scopesSql(scopes, postgresDialect(params, first));
      return `AND EXISTS (SELECT 1 FROM catalog_entries e WHERE e.id = c.entry_id AND ${condition})`;
    },
    get params() {
      return params;
    },
  };
}
