/**
 * The outbound MCP connector store: per network, the external MCP servers inseam may connect to
 * — `stdio` (a command it starts) or `streamable-http` (a URL). In-process MCP connectors are
 * inbound (their tools are served through the hosted-tools path) and are never stored here.
 *
 * Definitions live in the platform store's database, SQLite or PostgreSQL (`mcp_outbound`, schema
 * component `mcp`, see rows.ts), deleted with their network. Secret values — a stdio server's environment, an HTTP server's headers —
 * are sealed in the credential store (`mcp-outbound:<id>` in the network's project scope); the
 * definition keeps only their names, so no listing or error can show one.
 */
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { projectScope, type CredentialStore } from '../../credentials/index.js';
import { PostgresStore, type PlatformStore } from '../../store/index.js';
import { openOutboundRows, type OutboundRow, type OutboundRows, type OutboundTransport } from './rows.js';

export { OUTBOUND_SCHEMA_COMPONENT } from './rows.js';

export type { OutboundTransport } from './rows.js';

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

const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

export class OutboundMcpStore {
  readonly #rows: OutboundRows;
  readonly #credentials: CredentialStore;

  private constructor(rows: OutboundRows, credentials: CredentialStore) {
    this.#rows = rows;
    this.#credentials = credentials;
  }

  /** Opens the store in the platform store's database (applying its migrations). Throws `unavailable`, `invalid_config` (schema too new). */
  static async open(store: PlatformStore, credentials: CredentialStore): Promise<OutboundMcpStore> {
    let rows: OutboundRows;
    try {
      rows = await openOutboundRows(store);
    } catch (error) {
      throw storeError(error, store instanceof PostgresStore ? 'postgres' : 'sqlite');
    }
    return new OutboundMcpStore(rows, credentials);
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
    const networkId = await this.#guarded(() => this.#rows.networkId(network));
    if (networkId === undefined) throw new NotFoundError(`There is no network "${network}".`, { details: { network } });
    const existing = await this.#guarded(() => this.#rows.existing(networkId, checked.id));
    if (existing !== undefined && !(options.replace === true && existing.origin === origin)) {
      throw new AlreadyExistsError(`Network "${network}" already has an outbound MCP server "${checked.id}".`, { details: { network, server: checked.id } });
    }
    await this.#credentials.put(projectScope(network), secretId(checked.id), { env: { ...checked.env }, headers: { ...checked.headers } });
    await this.#guarded(() =>
      this.#rows.upsert({
        networkId,
        id: checked.id,
        name: checked.name,
        transport: checked.transport,
        url: checked.url,
        command: checked.command,
        args: JSON.stringify(checked.args),
        env_names: JSON.stringify(Object.keys(checked.env)),
        header_names: JSON.stringify(Object.keys(checked.headers)),
        origin,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      }),
    );
    return (await this.get(network, checked.id))!;
  }

  async get(network: string, id: string): Promise<OutboundServer | null> {
    const row = await this.#guarded(() => this.#rows.get(network, id));
    return row === undefined ? null : view(row);
  }

  /** The network's definitions, by id. */
  async list(network: string): Promise<OutboundServer[]> {
    return (await this.#guarded(() => this.#rows.list(network))).map(view);
  }

  /** Removes a definition and its secrets; false when there was none. */
  async remove(network: string, id: string): Promise<boolean> {
    const removed = await this.#guarded(() => this.#rows.remove(network, id));
    if (removed) await this.#credentials.delete(projectScope(network), secretId(id));
    return removed;
  }

  async #guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeError(error, this.#rows.backend);
    }
  }

  /** The sealed values of a definition (empty when none were stored). */
  async secrets(network: string, id: string): Promise<OutboundSecrets> {
    const value = await this.#credentials.get(projectScope(network), secretId(id));
    return { env: stringRecord(value?.['env']), headers: stringRecord(value?.['headers']) };
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

function view(row: OutboundRow): OutboundServer {
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

/** `details` name the driver's code under the backend's name, as the platform store's errors do. */
function storeError(error: unknown, backend: OutboundRows['backend']): Error {
  if (isConnectorError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'error';
  return new UnavailableError(`The outbound MCP server store could not be used (${code}); check the database and retry.`, { details: { reason: 'store_unavailable', [backend]: code } });
}
