/**
 * The store's tables on PostgreSQL: the same components as on SQLite (sqlite/schema.ts), each
 * with its own migration list in `inseam_migrations`. A later change is a new migration at the
 * end of its component's list; a shipped migration is never edited.
 *
 * - Ids are identity columns: a sequence never hands out a number twice, so a crawler holding a
 *   deleted host's id cannot write into a newer host, and crawl-run ids only grow, which the
 *   rescan diff relies on.
 * - Times are milliseconds since the epoch in `bigint`, as on SQLite.
 * - Slugs, paths and credential ids sort by code point (`COLLATE "C"`), as SQLite's BINARY
 *   collation does, whatever the database's locale: listings page identically on both stores.
 * - JSON the catalog passes through (`dimensions`, `extra`, `envelope`, host settings) is `text`,
 *   so it comes back byte for byte as written (jsonb would reorder keys).
 * - Tables whose listings order by creation time carry a `seq` identity to break ties, where
 *   SQLite uses its rowid.
 */
import type { SchemaComponent } from '../sqlite/migrations.js';
import { HOSTS_KEEP_WRITABLE_DEFAULT } from '../sqlite/schema.js';
import { POSTGRES_SYNC_HISTORY_SCHEMA } from './sync-history-schema.js';
import { POSTGRES_HOST_MEMO_SCHEMA } from './host-memo-schema.js';
import { POSTGRES_VECTOR_SCHEMA } from './vector-schema.js';

export const NETWORK_SCHEMA: SchemaComponent = {
  component: 'network',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE networks (
          id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          slug       text COLLATE "C" NOT NULL UNIQUE,
          label      text   NOT NULL,
          created_at bigint NOT NULL,
          updated_at bigint NOT NULL
        );
        CREATE TABLE hosts (
          id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          network_id      bigint NOT NULL REFERENCES networks (id) ON DELETE CASCADE,
          slug            text COLLATE "C" NOT NULL,
          kind            text    NOT NULL,
          label           text    NOT NULL,
          description     text    NOT NULL,
          config          text    NOT NULL,
          scope           text,
          sync            text,
          permissions     text,
          origin          text,
          honours_order   boolean NOT NULL DEFAULT false,
          ownership       text    NOT NULL DEFAULT 'project' CHECK (ownership IN ('project', 'user', 'agent')),
          owner_id        text,
          private_origins text,
          created_at      bigint  NOT NULL,
          updated_at      bigint  NOT NULL,
          UNIQUE (network_id, slug)
        );
      `,
    },
    {
      // As SQLite's network v3: hosts that relied on the old read+write default keep it.
      version: 2,
      sql: HOSTS_KEEP_WRITABLE_DEFAULT,
    },
  ],
};

/**
 * Content search, in two tables. `catalog_text` keeps each indexed entry's text, read only for
 * snippets and `contentText`. `catalog_search` keeps what ranking reads for every match: the
 * entry's search vector (search-text.ts: SQLite's tokenizer rules, the text's words then the
 * path's, positions kept for phrases) and its word count, with a GIN index on the vector. Its
 * rows stay in the table's own pages, uncompressed, up to 8 KB (toast_tuple_target) rather than
 * going to TOAST at 2 KB: ranking reads the vector of every match, and measured on 20,000
 * documents of 2 KiB, a common word's 7,219 matches ranked in 156 ms instead of 262 ms, for about
 * half as much space again; and the planner sees the table's real size, so it picks the index
 * for a rare word (it chose a sequential scan, 200× slower, over a table whose rows lived in
 * TOAST). Where the server has lz4, larger rows compress with it (faster to read than pglz).
 * Both go with their entry (ON DELETE CASCADE). Migration 2 adds `catalog_search_stats`, the
 * corpus statistics bm25 ranks with (catalog.ts), and a larger GIN pending list.
 */
export const CATALOG_SCHEMA: SchemaComponent = {
  component: 'catalog',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE catalog_entries (
          id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          host_id       bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          path          text COLLATE "C" NOT NULL,
          size          bigint,
          mtime         text,
          etag          text,
          mime          text,
          native_hash   text,
          native_id     text,
          decision      text   NOT NULL CHECK (decision IN ('include', 'index')),
          dimensions    text   NOT NULL,
          extra         text,
          envelope      text,
          content_state text   NOT NULL DEFAULT 'none'
                        CHECK (content_state IN ('none', 'indexed', 'binary', 'too_large', 'error')),
          content_key   text,
          content_bytes bigint NOT NULL DEFAULT 0,
          seen_run      bigint NOT NULL DEFAULT 0,
          updated_at    bigint NOT NULL
        );
        CREATE UNIQUE INDEX catalog_entries_by_path ON catalog_entries (host_id, path);
        CREATE INDEX catalog_entries_by_native_id ON catalog_entries (host_id, native_id) WHERE native_id IS NOT NULL;
        CREATE INDEX catalog_entries_by_seen_run ON catalog_entries (host_id, seen_run);

        CREATE TABLE catalog_text (
          entry_id bigint PRIMARY KEY REFERENCES catalog_entries (id) ON DELETE CASCADE,
          body     text   NOT NULL
        );
        CREATE TABLE catalog_search (
          entry_id bigint   PRIMARY KEY REFERENCES catalog_entries (id) ON DELETE CASCADE,
          words    int      NOT NULL,
          search   tsvector NOT NULL
        ) WITH (toast_tuple_target = 8160);
        CREATE INDEX catalog_search_words ON catalog_search USING gin (search);
        DO $$
        BEGIN
          IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
            ALTER TABLE catalog_text ALTER COLUMN body SET COMPRESSION lz4;
            ALTER TABLE catalog_search ALTER COLUMN search SET COMPRESSION lz4;
          END IF;
        END
        $$;

        CREATE TABLE crawl_runs (
          id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          host_id        bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          mode           text   NOT NULL CHECK (mode IN ('full', 'incremental')),
          state          text   NOT NULL CHECK (state IN ('running', 'paused', 'failed', 'completed', 'abandoned')),
          phase          text   NOT NULL CHECK (phase IN ('list', 'sweep', 'done')),
          cursor         text,
          since          text,
          watermark      text,
          owner          text,
          heartbeat_at   bigint,
          total_estimate bigint,
          tally_entries  bigint,
          tally_bytes    bigint,
          tally_counted  bigint,
          entries        bigint NOT NULL DEFAULT 0,
          bytes          bigint NOT NULL DEFAULT 0,
          indexed        bigint NOT NULL DEFAULT 0,
          content_bytes  bigint NOT NULL DEFAULT 0,
          skipped        bigint NOT NULL DEFAULT 0,
          moved          bigint NOT NULL DEFAULT 0,
          deleted        bigint NOT NULL DEFAULT 0,
          errors         bigint NOT NULL DEFAULT 0,
          pages          bigint NOT NULL DEFAULT 0,
          error_code     text,
          error_message  text,
          started_at     bigint NOT NULL,
          updated_at     bigint NOT NULL,
          finished_at    bigint,
          elapsed_ms     bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX crawl_runs_by_host ON crawl_runs (host_id, id);
        CREATE UNIQUE INDEX crawl_runs_one_unfinished ON crawl_runs (host_id) WHERE state IN ('running', 'paused', 'failed');

        CREATE TABLE catalog_sync (
          host_id         bigint PRIMARY KEY REFERENCES hosts (id) ON DELETE CASCADE,
          watermark       text,
          last_full_run   bigint,
          last_run        bigint,
          active_full_run bigint
        );
      `,
    },
    {
      version: 2,
      sql: `
        -- The pending list GIN keeps new entries in before merging them into its tree: at 8 MB (4 MB
        -- by default) each merge folds twice as many documents into each word's posting list, so
        -- it writes about half the WAL; a search scans at most 8 MB of pending entries.
        ALTER INDEX catalog_search_words SET (gin_pending_list_limit = 8192);

        -- bm25's corpus statistics — how many documents are indexed and their words in all — kept
        -- as the search rows change, by statement triggers. Each transaction adds its change to
        -- the row of its connection's shard, so writers of different hosts do not wait for one
        -- another on one row; a search sums the shards.
        CREATE TABLE catalog_search_stats (
          shard int    PRIMARY KEY,
          docs  bigint NOT NULL,
          words bigint NOT NULL
        );
        INSERT INTO catalog_search_stats (shard, docs, words) SELECT 0, count(*), coalesce(sum(words), 0) FROM catalog_search;
        CREATE FUNCTION catalog_search_counted() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          added_docs  bigint := 0;
          added_words bigint := 0;
        BEGIN
          IF TG_OP IN ('INSERT', 'UPDATE') THEN
            SELECT added_docs + count(*), added_words + coalesce(sum(n.words), 0) INTO added_docs, added_words FROM new_rows n;
          END IF;
          IF TG_OP IN ('DELETE', 'UPDATE') THEN
            SELECT added_docs - count(*), added_words - coalesce(sum(o.words), 0) INTO added_docs, added_words FROM old_rows o;
          END IF;
          IF added_docs <> 0 OR added_words <> 0 THEN
            INSERT INTO catalog_search_stats AS s (shard, docs, words) VALUES (pg_backend_pid() % 1024, added_docs, added_words)
            ON CONFLICT (shard) DO UPDATE SET docs = s.docs + excluded.docs, words = s.words + excluded.words;
          END IF;
          RETURN NULL;
        END
        $$;
        CREATE TRIGGER catalog_search_counted_insert AFTER INSERT ON catalog_search
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_counted();
        CREATE TRIGGER catalog_search_counted_update AFTER UPDATE ON catalog_search
          REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_counted();
        CREATE TRIGGER catalog_search_counted_delete AFTER DELETE ON catalog_search
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_counted();
      `,
    },
  ],
};

export const TRIAL_SCHEMA: SchemaComponent = {
  component: 'trial',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE trials (
          id          text    PRIMARY KEY,
          seq         bigint  GENERATED ALWAYS AS IDENTITY,
          network_id  bigint  NOT NULL REFERENCES networks (id) ON DELETE CASCADE,
          kind        text    NOT NULL,
          module_hash text    NOT NULL,
          passed      boolean NOT NULL,
          report      text    NOT NULL,
          origins     text    NOT NULL,
          created_at  bigint  NOT NULL,
          approved_by text,
          approved_at bigint
        );
        CREATE INDEX trials_by_kind ON trials (network_id, kind, created_at);
      `,
    },
  ],
};

export const DETACHED_RUN_SCHEMA: SchemaComponent = {
  component: 'detached-run',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE detached_runs (
          run_id      text   PRIMARY KEY,
          seq         bigint GENERATED ALWAYS AS IDENTITY,
          host_id     bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          user_id     text   NOT NULL,
          agent_id    text,
          created_at  bigint NOT NULL,
          released_at bigint
        );
        CREATE INDEX detached_runs_by_user ON detached_runs (user_id, created_at);
      `,
    },
  ],
};

export const TOKEN_SCHEMA: SchemaComponent = {
  component: 'token',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE tokens (
          id           text   PRIMARY KEY,
          seq          bigint GENERATED ALWAYS AS IDENTITY,
          network_id   bigint REFERENCES networks (id) ON DELETE CASCADE,
          user_id      text   NOT NULL,
          agent_id     text,
          name         text   NOT NULL,
          secret_hash  text   NOT NULL UNIQUE,
          scopes       text   NOT NULL,
          created_at   bigint NOT NULL,
          expires_at   bigint,
          last_used_at bigint,
          revoked_at   bigint
        );
        CREATE INDEX tokens_by_user ON tokens (user_id, created_at);
      `,
    },
    {
      // Where an agent's token may write, delete and run commands; existing tokens have none.
      version: 2,
      sql: `ALTER TABLE tokens ADD COLUMN grants text NOT NULL DEFAULT '[]';`,
    },
  ],
};

/** Hosts' webhook keys (hashes), removed with their host. */
export const WEBHOOK_KEY_SCHEMA: SchemaComponent = {
  component: 'webhook-key',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE webhook_keys (
          host_id    bigint PRIMARY KEY REFERENCES hosts (id) ON DELETE CASCADE,
          key_hash   text   NOT NULL,
          created_at bigint NOT NULL
        );
      `,
    },
  ],
};

/** The web page's sign-in codes and sessions (hashes only), as on SQLite. */
export const SESSION_SCHEMA: SchemaComponent = {
  component: 'session',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE signin_codes (
          code_hash  text   PRIMARY KEY,
          user_id    text   NOT NULL,
          features   text   NOT NULL,
          created_at bigint NOT NULL,
          expires_at bigint NOT NULL
        );
        CREATE TABLE sessions (
          id           text   PRIMARY KEY,
          seq          bigint GENERATED ALWAYS AS IDENTITY,
          secret_hash  text   NOT NULL UNIQUE,
          user_id      text   NOT NULL,
          features     text   NOT NULL,
          created_at   bigint NOT NULL,
          expires_at   bigint NOT NULL,
          last_used_at bigint,
          revoked_at   bigint
        );
        CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
      `,
    },
  ],
};

/** Connector packages a person installed: where from, with what trust, by whom. */
export const PACKAGE_SCHEMA: SchemaComponent = {
  component: 'package',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE installed_packages (
          package_id   text    PRIMARY KEY,
          folder       text    NOT NULL,
          trust        text    NOT NULL CHECK (trust IN ('trusted', 'untrusted', 'sandboxed')),
          installed_at bigint NOT NULL,
          installed_by text    NOT NULL
        );
      `,
    },
  ],
};

/** Every component, in dependency order (hosts before what references them). */
export const POSTGRES_STORE_SCHEMA: readonly SchemaComponent[] = [NETWORK_SCHEMA, CATALOG_SCHEMA, TRIAL_SCHEMA, DETACHED_RUN_SCHEMA, TOKEN_SCHEMA, WEBHOOK_KEY_SCHEMA, POSTGRES_VECTOR_SCHEMA, SESSION_SCHEMA, POSTGRES_SYNC_HISTORY_SCHEMA, PACKAGE_SCHEMA, POSTGRES_HOST_MEMO_SCHEMA];
