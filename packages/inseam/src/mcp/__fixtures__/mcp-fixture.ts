/**
 * The MCP endpoint over Streamable HTTP for tests: a real platform with the filesystem service, Fastify on
 * loopback with `registerMcpRoutes`, bearer tokens mapped to callers as the HTTP server's
 * `authenticate` would, and SDK clients connected to it.
 */
import './source-hooks.js';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PermissionDeniedError } from '@neuralis/package-system/contracts';
import { ConnectorLifecycle } from '../../connectors/index.js';
import { FsService, type Caller } from '../../fs/index.js';
import type { PackageSpec, Platform } from '../../platform/index.js';
import { SEED_PACKAGE, openTestPlatform, removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import type { McpHost } from '../host.js';
import { registerMcpRoutes, type McpRouteOptions } from '../http.js';

export interface McpFixture {
  readonly platform: Platform;
  readonly fs: FsService;
  /** The connector lifecycle the endpoint shares, as the HTTP server's would be. */
  readonly connectors: ConnectorLifecycle;
  /** A folder for fs hosts' roots. */
  readonly files: string;
  readonly app: FastifyInstance;
  readonly host: McpHost;
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: URL;
  /** Bearer token → caller; tests add to it. */
  readonly tokens: Map<string, Caller>;
  /** A connected SDK client using `token`; closed with the fixture. */
  client(token: string, options?: { readonly capabilities?: Record<string, object> }): Promise<Client>;
  close(): Promise<void>;
}

export interface McpFixtureOptions {
  readonly files?: Readonly<Record<string, string>>;
  /** Packages loaded after the seed package. */
  readonly packages?: readonly PackageSpec[];
  readonly routes?: McpRouteOptions;
}

/** A platform with network `home` on a temp data directory, and the endpoint on loopback. */
export async function openMcpFixture(options: McpFixtureOptions = {}): Promise<McpFixture> {
  const dataDir = await tempDir('mcp-data');
  const files = await tempDir('mcp-files');
  await writeFiles(files, options.files ?? {});
  const platform = await openTestPlatform(dataDir, { packages: [{ folder: SEED_PACKAGE, trust: 'trusted' }, ...(options.packages ?? [])] });
  await platform.networks.init('home');
  const fs = new FsService(platform);
  const connectors = new ConnectorLifecycle(platform);
  const tokens = new Map<string, Caller>();
  const clients: Client[] = [];
  const app = Fastify();
  const authenticate = (request: FastifyRequest): Caller => {
    const header = request.headers.authorization ?? '';
    const caller = header.startsWith('Bearer ') ? tokens.get(header.slice(7)) : undefined;
    if (caller === undefined) throw new PermissionDeniedError('Unknown or missing bearer token.');
    return caller;
  };
  const host = await registerMcpRoutes(app, { platform, fs, connectors, authenticate }, options.routes ?? {});
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('Fastify did not listen on a port.');
  const url = new URL(`http://127.0.0.1:${address.port}/mcp`);
  return {
    platform,
    fs,
    connectors,
    files,
    app,
    host,
    url,
    tokens,
    client: async (token, clientOptions = {}) => {
      const client = new Client({ name: 'inseam-test', version: '1.0.0' }, { capabilities: { ...(clientOptions.capabilities === undefined ? {} : { experimental: clientOptions.capabilities }) } });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.allSettled(clients.map((client) => client.close()));
      await app.close();
      await platform.close();
      await removeDir(dataDir);
      await removeDir(files);
    },
  };
}

/** A tool call's structured content. */
export function structured(result: unknown): Record<string, unknown> {
  return ((result as CallToolResult).structuredContent ?? {});
}

/** The typed code of a failed call (null when it did not fail). */
export function errorCode(result: unknown): string | null {
  const call = result as CallToolResult;
  if (call.isError !== true) return null;
  return ((call.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? null);
}

/** The text blocks of a call's content, joined. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
