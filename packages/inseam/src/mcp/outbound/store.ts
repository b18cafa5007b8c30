/**
 * The outbound MCP connector store: per network, the external MCP servers inseam may connect to
 * — `stdio` (a command it starts) or `streamable-http` (a URL). In-process MCP connectors are
 * inbound (their tools are served through the hosted-tools path) and are never stored here.
 *
 * Definitions live in the platform database (`mcp_outbound`, schema component `mcp`), deleted
 * with their network. Secret values — a stdio server's environment, an HTTP server's headers —
 * are sealed in the credential store (`mcp-outbound:<id>` in the network's project scope); the
 * definition keeps only their names, so no listing or error can show one.
 */
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, UnavailableError, isConnectorError, type McpTransport } from '@neuralis/package-system/contracts';
import { projectScope, type CredentialStore } from '../../credentials/index.js';
import { migrate, type Migration, type SqliteDatabase } from '../../store/index.js';

export const OUTBOUND_SCHEMA_COMPONENT = 'mcp';

const MIGRATIONS: readonly Migration[] = [
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

export type OutboundTransport = Exclude<McpTransport, 'in-process'>;

export interface OutboundServerInput {
  /** 1–64 of a–z 0–9 `.` `_` `-`, starting with a letter or digit; unique in the network. */
  readonly id: string;
  /** Defaults to the id. */
  readonly name?: string;
  readonly transport: OutboundTransport;
  /** streamable-http: an http(s) URL. */
  readonly url?: string;
  /** stdio: the command to start. */
  readonly command?: string;
  readonly args?: readonly string[];
  /** stdio: environment for the command (sealed). */
  readonly env?: Readonly<Record<string, string>>;
  /** streamable-http: request headers, e.g. Authorization (sealed). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A stored definition, without secret values. */
export interface OutboundServer {
  readonly network: string;
  readonly id: string;
  readonly name: string;
  readonly transport: OutboundTransport;
  readonly url: string | null;
  readonly command: string | null;
  readonly args: readonly string[];
  readonly envNames: readonly string[];
  readonly headerNames: readonly string[];
  /** The package that declared it, or null when a person added it. */
  readonly origin: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface OutboundSecrets {
  readonly env: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
}

interface Row {
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

const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;
const SELECT = `SELECT n.slug AS network, o.id, o.name, o.transport, o.url, o.command, o.args, o.env_names, o.header_names, o.origin, o.created_at, o.updated_at
  FROM mcp_outbound o JOIN networks n ON n.id = o.network_id`;

export class OutboundMcpStore {
  readonly #db: SqliteDatabase;
  readonly #credentials: CredentialStore;

  private constructor(db: SqliteDatabase, credentials: CredentialStore) {
    this.#db = db;
    this.#credentials = credentials;
  }

  /** Opens the store on the platform's database (applying its migrations). Throws `unavailable`, `invalid_config` (schema too new). */
  static open(db: SqliteDatabase, credentials: CredentialStore): OutboundMcpStore {
    try {
      migrate(db, [{ component: OUTBOUND_SCHEMA_COMPONENT, migrations: MIGRATIONS }]);
    } catch (error) {
      throw storeError(error);
    }
    return new OutboundMcpStore(db, credentials);
  }

  /**
   * Stores a definition, its secrets sealed. Throws `invalid_argument` naming the field (an
   * in-process transport among them), `not_found` (no such network), `already_exists`.
   * `replace` overwrites a definition of the same id that has the same origin (a package's
   * declaration seen again); a definition a person added is never replaced by a package's.
   */
  async add(network: string, input: OutboundServerInput, options: { readonly origin?: string | null; readonly replace?: boolean } = {}): Promise<OutboundServer> {
    const checked = checkInput(input);
    const origin = options.origin ?? null;
    const now = Date.now();
    const networkId = this.#networkId(network);
    const existing = this.#row(networkId, checked.id);
    if (existing !== undefined && !(options.replace === true && existing.origin === origin)) {
      throw new AlreadyExistsError(`Network "${network}" already has an outbound MCP server "${checked.id}".`, { details: { network, server: checked.id } });
    }
    await this.#credentials.put(projectScope(network), secretId(checked.id), { env: { ...checked.env }, headers: { ...checked.headers } });
    this.#run(() =>
      this.#db
        .prepare(
          `INSERT INTO mcp_outbound (network_id, id, name, transport, url, command, args, env_names, header_names, origin, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (network_id, id) DO UPDATE SET name = excluded.name, transport = excluded.transport, url = excluded.url, command = excluded.command,
             args = excluded.args, env_names = excluded.env_names, header_names = excluded.header_names, updated_at = excluded.updated_at`,
        )
        .run(networkId, checked.id, checked.name, checked.transport, checked.url, checked.command, JSON.stringify(checked.args), JSON.stringify(Object.keys(checked.env)), JSON.stringify(Object.keys(checked.headers)), origin, existing?.created_at ?? now, now),
    );
    return (await this.get(network, checked.id))!;
  }

  async get(network: string, id: string): Promise<OutboundServer | null> {
    const row = this.#run(() => this.#db.prepare<[string, string], Row>(`${SELECT} WHERE n.slug = ? AND o.id = ?`).get(network, id));
    return row === undefined ? null : view(row);
  }

  /** The network's definitions, by id. */
  async list(network: string): Promise<OutboundServer[]> {
    return this.#run(() => this.#db.prepare<[string], Row>(`${SELECT} WHERE n.slug = ? ORDER BY o.id`).all(network)).map(view);
  }

  /** Removes a definition and its secrets; false when there was none. */
  async remove(network: string, id: string): Promise<boolean> {
    const removed = this.#run(() => this.#db.prepare('DELETE FROM mcp_outbound WHERE network_id = (SELECT id FROM networks WHERE slug = ?) AND id = ?').run(network, id).changes > 0);
    if (removed) await this.#credentials.delete(projectScope(network), secretId(id));
    return removed;
  }

  /** The sealed values of a definition (empty when none were stored). */
  async secrets(network: string, id: string): Promise<OutboundSecrets> {
    const value = await this.#credentials.get(projectScope(network), secretId(id));
    return { env: stringRecord(value?.['env']), headers: stringRecord(value?.['headers']) };
  }

  #networkId(network: string): number {
    const row = this.#run(() => this.#db.prepare<[string], { id: number }>('SELECT id FROM networks WHERE slug = ?').get(network));
    if (row === undefined) throw new NotFoundError(`There is no network "${network}".`, { details: { network } });
    return row.id;
  }

  #row(networkId: number, id: string): Pick<Row, 'origin' | 'created_at'> | undefined {
    return this.#run(() => this.#db.prepare<[number, string], Pick<Row, 'origin' | 'created_at'>>('SELECT origin, created_at FROM mcp_outbound WHERE network_id = ? AND id = ?').get(networkId, id));
  }

  #run<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(error);
    }
  }
}

interface CheckedInput {
  readonly id: string;
  readonly name: string;
  readonly transport: OutboundTransport;
  readonly url: string | null;
  readonly command: string | null;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
}

function checkInput(input: OutboundServerInput): CheckedInput {
  const invalid = (argument: string, message: string): never => {
    throw new InvalidArgumentError(message, { details: { argument } });
  };
  if (typeof input !== 'object' || input === null) return invalid('server', 'An outbound MCP server is an object { id, transport, url | command, ... }.');
  const { id, transport } = input;
  if (typeof id !== 'string' || !ID.test(id)) return invalid('id', 'An outbound MCP server id is 1–64 of a–z, 0–9, ".", "_" and "-", starting with a letter or digit.');
  if ((transport as string) === 'in-process') {
    return invalid('transport', 'An in-process MCP connector is inbound: its tools are served through the hosted-tools path, and it is never stored as an outbound server.');
  }
  if (transport !== 'stdio' && transport !== 'streamable-http') return invalid('transport', 'transport must be "stdio" or "streamable-http".');
  const name = input.name ?? id;
  if (typeof name !== 'string' || name === '' || name.length > 200) return invalid('name', 'name must be 1–200 characters.');
  const env = record(input.env, 'env', ENV_NAME);
  const headers = record(input.headers, 'headers', HEADER_NAME);
  const args = input.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return invalid('args', 'args must be a list of strings.');
  if (transport === 'stdio') {
    if (typeof input.command !== 'string' || input.command === '' || input.command.length > 4096) return invalid('command', 'A stdio server needs the command to start.');
    if (input.url !== undefined) return invalid('url', 'A stdio server takes a command, not a url.');
    if (Object.keys(headers).length > 0) return invalid('headers', 'A stdio server takes env, not headers.');
    return { id, name, transport, url: null, command: input.command, args: [...args], env, headers: {} };
  }
  if (input.command !== undefined || args.length > 0 || Object.keys(env).length > 0) return invalid('command', 'A streamable-http server takes a url (and headers), not a command, args or env.');
  let url: URL;
  try {
    url = new URL(String(input.url));
  } catch {
    return invalid('url', 'A streamable-http server needs an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid('url', 'A streamable-http server needs an http(s) URL.');
  if (url.username !== '' || url.password !== '') return invalid('url', 'Put credentials in headers, not in the URL.');
  return { id, name, transport, url: url.href, command: null, args: [], env: {}, headers };
}

function record(value: unknown, argument: string, names: RegExp): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(`${argument} must be an object of names to string values.`, { details: { argument } });
  const copy: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!names.test(name) || typeof entry !== 'string') throw new InvalidArgumentError(`${argument} has an entry that is not a valid name with a string value.`, { details: { argument } });
    copy[name] = entry;
  }
  return copy;
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function secretId(id: string): string {
  return `mcp-outbound:${id}`;
}

function view(row: Row): OutboundServer {
  return {
    network: row.network,
    id: row.id,
    name: row.name,
    transport: row.transport,
    url: row.url,
    command: row.command,
    args: JSON.parse(row.args) as string[],
    envNames: JSON.parse(row.env_names) as string[],
    headerNames: JSON.parse(row.header_names) as string[],
    origin: row.origin,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function storeError(error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'error';
  return new UnavailableError(`The outbound MCP server store could not be used (${code}); check the database file and retry.`, { details: { reason: 'store_unavailable', sqlite: code } });
}
