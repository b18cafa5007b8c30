/**
 * Outbound MCP connectors, connected on demand: a server is started (stdio) or reached
 * (streamable-http) through the SDK's own client the first time a tool of it is listed or called,
 * kept while it is used, and closed after `idleMs` without a call, when its definition is removed,
 * and on `close()`.
 *
 * Package-declared outbound connectors (`type: "mcp"` entries over stdio or streamable-http in a
 * loaded package's manifest) are stored in a network's store when it is first listed, attributed
 * to their package; in-process entries are inbound and never stored (see package-tools.ts). A
 * package's stdio server starts in the package's folder.
 *
 * Failures name the server, never its environment, headers or the host's paths: `unavailable`
 * when the server cannot be started or reached, `timeout` when it does not answer in time,
 * `connector_failed` when it answers with a protocol error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConnectorFailedError, NotFoundError, TimeoutError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import type { PackageLoader } from '@neuralis/package-system/loader';
import type { OutboundMcpStore, OutboundServer } from './store.js';

export const DEFAULT_OUTBOUND_IDLE_MS = 5 * 60_000;
export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;

export interface OutboundConnectorsOptions {
  readonly store: OutboundMcpStore;
  /** Where package-declared outbound connectors are read from. */
  readonly loader?: Pick<PackageLoader, 'listPackages'>;
  /** Close a connection unused this long. Default 5 minutes. */
  readonly idleMs?: number;
  /** Connecting and each request give up after this long. Default 30 s. */
  readonly timeoutMs?: number;
  /** The client's name towards the servers. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

interface Connection {
  readonly client: Promise<Client>;
  /** updatedAt of the definition it was opened from: a changed definition opens afresh. */
  readonly version: number;
  idle: NodeJS.Timeout | undefined;
}

export class OutboundConnectors {
  readonly #o: OutboundConnectorsOptions;
  readonly #connections = new Map<string, Connection>();
  readonly #seeded = new Set<string>();
  #closed = false;

  constructor(options: OutboundConnectorsOptions) {
    this.#o = options;
  }

  get store(): OutboundMcpStore {
    return this.#o.store;
  }

  /** The network's outbound servers, package declarations stored first. */
  async list(network: string): Promise<OutboundServer[]> {
    await this.#seed(network);
    return this.#o.store.list(network);
  }

  /** The tools of one server. Throws `not_found`, `unavailable`, `connector_failed`, `timeout`. */
  async tools(network: string, id: string): Promise<Tool[]> {
    return this.#use(network, id, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.#timeout() });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < 10_000);
      return tools;
    });
  }

  /** Calls a tool of one server and passes its result on as it came. Throws as tools(). */
  async call(network: string, id: string, tool: string, args: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<CallToolResult> {
    return this.#use(network, id, async (client) => (await client.callTool({ name: tool, arguments: { ...args } }, undefined, { timeout: this.#timeout(), ...(signal === undefined ? {} : { signal }) })) as CallToolResult);
  }

  /** Removes a definition, closing its connection. False when there was none. */
  async remove(network: string, id: string): Promise<boolean> {
    await this.#disconnect(`${network}/${id}`);
    return this.#o.store.remove(network, id);
  }

  /** Closes every connection. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#connections.keys()].map((key) => this.#disconnect(key)));
  }

  async #use<T>(network: string, id: string, work: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw new UnavailableError('The MCP endpoint is closing; outbound servers cannot be reached.');
    await this.#seed(network);
    const server = await this.#o.store.get(network, id);
    if (server === null) throw new NotFoundError(`Network "${network}" has no outbound MCP server "${id}".`, { details: { network, server: id } });
    const key = `${network}/${id}`;
    let connection = this.#connections.get(key);
    if (connection !== undefined && connection.version !== server.updatedAt) {
      await this.#disconnect(key);
      connection = undefined;
    }
    if (connection === undefined) {
      connection = { client: this.#connect(server), version: server.updatedAt, idle: undefined };
      this.#connections.set(key, connection);
      connection.client.catch(() => this.#connections.get(key) === connection && this.#connections.delete(key));
    }
    clearTimeout(connection.idle);
    try {
      return await work(await connection.client);
    } catch (error) {
      throw failure(server, error);
    } finally {
      if (this.#connections.get(key) === connection) {
        connection.idle = setTimeout(() => void this.#disconnect(key), this.#o.idleMs ?? DEFAULT_OUTBOUND_IDLE_MS);
        connection.idle.unref();
      }
    }
  }

  async #connect(server: OutboundServer): Promise<Client> {
    const secrets = await this.#o.store.secrets(server.network, server.id);
    const cwd = server.transport === 'stdio' ? this.#packageFolder(server) : undefined;
    const transport =
      server.transport === 'stdio'
        ? new StdioClientTransport({ command: server.command!, args: [...server.args], env: { ...getDefaultEnvironment(), ...secrets.env }, stderr: 'ignore', ...(cwd === undefined ? {} : { cwd }) })
        : new (await httpClientTransport())(new URL(server.url!), { requestInit: { headers: { ...secrets.headers }, redirect: 'error' } });
    const client = new Client(this.#o.clientInfo ?? { name: 'inseam', version: '0.1.0' });
    const key = `${server.network}/${server.id}`;
    client.onclose = () => {
      const connection = this.#connections.get(key);
      if (connection !== undefined) {
        clearTimeout(connection.idle);
        this.#connections.delete(key);
      }
    };
    try {
      await client.connect(transport, { timeout: this.#timeout() });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new UnavailableError(`The outbound MCP server "${server.id}" (${server.transport}) could not be ${server.transport === 'stdio' ? 'started' : 'reached'}; check its definition and that it runs.`, {
        cause: error,
        details: { server: server.id, transport: server.transport },
      });
    }
    return client;
  }

  /**
   * Where a package's stdio server starts: the folder of the package that declared it, so its
   * package-relative command and arguments resolve (a relative command is looked up after the
   * change of directory). A person's own server has no origin and keeps the platform's directory.
   * A package that is no longer loaded for the network leaves nothing to start its server in.
   */
  #packageFolder(server: OutboundServer): string | undefined {
    if (server.origin === null) return undefined;
    const loaded = this.#o.loader?.listPackages().find((entry) => entry.packageId === server.origin && (entry.projectId === undefined || entry.projectId === server.network));
    if (loaded === undefined) {
      throw new UnavailableError(`The outbound MCP server "${server.id}" is declared by package "${server.origin}", which is not loaded for network "${server.network}"; its server cannot be started.`, {
        details: { server: server.id, package: server.origin },
      });
    }
    return loaded.root;
  }

  async #disconnect(key: string): Promise<void> {
    const connection = this.#connections.get(key);
    if (connection === undefined) return;
    this.#connections.delete(key);
    clearTimeout(connection.idle);
    const client = await connection.client.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  /** Stores the loaded packages' outbound declarations for the network, once per process. */
  async #seed(network: string): Promise<void> {
    if (this.#seeded.has(network) || this.#o.loader === undefined) return;
    for (const loaded of this.#o.loader.listPackages()) {
      if (loaded.projectId !== undefined && loaded.projectId !== network) continue;
      for (const entry of loaded.manifest.connectors ?? []) {
        if (entry.type !== 'mcp' || entry.transport === 'in-process') continue;
        await this.#o.store
          .add(
            network,
            {
              id: entry.id,
              name: entry.name,
              transport: entry.transport,
              ...(entry.url === undefined ? {} : { url: entry.url }),
              ...(entry.command === undefined ? {} : { command: entry.command }),
              ...(entry.args === undefined ? {} : { args: entry.args }),
              ...(entry.env === undefined ? {} : { env: entry.env }),
            },
            { origin: loaded.packageId, replace: true },
          )
          .catch((error: unknown) => {
            // A person's definition of the same id wins; the package's is left out.
            if (!isConnectorError(error) || error.code !== 'already_exists') throw error;
          });
      }
    }
    this.#seeded.add(network);
  }

  #timeout(): number {
    return this.#o.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  }
}

/**
 * The SDK's HTTP client transport, loaded on first use: it pulls in an SSE parser that only
 * streamable-http servers need, so a process that never reaches one never loads it.
 */
async function httpClientTransport(): Promise<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport> {
  return (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')).StreamableHTTPClientTransport;
}

function failure(server: OutboundServer, error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === -32001) return new TimeoutError(`The outbound MCP server "${server.id}" did not answer in time.`, { cause: error, details: { server: server.id } });
  return new ConnectorFailedError(`The outbound MCP server "${server.id}" failed the request${typeof code === 'number' ? ` (MCP error ${code})` : ''}.`, { cause: error, details: { server: server.id } });
}
