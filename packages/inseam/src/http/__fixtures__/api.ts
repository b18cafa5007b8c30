/**
 * A real server on 127.0.0.1 for the HTTP tests: a platform on a temp data directory with network
 * `home`, an fs host `files` on a temp folder, and tokens of several kinds. Requests go through
 * undici, a real HTTP client.
 */
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { openPlatform, type PackageSpec, type Platform } from '../../platform/index.js';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { SessionService } from '../sessions.js';
import { ADMIN_FEATURES, TokenService } from '../tokens.js';
import { createServer, type HttpServerOptions } from '../server.js';

export interface Api {
  readonly url: string;
  readonly platform: Platform;
  readonly app: FastifyInstance;
  readonly folder: string;
  /** Every feature, every network. */
  readonly admin: string;
  /** No feature, network home. */
  readonly reader: string;
  /** An agent acting for ann, with exec.machine and connectors.trial/approve and an exec grant on `files://docs`, network home. */
  readonly agent: string;
  readonly tokens: TokenService;
  /** The server's sign-in codes and sessions (on the `clock` startApi was given). */
  readonly sessions: SessionService;
  readonly dataDir: string;
  /** Stops the server and closes the platform, keeping the data directory. */
  stop(): Promise<void>;
  /** stop(), then removes the data directory and the folder. */
  close(): Promise<void>;
}

export const FILES = {
  'docs/plan.md': '# Plan\nShip the harbour crane on Tuesday.\n',
  'docs/private/salary.txt': 'secret numbers\n',
  'notes/a.txt': 'alpha beta gamma\n',
  'big.txt': `${'0123456789abcdef'.repeat(4096)}`,
};

export async function startApi(
  options: Partial<Omit<HttpServerOptions, 'platform'>> & {
    readonly permissions?: unknown;
    readonly clock?: () => number;
    /** The filesystem service over the platform startApi opens (a test's subclass of FsService). */
    readonly fsOf?: (platform: Platform) => HttpServerOptions['fs'];
    readonly packages?: readonly PackageSpec[];
  } = {},
): Promise<Api> {
  const dataDir = await tempDir('http');
  const folder = await tempDir('http-files');
  await writeFiles(folder, FILES);
  const platform = await openPlatform({ dataDir, env: {}, ...(options.packages === undefined ? {} : { packages: options.packages }) });
  await platform.networks.init('home');
  await platform.networks.addHost({
    network: 'home',
    slug: 'files',
    kind: 'fs',
    config: { root: folder },
    permissions: (options.permissions ?? {
      default: { read: true, write: true, exec: true },
      paths: { 'docs/private': { read: false, write: false }, readonly: { write: false } },
    }) as never,
  });
  const tokens = new TokenService(platform.store.tokens);
  const admin = (await tokens.create({ name: 'admin', userId: 'ann', features: ADMIN_FEATURES })).token;
  const reader = (await tokens.create({ name: 'reader', userId: 'bob', network: 'home' })).token;
  const agent = (await tokens.create({ name: 'agent', userId: 'ann', agentId: 'helper', network: 'home', features: ['exec.machine', 'connectors.trial', 'connectors.approve'], grants: ['exec:inseam://home/files/docs'] })).token;
  const { clock, fsOf, packages: _packages, ...server } = options;
  const fs = fsOf?.(platform);
  const sessions = new SessionService(platform.store.sessions, clock === undefined ? {} : { now: clock });
  const app = await createServer({ platform, tokens, sessions, mcp: false, ...(fs === undefined ? {} : { fs }), ...server });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const stop = async (): Promise<void> => {
    await app.close();
    await platform.close();
  };
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    platform,
    app,
    folder,
    admin,
    reader,
    agent,
    tokens,
    sessions,
    dataDir,
    stop,
    close: async () => {
      await stop();
      await removeDir(dataDir);
      await removeDir(folder);
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly bytes: Buffer;
  json<T = any>(): T;
}

/** One request with undici; `body` objects go as JSON. */
export async function call(
  api: Pick<Api, 'url'>,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS',
  path: string,
  options: { readonly token?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }), ...(options.headers ?? {}) };
  let body: string | Buffer | undefined;
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const answer = await request(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  const text = bytes.toString('utf8');
  return { status: answer.statusCode, headers: answer.headers, text, bytes, json: () => JSON.parse(text) };
}

export function q(address: string): string {
  return encodeURIComponent(address);
}
