/**
 * The `vector` component on SQLite (see ../vector-types.ts for what it keeps and its invariants).
 *
 * - `vector_models`: one row per embedding model, with its dimension.
 * - `vector_entries`: per catalog entry and model, the embedding's state. It references the
 *   catalog entry (ON DELETE CASCADE), so an entry that goes takes its records along in the
 *   statement that removes it.
 * - `vector_chunks`: the chunks' spans, keyed by the id that is also the vector's rowid in the
 *   model's vec0 table; they go with their record (ON DELETE CASCADE).
 * - Per model, created when the model is registered (its dimension is known only then): a vec0
 *   virtual table `vector_vec_<id>` (sqlite-vec; float32, cosine, host id as partition key so a
 *   query on some hosts scans only theirs), and a trigger that removes a chunk's vector with its
 *   row — a virtual table cannot be the child of a foreign key.
 * - `vector_content_changed` keeps the index honest when the catalog writes new content: the
 *   entry's chunks go, and its records turn pending (or go, when its content is no longer
 *   indexed text), in the catalog's own statement. It fires on the catalog's content columns only,
 *   so listing an unchanged entry costs nothing here.
 *
 * Every connection that opens the file loads sqlite-vec (database.ts), since a catalog delete can
 * reach a vec0 table through these triggers.
 */
import type { SchemaComponent } from './migrations.js';

export const VECTOR_SCHEMA: SchemaComponent = {
  component: 'vector',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE vector_models (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          model      TEXT    NOT NULL UNIQUE,
          dimension  INTEGER NOT NULL CHECK (dimension BETWEEN 1 AND 8192),
          created_at INTEGER NOT NULL
        );
        CREATE TABLE vector_entries (
          entry_id      INTEGER NOT NULL REFERENCES catalog_entries (id) ON DELETE CASCADE,
          model_id      INTEGER NOT NULL REFERENCES vector_models (id) ON DELETE CASCADE,
          host_id       INTEGER NOT NULL,
          state         TEXT    NOT NULL CHECK (state IN ('pending', 'indexed', 'failed')),
          content_key   TEXT,
          chunks        INTEGER NOT NULL DEFAULT 0,
          attempts      INTEGER NOT NULL DEFAULT 0,
          error_code    TEXT,
          error_message TEXT,
          indexed_at    INTEGER,
          updated_at    INTEGER NOT NULL,
          PRIMARY KEY (entry_id, model_id)
        ) WITHOUT ROWID;
        CREATE INDEX vector_entries_by_host ON vector_entries (host_id, model_id, state);
        CREATE TABLE vector_chunks (
          id         INTEGER PRIMARY KEY,
          entry_id   INTEGER NOT NULL,
          model_id   INTEGER NOT NULL,
          host_id    INTEGER NOT NULL,
          ordinal    INTEGER NOT NULL,
          span_start INTEGER NOT NULL,
          span_end   INTEGER NOT NULL,
          FOREIGN KEY (entry_id, model_id) REFERENCES vector_entries (entry_id, model_id) ON DELETE CASCADE
        );
        CREATE INDEX vector_chunks_by_entry ON vector_chunks (entry_id, model_id, ordinal);

        CREATE TRIGGER vector_content_changed AFTER UPDATE OF content_state, content_key, content_bytes, updated_at ON catalog_entries
        WHEN new.content_key IS NOT old.content_key OR new.content_state IS NOT old.content_state
          OR (new.content_key IS NULL AND new.updated_at IS NOT old.updated_at)
        BEGIN
          DELETE FROM vector_entries WHERE entry_id = new.id AND new.content_state != 'indexed';
          DELETE FROM vector_chunks WHERE entry_id = new.id;
          UPDATE vector_entries SET state = 'pending', content_key = NULL, chunks = 0, attempts = 0, error_code = NULL,
            error_message = NULL, indexed_at = NULL, updated_at = new.updated_at
          WHERE entry_id = new.id;
        END;
      `,
    },
  ],
};

/** The DDL for a model's vector table and the trigger that keeps it in step with vector_chunks. */
export function modelTableSql(modelId: number, dimension: number): string {
  const table = modelTable(modelId);
  return `
    CREATE VIRTUAL TABLE ${table} USING vec0 (host_id integer partition key, embedding float[${dimension}] distance_metric=cosine);
    CREATE TRIGGER ${table}_gone AFTER DELETE ON vector_chunks WHEN old.model_id = ${modelId}
    BEGIN
      DELETE FROM ${table} WHERE rowid = old.id;
    END;
  `;
}

export function dropModelTableSql(modelId: number): string {
  const table = modelTable(modelId);
  return `DROP TRIGGER IF EXISTS ${table}_gone; DROP TABLE IF EXISTS ${table};`;
}

/** The vec0 table of a model (ids are integers the store assigned, so the name is safe to splice). */
export function modelTable(modelId: number): string {
  if (!Number.isSafeInteger(modelId) || modelId < 1) throw new RangeError('a model id is a positive integer');
  return `vector_vec_${modelId}`;
}
