/**
 * MCP connectors of both directions through the endpoint, with the SDK's own client:
 * - in-process: a trusted package's hosted tools are served through the hosted-tools path (named
 *   under its connector, gated by the enable list and each tool's features, sharing the module
 *   the loader initialised) and never enter the outbound store;
 * - outbound: stored per network with their secrets sealed, and connected on demand to real SDK
 *   servers started by the test — one over streamable-http that wants a bearer header, one over
 *   stdio that reads its sealed environment.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { openPlatform } from '../platform/index.js';
import { removeDir, sqliteOf, tempDir } from '../platform/__fixtures__/platforms.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';
import { McpHost } from './host.js';
import { FsService } from '../fs/index.js';

const TOOLS_PACKAGE = fileURLToPath(new URL('./__fixtures__/tools-package', import.meta.url));
const ECHO_SERVER = fileURLToPath(new URL('./__fixtures__/echo-server.mjs', import.meta.url));
const SECRET = 'sk-outbound-secret-1234';

let fixture: McpFixture;
let remote: HttpServer;
let remoteUrl: string;
let ann: Client;
let plain: Client;

/** An SDK server over streamable-http (stateless) that wants `Authorization: Bearer <SECRET>`. */
async function startRemote(): Promise<void> {
  remote = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${SECRET}`) {
      response.writeHead(401).end();
      return;
    }
    const server = new McpServer({ name: 'remote', version: '1.0.0' });
    server.registerTool('shout', { description: 'Upper-cases text.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  const address = remote.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  remoteUrl = `http://127.0.0.1:${address.port}/mcp`;
}

beforeAll(async () => {
  await startRemote();
  fixture = await openMcpFixture({ files: { 'docs/a.md': 'one two three' }, packages: [{ folder: TOOLS_PACKAGE, trust: 'trusted' }], routes: { hostedPackages: ['test.mcp-tools'], outbound: { timeoutMs: 15_000 } } });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: fixture.files } });
  fixture.tokens.set('ann', callerOf('ann', { features: ['mcp.outbound', 'notes.wipe'] }));
  fixture.tokens.set('plain', callerOf('plain'));
  ann = await fixture.client('ann');
  plain = await fixture.client('plain');
  const store = fixture.host.outbound.store;
  await store.add('home', { id: 'remote', transport: 'streamable-http', url: remoteUrl, headers: { Authorization: `Bearer ${SECRET}` } });
  await store.add('home', { id: 'echo', name: 'Echo', transport: 'stdio', command: process.execPath, args: [ECHO_SERVER], env: { ECHO_PREFIX: 'sealed:' } });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await new Promise((resolve) => remote?.close(resolve));
});

function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

describe('an in-process MCP connector from a package', () => {
  it('serves the package\'s hosted tools under its connector, through the filesystem service, in the module init ran on', async () => {
    const names = (await ann.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['notes-tools.word_count', 'notes-tools.wipe', 'read']));
    const counted = await call(ann, 'notes-tools.word_count', { address: 'notes://docs/a.md' });
    expect(counted.isError, textOf(counted)).toBeFalsy();
    expect(structured(counted)).toEqual({ words: 3, initialisedFor: 'test.mcp-tools', user: 'ann' });
    expect(errorCode(await call(ann, 'notes-tools.word_count', { address: 'notes://docs/missing.md' }))).toBe('not_found');
    expect(errorCode(await call(ann, 'notes-tools.word_count', {}))).toBe('invalid_argument');
  });

  it('lists and runs a tool that requires a feature only for a session holding it', async () => {
    expect((await plain.listTools()).tools.map((tool) => tool.name)).not.toContain('notes-tools.wipe');
    const refused = await call(plain, 'notes-tools.wipe', {});
    expect(errorCode(refused)).toBe('permission_denied');
    expect(structured(refused)['error']).toMatchObject({ details: { missingFeatures: ['notes.wipe'] } });
    expect(textOf(await call(ann, 'notes-tools.wipe', {}))).toBe('wiped');
  });

  it('never enters the outbound store, while the package\'s stdio declaration does', async () => {
    const servers = structured(await call(ann, 'outbound_servers', {}))['servers'] as { id: string; origin: string | null }[];
    expect(servers.map((server) => server.id).sort()).toEqual(['declared-echo', 'echo', 'remote']);
    expect(servers.find((server) => server.id === 'declared-echo')?.origin).toBe('test.mcp-tools');
    expect(servers.some((server) => server.id === 'notes-tools')).toBe(false);
    await expect(fixture.host.outbound.store.add('home', { id: 'inproc', transport: 'in-process' as never })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'transport' } });
  });

  it('is not served when the package is not on the enable list', async () => {
    const dataDir = await tempDir('mcp-not-enabled');
    const platform = await openPlatform({ env: {}, dataDir, packages: [{ folder: TOOLS_PACKAGE, trust: 'trusted' }] });
    try {
      const host = await McpHost.open({ platform, fs: new FsService(platform) });
      expect(host.tools.list(callerOf('ann', { features: ['notes.wipe'] })).map((tool) => tool.name)).not.toContain('notes-tools.word_count');
      await host.close();
      await expect(McpHost.open({ platform, fs: new FsService(platform) }, { hostedPackages: ['not.loaded'] })).rejects.toMatchObject({ code: 'not_found' });
      // On the list, the package is enabled in every network (a person named it) until one switches it off.
      const hosting = await McpHost.open({ platform, fs: new FsService(platform) }, { hostedPackages: ['test.mcp-tools'] });
      expect(platform.packageStates.state('test.mcp-tools', 'home')).toEqual({ enabled: true, auto: false });
      expect(hosting.tools.list(callerOf('ann')).map((tool) => tool.name)).toContain('notes-tools.word_count');
      platform.packageStates.disable('home', 'test.mcp-tools');
      expect(hosting.tools.list(callerOf('ann')).map((tool) => tool.name)).not.toContain('notes-tools.word_count');
      expect(hosting.tools.list(callerOf('ann', { network: 'work' })).map((tool) => tool.name)).toContain('notes-tools.word_count');
      expect(errorCode(await hosting.tools.call('notes-tools.word_count', { address: 'notes://docs/a.md' }, { caller: callerOf('ann'), fs: new FsService(platform) } as never))).toBe('not_found');
      await hosting.close();
    } finally {
      await platform.close();
      await removeDir(dataDir);
    }
  });
});

describe('outbound MCP connectors', () => {
  it('are listed without their secrets', async () => {
    const listed = await call(ann, 'outbound_servers', {});
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    expect(JSON.stringify(listed)).not.toContain('sealed:');
    const stored = await fixture.host.outbound.store.get('home', 'remote');
    expect(stored).toMatchObject({ transport: 'streamable-http', headerNames: ['Authorization'] });
    expect(JSON.stringify(sqliteOf(fixture.platform).prepare('SELECT * FROM mcp_outbound').all())).not.toContain(SECRET);
  });

  it('connect on demand over streamable-http with the sealed header', async () => {
    const tools = structured(await call(ann, 'outbound_tools', { server: 'remote' }))['tools'] as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(['shout']);
    const shouted = await call(ann, 'outbound_call', { server: 'remote', tool: 'shout', arguments: { text: 'hello' } });
    expect(textOf(shouted)).toBe('HELLO');
  });

  it('start a stdio server on demand with the sealed environment, and pass its results on', async () => {
    expect(textOf(await call(ann, 'outbound_call', { server: 'echo', tool: 'echo', arguments: { text: 'hi' } }))).toBe('sealed:hi');
    const failed = await call(ann, 'outbound_call', { server: 'echo', tool: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('failed on purpose');
  });

  it('refuse sessions without the outbound feature, unknown servers and unreachable ones with typed errors', async () => {
    expect(errorCode(await call(plain, 'outbound_call', { server: 'echo', tool: 'echo', arguments: { text: 'x' } }))).toBe('permission_denied');
    expect(errorCode(await call(ann, 'outbound_tools', { server: 'nope' }))).toBe('not_found');
    const broken = await call(ann, 'outbound_tools', { server: 'declared-echo' });
    expect(errorCode(broken)).toBe('unavailable');
    expect(textOf(broken)).not.toContain(fixture.files);
  });

  it('closes the connection and forgets the server when it is removed', async () => {
    expect(await fixture.host.outbound.remove('home', 'echo')).toBe(true);
    expect(errorCode(await call(ann, 'outbound_call', { server: 'echo', tool: 'echo', arguments: { text: 'x' } }))).toBe('not_found');
    expect(await fixture.platform.credentialStore.list({ network: 'home', owner: 'project' }, 'mcp-outbound:echo')).toEqual([]);
  });
});
