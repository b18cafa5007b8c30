/**
 * The store's tables, one migration list per component. A later change is a new migration at the
 * end of its component's list; a shipped migration is never edited.
 *
 * Ids that other rows or running processes hold (networks, hosts, crawl runs) are AUTOINCREMENT,
 * so a deleted row's id is never given to a new one: a crawler still holding a deleted host's id
 * cannot write into a newer host, and crawl-run ids only grow, which the rescan diff relies on.
 */
import type { SchemaComponent } from './migrations.js';
import { HOST_MEMO_SCHEMA } from './host-memo-schema.js';
import { SYNC_HISTORY_SCHEMA } from './sync-history-schema.js';
import { VECTOR_SCHEMA } from './vector-schema.js';

/**
 * The migration (network v3 here, v2 on PostgreSQL) that writes the old read+write default of
 * the built-in folder and bucket kinds into the hosts that stored no tree of their own.
 */
export const HOSTS_KEEP_WRITABLE_DEFAULT = `
  UPDATE hosts SET permissions = '{"default":{"read":true,"write":true,"exec":false}}'
  WHERE permissions IS NULL AND kind IN ('fs', 'local', 'bucket');
`;

export const NETWORK_SCHEMA: SchemaComponent = {
  component: 'network',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE networks (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          slug       TEXT    NOT NULL UNIQUE,
          label      TEXT    NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE hosts (
          id            INTEGER PRIMARY KEY AUTOINCREMENT,
          network_id    INTEGER NOT NULL REFERENCES networks (id) ON DELETE CASCADE,
          slug          TEXT    NOT NULL,
          kind          TEXT    NOT NULL,
          label         TEXT    NOT NULL,
          description   TEXT    NOT NULL,
          config        TEXT    NOT NULL,
          scope         TEXT,
          sync          TEXT,
          permissions   TEXT,
          origin        TEXT,
          honours_order INTEGER NOT NULL DEFAULT 0,
          created_at    INTEGER NOT NULL,
          updated_at    INTEGER NOT NULL,
          UNIQUE (network_id, slug)
        );
      `,
    },
    {
      // The package system's ownership scope of a source, and the private origins a person approved for the gate.
      version: 2,
      sql: `
        ALTER TABLE hosts ADD COLUMN ownership TEXT NOT NULL DEFAULT 'project' CHECK (ownership IN ('project', 'user', 'agent'));
        ALTER TABLE hosts ADD COLUMN owner_id TEXT;
        ALTER TABLE hosts ADD COLUMN private_origins TEXT;
      `,
    },
    {
      // Folder and bucket hosts were read+write by their kind's default until version 3, when the
      // default became read only. Hosts that relied on it keep what they had, now written down.
      version: 3,
      sql: HOSTS_KEEP_WRITABLE_DEFAULT,
    },
  ],
};

/**
 * Content is a regular FTS5 table (it keeps its own copy of the text) with the entry id as rowid.
 * Measured on 100,000 documents of 2 KiB against an external-content table and a contentless one
 * (contentless_delete=1) beside a text table: the same size (341 MiB) and search latency
 * (p50 4.5–4.8 ms, p95 19–20 ms, bm25 top 20), but the regular table writes fastest (12.1k docs/s
 * against 10.9k and 8.9k at 500 a transaction) and deletes fastest (5,000 in 160 ms against 360
 * and 386), because removing a row needs no read-back of the old text by us; snippets work
 * without a second copy; and the index cannot drift from a separate content table.
 */
export const CATALOG_SCHEMA: SchemaComponent = {
  component: 'catalog',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE catalog_entries (
          id            INTEGER PRIMARY KEY,
          host_id       INTEGER NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          path          TEXT    NOT NULL,
          size          INTEGER,
          mtime         TEXT,
          etag          TEXT,
          mime          TEXT,
          native_hash   TEXT,
          native_id     TEXT,
          decision      TEXT    NOT NULL CHECK (decision IN ('include', 'index')),
          dimensions    TEXT    NOT NULL,
          extra         TEXT,
          envelope      TEXT,
          content_state TEXT    NOT NULL DEFAULT 'none'
                        CHECK (content_state IN ('none', 'indexed', 'binary', 'too_large', 'error')),
          content_key   TEXT,
          content_bytes INTEGER NOT NULL DEFAULT 0,
          seen_run      INTEGER NOT NULL DEFAULT 0,
          updated_at    INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX catalog_entries_by_path ON catalog_entries (host_id, path);
        CREATE INDEX catalog_entries_by_native_id ON catalog_entries (host_id, native_id) WHERE native_id IS NOT NULL;
        CREATE INDEX catalog_entries_by_seen_run ON catalog_entries (host_id, seen_run);

        CREATE VIRTUAL TABLE catalog_content USING fts5 (path, body, tokenize = 'unicode61 remove_diacritics 2');

        -- However an entry goes (a sweep, a delete event, its host deleted), its text goes with it.
        CREATE TRIGGER catalog_entries_content_gone AFTER DELETE ON catalog_entries
        WHEN old.content_state = 'indexed'
        BEGIN
          DELETE FROM catalog_content WHERE rowid = old.id;
        END;

        CREATE TABLE crawl_runs (
          id             INTEGER PRIMARY KEY AUTOINCREMENT,
          host_id        INTEGER NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          mode           TEXT    NOT NULL CHECK (mode IN ('full', 'incremental')),
          state          TEXT    NOT NULL CHECK (state IN ('running', 'paused', 'failed', 'completed', 'abandoned')),
          phase          TEXT    NOT NULL CHECK (phase IN ('list', 'sweep', 'done')),
          cursor         TEXT,
          since          TEXT,
          watermark      TEXT,
          owner          TEXT,
          heartbeat_at   INTEGER,
          total_estimate INTEGER,
          tally_entries  INTEGER,
          tally_bytes    INTEGER,
          tally_counted  INTEGER,
          entries        INTEGER NOT NULL DEFAULT 0,
          bytes          INTEGER NOT NULL DEFAULT 0,
          indexed        INTEGER NOT NULL DEFAULT 0,
          content_bytes  INTEGER NOT NULL DEFAULT 0,
          skipped        INTEGER NOT NULL DEFAULT 0,
          moved          INTEGER NOT NULL DEFAULT 0,
          deleted        INTEGER NOT NULL DEFAULT 0,
          errors         INTEGER NOT NULL DEFAULT 0,
          pages          INTEGER NOT NULL DEFAULT 0,
          error_code     TEXT,
          error_message  TEXT,
          started_at     INTEGER NOT NULL,
          updated_at     INTEGER NOT NULL,
          finished_at    INTEGER,
          elapsed_ms     INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX crawl_runs_by_host ON crawl_runs (host_id, id);
        CREATE UNIQUE INDEX crawl_runs_one_unfinished ON crawl_runs (host_id) WHERE state IN ('running', 'paused', 'failed');

        CREATE TABLE catalog_sync (
          host_id         INTEGER PRIMARY KEY REFERENCES hosts (id) ON DELETE CASCADE,
          watermark       TEXT,
          last_full_run   INTEGER,
          last_run        INTEGER,
          active_full_run INTEGER
        );
      `,
    },
    {
      // Prefix indexes for 2- and 3-character prefixes (measured on 100,000 documents of 2 KiB:
      // a 2-letter prefix's search 212 → 50 ms, a 3-letter one's 29 → 20 ms, the file 506 → 706 MiB).
      // FTS5 takes its options only when a table is created, so the table is rebuilt once, rowids kept.
      version: 2,
      sql: `
        DROP TRIGGER catalog_entries_content_gone;
        CREATE VIRTUAL TABLE catalog_content_prefixed USING fts5 (path, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
        INSERT INTO catalog_content_prefixed (rowid, path, body) SELECT rowid, path, body FROM catalog_content;
        DROP TABLE catalog_content;
        ALTER TABLE catalog_content_prefixed RENAME TO catalog_content;
        CREATE TRIGGER catalog_entries_content_gone AFTER DELETE ON catalog_entries
        WHEN old.content_state = 'indexed'
        BEGIN
          DELETE FROM catalog_content WHERE rowid = old.id;
        END;
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
          id          TEXT    PRIMARY KEY,
          network_id  INTEGER NOT NULL REFERENCES networks (id) ON DELETE CASCADE,
          kind        TEXT    NOT NULL,
          module_hash TEXT    NOT NULL,
          passed      INTEGER NOT NULL,
          report      TEXT    NOT NULL,
          origins     TEXT    NOT NULL,
          created_at  INTEGER NOT NULL,
          approved_by TEXT,
          approved_at INTEGER
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
          run_id      TEXT    PRIMARY KEY,
          host_id     INTEGER NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
          user_id     TEXT    NOT NULL,
          agent_id    TEXT,
          created_at  INTEGER NOT NULL,
          released_at INTEGER
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
          id           TEXT    PRIMARY KEY,
          network_id   INTEGER REFERENCES networks (id) ON DELETE CASCADE,
          user_id      TEXT    NOT NULL,
          agent_id     TEXT,
          name         TEXT    NOT NULL,
          secret_hash  TEXT    NOT NULL UNIQUE,
          scopes       TEXT    NOT NULL,
          created_at   INTEGER NOT NULL,
          expires_at   INTEGER,
          last_used_at INTEGER,
          revoked_at   INTEGER
        );
        CREATE INDEX tokens_by_user ON tokens (user_id, created_at);
      `,
    },
    {
      // Where an agent's token may write, delete and run commands; existing tokens have none.
      version: 2,
      sql: `ALTER TABLE tokens ADD COLUMN grants TEXT NOT NULL DEFAULT '[]';`,
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
          host_id    INTEGER PRIMARY KEY REFERENCES hosts (id) ON DELETE CASCADE,
          key_hash   TEXT    NOT NULL,
          created_at INTEGER NOT NULL
        );
      `,
    },
  ],
};

/**
 * The web page's sign-in: one-time codes of sign-in links and the sessions they become (only
 * hashes of either). A component of its own, apart from API tokens: a session is not a token
 * (it expires by itself and renews while used), and the two evolve separately.
 */
export const SESSION_SCHEMA: SchemaComponent = {
  component: 'session',
  migrations: [
    {
      version: 1,
      sql: `
        CREATE TABLE signin_codes (
          code_hash  TEXT    PRIMARY KEY,
          user_id    TEXT    NOT NULL,
          features   TEXT    NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE sessions (
          id           TEXT    PRIMARY KEY,
          secret_hash  TEXT    NOT NULL UNIQUE,
          user_id      TEXT    NOT NULL,
          features     TEXT    NOT NULL,
          created_at   INTEGER NOT NULL,
          expires_at   INTEGER NOT NULL,
          last_used_at INTEGER,
          revoked_at   INTEGER
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
          package_id   TEXT    PRIMARY KEY,
          folder       TEXT    NOT NULL,
          trust        TEXT    NOT NULL CHECK (trust IN ('trusted', 'untrusted', 'sandboxed')),
          installed_at INTEGER NOT NULL,
          installed_by TEXT    NOT NULL
        );
      `,
    },
  ],
};

/** Every component, in dependency order (hosts before what references them). */
export const STORE_SCHEMA: readonly SchemaComponent[] = [NETWORK_SCHEMA, CATALOG_SCHEMA, TRIAL_SCHEMA, DETACHED_RUN_SCHEMA, TOKEN_SCHEMA, WEBHOOK_KEY_SCHEMA, VECTOR_SCHEMA, SESSION_SCHEMA, SYNC_HISTORY_SCHEMA, PACKAGE_SCHEMA, HOST_MEMO_SCHEMA];
