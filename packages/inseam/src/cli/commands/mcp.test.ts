/**
 * `inseam mcp`, in-process: who a stdio session is (an API token's user, agent, network and
 * features — or the local user with the features the command names, never what the client
 * sends), and `inseam mcp add|ls|rm` for outbound servers, whose secrets are never printed.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenService } from '../../http/index.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { runCli } from '../program.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let files: string;
let token: string;
const SECRET = 'hdr-secret-value-9876';

beforeAll(async () => {
  dataDir = await tempDir('cli-mcp');
  files = await tempDir('cli-mcp-files');
  await writeFiles(files, { 'a.txt': 'alpha' });
  const platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'mine', kind: 'fs', config: { root: files }, ownership: 'user', ownerId: 'tok-user' });
  await platform.networks.addHost({ network: 'home', slug: 'anns', kind: 'fs', config: { root: files }, ownership: 'user', ownerId: 'ann' });
  token = (await new TokenService(platform.store.tokens).create({ name: 'agent', userId: 'tok-user', agentId: 'bot', network: 'home', features: ['mcp.outbound'] })).token;
  await platform.close();
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(files);
});

/** Runs `inseam mcp …args` on in-memory pipes with an SDK client on the other end. */
async function session(args: readonly string[], work: (client: Client) => Promise<void>): Promise<{ code: number; stderr: string }> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const running = runCli(['--data', dataDir, 'mcp', ...args], { stdin: toServer, stdout: fromServer, stderr, env: {} });
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  try {
    await client.connect(new StdioServerTransport(fromServer, toServer));
    await work(client);
  } finally {
    await client.close();
    toServer.end();
  }
  const code = await running;
  process.exitCode = undefined;
  return { code, stderr: errors };
}

function hostsOf(result: unknown): string[] {
  return ((result as CallToolResult).structuredContent!['hosts'] as { slug: string }[]).map((host) => host.slug);
}

describe('inseam mcp (stdio) identity', () => {
  it('with a token, is the token\'s user and agent with its features', async () => {
    const ended = await session(['--token', token], async (client) => {
      expect(hostsOf(await client.callTool({ name: 'hosts', arguments: {} }))).toContain('mine');
      expect(hostsOf(await client.callTool({ name: 'hosts', arguments: { userId: 'ann' } }))).not.toContain('anns');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('outbound_servers');
      const run = (await client.callTool({ name: 'runs', arguments: {} })) as CallToolResult;
      expect(run.isError).toBeFalsy();
    });
    expect(ended.code, ended.stderr).toBe(0);
  });

  it('without a token, is the local user the command names, with only the features it names', async () => {
    const ended = await session(['--user', 'ann'], async (client) => {
      const hosts = hostsOf(await client.callTool({ name: 'hosts', arguments: {} }));
      expect(hosts).toContain('anns');
      expect(hosts).not.toContain('mine');
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('outbound_servers');
    });
    expect(ended.code, ended.stderr).toBe(0);
  });

  it('refuses an unknown token, and a token mixed with --user', async () => {
    expect(await cli(dataDir, ['mcp', '--token', 'inseam_not_a_real_token'])).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await cli(dataDir, ['mcp', '--token', token, '--user', 'ann'])).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
  });
});

describe('inseam mcp add|ls|rm', () => {
  it('adds stdio and streamable-http servers, lists them without secret values, removes them', async () => {
    const http = await cli(dataDir, ['mcp', 'add', 'remote', '--url', 'https://mcp.example.com/mcp', '--header', `Authorization=Bearer ${SECRET}`]);
    expect(http, http.stderr).toMatchObject({ code: 0, stdout: 'Added outbound MCP server remote (streamable-http) to network home.\n' });
    const stdio = await cli(dataDir, ['mcp', 'add', 'tool', '--command', 'node', '--arg', 'server.mjs', '--env', `TOKEN=${SECRET}`, '--json']);
    expect(JSON.parse(stdio.stdout)).toMatchObject({ id: 'tool', transport: 'stdio', command: 'node', args: ['server.mjs'], envNames: ['TOKEN'] });
    const listed = await cli(dataDir, ['mcp', 'ls']);
    expect(listed.stdout).toMatch(/^ID +TRANSPORT +TARGET +FROM\nremote +streamable-http +https:\/\/mcp\.example\.com\/mcp\ntool +stdio +node server\.mjs\n$/);
    expect(JSON.stringify([http, stdio, listed, await cli(dataDir, ['mcp', 'ls', '--json'])])).not.toContain(SECRET);
    expect(await cli(dataDir, ['mcp', 'rm', 'tool'])).toMatchObject({ code: 0 });
    expect(await cli(dataDir, ['mcp', 'rm', 'tool'])).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('refuses a definition with both a url and a command, and an in-process transport is not a choice', async () => {
    expect(await cli(dataDir, ['mcp', 'add', 'both', '--url', 'https://x.example/mcp', '--command', 'node'])).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    expect(await cli(dataDir, ['mcp', 'add', 'Bad Id', '--url', 'https://x.example/mcp'])).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
  });
});
