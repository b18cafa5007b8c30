/**
 * Where outbound MCP definitions are kept: a `mcp_outbound` table beside the platform store's
 * own, in its SQLite file or its PostgreSQL database (schema component `mcp` either way), deleted
 * with their network. The store above (store.ts) validates and seals; these only read and write
 * rows, and throw the driver's errors (the store wraps them).
 */
import { PostgresStore, migrate, migratePostgres, type Migration, type PlatformStore, type PostgresDb, type SqliteDatabase } from '../../store/index.js';
import type { McpTransport } from '@neuralis/package-system/contracts';

export const OUTBOUND_SCHEMA_COMPONENT = 'mcp';

/** How inseam reaches an outbound server: every MCP transport but in-process (a package's own). */
export type OutboundTransport = Exclude<McpTransport, 'in-process'>;

const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE mcp_outbound (
        network_id   INTEGER NOT NULL REFERENCES networks(id) ON DELETE CASCADE,
        id           TEXT    NOT NULL,
        name         TEXT    NOT NULL,
        transport    TEXT    NOT NULL CHECK (transport IN ('stdio', 'streamable-http')),
        url          TEXT,
        command      TEXT,
        args         TEXT    NOT NULL,
        env_names    TEXT    NOT NULL,
        header_names TEXT    NOT NULL,
        origin       TEXT,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        PRIMARY KEY (network_id, id)
      ) WITHOUT ROWID;
    `,
  },
];

const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE mcp_outbound (
        network_id   bigint NOT NULL REFERENCES networks (id) ON DELETE CASCADE,
        id           text COLLATE "C" NOT NULL,
        name         text   NOT NULL,
        transport    text   NOT NULL CHECK (transport IN ('stdio', 'streamable-http')),
        url          text,
        command      text,
        args         text   NOT NULL,
        env_names    text   NOT NULL,
        header_names text   NOT NULL,
        origin       text,
        created_at   bigint NOT NULL,
        updated_at   bigint NOT NULL,
        PRIMARY KEY (network_id, id)
      );
    `,
  },
];

export interface OutboundRow {
  readonly network: string;
  readonly id: string;
  readonly name: string;
  readonly transport: OutboundTransport;
  readonly url: string | null;
  readonly command: string | null;
  readonly args: string;
  readonly env_names: string;
  readonly header_names: string;
  readonly origin: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

/** A row as written; `networkId` from `networkId()`. */
export type OutboundWrite = Omit<OutboundRow, 'network'> & { readonly networkId: number };

export interface OutboundRows {
  readonly backend: 'sqlite' | 'postgres';
  networkId(network: string): Promise<number | undefined>;
  existing(networkId: number, id: string): Promise<Pick<OutboundRow, 'origin' | 'created_at'> | undefined>;
  /** Inserts, or replaces every field but `origin` and `created_at` of the row with that id. */
  upsert(row: OutboundWrite): Promise<void>;
  get(network: string, id: string): Promise<OutboundRow | undefined>;
  /** By id. */
  list(network: string): Promise<OutboundRow[]>;
  remove(network: string, id: string): Promise<boolean>;
}

const COLUMNS = 'n.slug AS network, o.id, o.name, o.transport, o.url, o.command, o.args, o.env_names, o.header_names, o.origin, o.created_at, o.updated_at';

/** The rows in the platform store's database, its migrations applied. */
export async function openOutboundRows(store: PlatformStore): Promise<OutboundRows> {
  if (store instanceof PostgresStore) {
    await migratePostgres(store.database, [{ component: OUTBOUND_SCHEMA_COMPONENT, migrations: POSTGRES_MIGRATIONS }]);
    return new PostgresOutboundRows(store.database);
  }
  migrate(store.database, [{ component: OUTBOUND_SCHEMA_COMPONENT, migrations: SQLITE_MIGRATIONS }]);
  return new SqliteOutboundRows(store.database);
}

class SqliteOutboundRows implements OutboundRows {
  readonly backend = 'sqlite';
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  async networkId(network: string): Promise<number | undefined> {
    return this.#db.prepare<[string], { id: number }>('SELECT id FROM networks WHERE slug = ?').get(network)?.id;
  }

  async existing(networkId: number, id: string): Promise<Pick<OutboundRow, 'origin' | 'created_at'> | undefined> {
    return this.#db.prepare<[number, string], Pick<OutboundRow, 'origin' | 'created_at'>>('SELECT origin, created_at FROM mcp_outbound WHERE network_id = ? AND id = ?').get(networkId, id);
  }

  async upsert(row: OutboundWrite): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO mcp_outbound (network_id, id, name, transport, url, command, args, env_names, header_names, origin, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (network_id, id) DO UPDATE SET name = excluded.name, transport = excluded.transport, url = excluded.url, command = excluded.command,
           args = excluded.args, env_names = excluded.env_names, header_names = excluded.header_names, updated_at = excluded.updated_at`,
      )
      .run(row.networkId, row.id, row.name, row.transport, row.url, row.command, row.args, row.env_names, row.header_names, row.origin, row.created_at, row.updated_at);
  }

  async get(network: string, id: string): Promise<OutboundRow | undefined> {
    return this.#db.prepare<[string, string], OutboundRow>(`SELECT ${COLUMNS} FROM mcp_outbound o JOIN networks n ON n.id = o.network_id WHERE n.slug = ? AND o.id = ?`).get(network, id);
  }

  async list(network: string): Promise<OutboundRow[]> {
    return this.#db.prepare<[string], OutboundRow>(`SELECT ${COLUMNS} FROM mcp_outbound o JOIN networks n ON n.id = o.network_id WHERE n.slug = ? ORDER BY o.id`).all(network);
  }

  async remove(network: string, id: string): Promise<boolean> {
    return this.#db.prepare('DELETE FROM mcp_outbound WHERE network_id = (SELECT id FROM networks WHERE slug = ?) AND id = ?').run(network, id).changes > 0;
  }
}

class PostgresOutboundRows implements OutboundRows {
  readonly backend = 'postgres';
  readonly #db: PostgresDb;

  constructor(db: PostgresDb) {
    this.#db = db;
  }

  async networkId(network: string): Promise<number | undefined> {
    return (await this.#db.one<{ id: number }>('SELECT id FROM networks WHERE slug = $1', [network]))?.id;
  }

  existing(networkId: number, id: string): Promise<Pick<OutboundRow, 'origin' | 'created_at'> | undefined> {
    return this.#db.one<Pick<OutboundRow, 'origin' | 'created_at'>>('SELECT origin, created_at FROM mcp_outbound WHERE network_id = $1 AND id = $2', [networkId, id]);
  }

  async upsert(row: OutboundWrite): Promise<void> {
    await this.#db.run(
      `INSERT INTO mcp_outbound (network_id, id, name, transport, url, command, args, env_names, header_names, origin, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (network_id, id) DO UPDATE SET name = excluded.name, transport = excluded.transport, url = excluded.url, command = excluded.command,
         args = excluded.args, env_names = excluded.env_names, header_names = excluded.header_names, updated_at = excluded.updated_at`,
      [row.networkId, row.id, row.name, row.transport, row.url, row.command, row.args, row.env_names, row.header_names, row.origin, row.created_at, row.updated_at],
    );
  }

  get(network: string, id: string): Promise<OutboundRow | undefined> {
    return this.#db.one<OutboundRow>(`SELECT ${COLUMNS} FROM mcp_outbound o JOIN networks n ON n.id = o.network_id WHERE n.slug = $1 AND o.id = $2`, [network, id]);
  }

  list(network: string): Promise<OutboundRow[]> {
    return this.#db.query<OutboundRow>(`SELECT ${COLUMNS} FROM mcp_outbound o JOIN networks n ON n.id = o.network_id WHERE n.slug = $1 ORDER BY o.id`, [network]);
  }

  async remove(network: string, id: string): Promise<boolean> {
    return (await this.#db.run('DELETE FROM mcp_outbound WHERE network_id = (SELECT id FROM networks WHERE slug = $1) AND id = $2', [network, id])) > 0;
  }
}
