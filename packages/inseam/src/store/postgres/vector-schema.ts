/**
 * The `vector` component on PostgreSQL: the same tables and invariants as on SQLite
 * (sqlite/vector-schema.ts, ../vector-types.ts), with the vectors themselves in
 * `vector_chunks.embedding` (float32 little-endian, unit length), which the exact scan reads.
 *
 * pgvector. When the database has the `vector` extension installed (an administrator ran
 * `CREATE EXTENSION vector`), a model registered then also gets `vector_pgv_<id>`, its vectors as
 * pgvector `vector(n)`, and queries on it rank in the server (`<=>`, exact: no approximate index,
 * so no hit a filter would hide is lost). Nothing here installs the extension. That path is not
 * tested on inseam's own machines, where pgvector is not installable (docs/search.md).
 */
import type { SchemaComponent } from '../sqlite/migrations.js';

export const POSTGRES_VECTOR_SCHEMA: SchemaComponent = {
  component: 'vector',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE vector_models (
          id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          model      text    NOT NULL UNIQUE,
          dimension  int     NOT NULL CHECK (dimension BETWEEN 1 AND 8192),
          pgvector   boolean NOT NULL DEFAULT false,
          created_at bigint  NOT NULL
        );
        CREATE TABLE vector_entries (
          entry_id      bigint NOT NULL REFERENCES catalog_entries (id) ON DELETE CASCADE,
          model_id      bigint NOT NULL REFERENCES vector_models (id) ON DELETE CASCADE,
          host_id       bigint NOT NULL,
          state         text   NOT NULL CHECK (state IN ('pending', 'indexed', 'failed')),
          content_key   text,
          chunks        int    NOT NULL DEFAULT 0,
          attempts      int    NOT NULL DEFAULT 0,
          error_code    text,
          error_message text,
          indexed_at    bigint,
          updated_at    bigint NOT NULL,
          PRIMARY KEY (entry_id, model_id)
        );
        CREATE INDEX vector_entries_by_host ON vector_entries (host_id, model_id, state);
        CREATE TABLE vector_chunks (
          id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          entry_id   bigint NOT NULL,
          model_id   bigint NOT NULL,
          host_id    bigint NOT NULL,
          ordinal    int    NOT NULL,
          span_start int    NOT NULL,
          span_end   int    NOT NULL,
          embedding  bytea  NOT NULL,
          FOREIGN KEY (entry_id, model_id) REFERENCES vector_entries (entry_id, model_id) ON DELETE CASCADE
        );
        CREATE INDEX vector_chunks_by_entry ON vector_chunks (entry_id, model_id, ordinal);
        CREATE INDEX vector_chunks_by_model ON vector_chunks (model_id, id);

        CREATE FUNCTION vector_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.content_state <> 'indexed' THEN
            DELETE FROM vector_entries WHERE entry_id = NEW.id;
          ELSE
            DELETE FROM vector_chunks WHERE entry_id = NEW.id;
            UPDATE vector_entries SET state = 'pending', content_key = NULL, chunks = 0, attempts = 0, error_code = NULL,
              error_message = NULL, indexed_at = NULL, updated_at = NEW.updated_at
            WHERE entry_id = NEW.id;
          END IF;
          RETURN NULL;
        END
        $$;
        CREATE TRIGGER vector_content_changed AFTER UPDATE OF content_state, content_key, content_bytes, updated_at ON catalog_entries
        FOR EACH ROW
        WHEN (NEW.content_key IS DISTINCT FROM OLD.content_key OR NEW.content_state IS DISTINCT FROM OLD.content_state
              OR (NEW.content_key IS NULL AND NEW.updated_at IS DISTINCT FROM OLD.updated_at))
        EXECUTE FUNCTION vector_content_changed();
      `,
    },
  ],
};

/** A model's pgvector table (ids are integers the store assigned, so the name is safe to splice). */
export function pgvectorTable(modelId: number): string {
  if (!Number.isSafeInteger(modelId) || modelId < 1) throw new RangeError('a model id is a positive integer');
  return `vector_pgv_${modelId}`;
}

export function pgvectorTableSql(modelId: number, dimension: number): string {
  return `CREATE TABLE ${pgvectorTable(modelId)} (
    chunk_id  bigint PRIMARY KEY REFERENCES vector_chunks (id) ON DELETE CASCADE,
    host_id   bigint NOT NULL,
    embedding vector(${dimension}) NOT NULL
  )`;
}
