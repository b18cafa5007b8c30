/**
 * Defaults a person would choose, tested with the attack that was reproduced: a token made with
 * `inseam token create --agent helper` and no features recursively deleted 450 files of a folder
 * host. A person sets everything up with the CLI on a data directory (a host with no flags, one
 * with `--writable`, agent tokens with and without grants); the real server then serves that
 * directory on loopback and the agent attacks over `/v1` and over `/mcp` with the MCP SDK client.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cli } from '../cli/commands/__fixtures__/cli.js';
import { openPlatform, type Platform } from '../platform/index.js';
import { removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { call, q } from './__fixtures__/api.js';
import { createServer } from './server.js';

const FILE_COUNT = 450;

let dataDir: string;
let folder: string;
let work: string;
let platform: Platform;
let app: FastifyInstance;
let url: string;
const secrets: Record<string, string> = {};
const clients: Client[] = [];

const run = (...args: string[]) => cli(dataDir, args);

async function makeToken(name: string, ...args: string[]): Promise<string> {
  const made = await run('token', 'create', '--name', name, '--user', 'ann', ...args);
  expect(made.code, made.stderr).toBe(0);
  return made.stdout.trim();
}

beforeAll(async () => {
  dataDir = await tempDir('grants');
  folder = await tempDir('grants-files');
  work = await tempDir('grants-work');
  const many = Object.fromEntries(Array.from({ length: FILE_COUNT }, (_, index) => [`archive/${String(index).padStart(3, '0')}.txt`, `file ${index}\n`]));
  await writeFiles(folder, { ...many, 'readme.md': '# files\n' });
  await writeFiles(work, { ...many, 'drafts/old/a.md': 'old\n', 'drafts/keep.md': 'keep\n' });
  expect((await run('network', 'init', 'home')).code).toBe(0);
  const plain = await run('host', 'add', 'home/files', '--kind', 'fs', '--config', JSON.stringify({ root: folder }));
  expect(plain.code, plain.stderr).toBe(0);
  const writable = await run('host', 'add', 'home/work', '--kind', 'fs', '--config', JSON.stringify({ root: work }), '--writable');
  expect(writable.code, writable.stderr).toBe(0);
  secrets['helper'] = await makeToken('helper', '--agent', 'helper');
  secrets['drafter'] = await makeToken('drafter', '--agent', 'drafter', '--grant', 'write,delete:inseam://home/work/drafts');
  secrets['person'] = await makeToken('person');
  platform = await openPlatform({ dataDir, env: {} });
  app = await createServer({ platform, mcp: {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await app?.close();
  await platform?.close();
  await removeDir(dataDir);
  await removeDir(folder);
  await removeDir(work);
});

async function mcp(secret: string): Promise<Client> {
  const client = new Client({ name: 'grants', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  clients.push(client);
  return client;
}

const count = (root: string, sub: string): number => readdirSync(join(root, sub)).length;

describe('a host added with no flags', () => {
  it('is read only, and says so', async () => {
    const shown = JSON.parse((await run('host', 'show', 'home/files', '--json')).stdout);
    expect(shown.permissions).toEqual({ default: { read: true, write: false, exec: false } });
    expect(JSON.parse((await run('host', 'show', 'home/work', '--json')).stdout).permissions).toEqual({ default: { read: true, write: true, exec: false } });
    const refused = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/files/archive')}&recursive=true`, { token: secrets['person'] });
    expect(refused.status).toBe(403);
    expect(refused.json().error.details).toMatchObject({ right: 'delete', host: 'files' });
    expect(count(folder, 'archive')).toBe(FILE_COUNT);
  });
});

describe('the reported attack: an agent token without features on a writable folder', () => {
  it('cannot delete recursively over HTTP: 403 naming the missing grant, all 450 files still there', async () => {
    const answer = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/work/archive')}&recursive=true`, { token: secrets['helper'] });
    expect(answer.status).toBe(403);
    expect(answer.json().error.details).toMatchObject({ reason: 'no_grant', right: 'delete' });
    expect(count(work, 'archive')).toBe(FILE_COUNT);
    const one = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/work/archive/000.txt')}`, { token: secrets['helper'] });
    expect(one.status).toBe(403);
    const written = await call({ url }, 'PUT', `/v1/fs/write?address=${q('inseam://home/work/archive/000.txt')}`, { token: secrets['helper'], body: 'overwritten' });
    expect(written.status).toBe(403);
    expect(existsSync(join(work, 'archive', '000.txt'))).toBe(true);
  });

  it('cannot over MCP either: the write and delete tools are not offered, and a call is refused', async () => {
    const client = await mcp(secrets['helper']!);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['read', 'list', 'search']));
    expect(names).not.toContain('delete');
    expect(names).not.toContain('write');
    expect(names).not.toContain('exec');
    const result = (await client.callTool({ name: 'delete', arguments: { address: 'inseam://home/work/archive', recursive: true } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string; details: { reason: string } } }).error).toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant' } });
    expect(count(work, 'archive')).toBe(FILE_COUNT);
    // Reading is the tree's alone: no grant needed.
    const read = (await client.callTool({ name: 'read', arguments: { address: 'inseam://home/work/archive/001.txt' } })) as CallToolResult;
    expect(read.content).toEqual([{ type: 'text', text: 'file 1\n' }]);
  });
});

describe('an agent token with grants', () => {
  it('writes and deletes inside its grant only, over HTTP and MCP', async () => {
    const inside = await call({ url }, 'PUT', `/v1/fs/write?address=${q('inseam://home/work/drafts/new.md')}`, { token: secrets['drafter'], body: 'new' });
    expect(inside.status, inside.text).toBe(200);
    const removed = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/work/drafts/old')}&recursive=true`, { token: secrets['drafter'] });
    expect(removed.status, removed.text).toBe(204);
    expect(existsSync(join(work, 'drafts', 'old'))).toBe(false);
    const outside = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/work/archive')}&recursive=true`, { token: secrets['drafter'] });
    expect(outside.status).toBe(403);
    expect(outside.json().error.details).toMatchObject({ reason: 'no_grant', right: 'delete' });
    // A grant is whole segments: drafts does not reach drafts-old.
    const sibling = await call({ url }, 'PUT', `/v1/fs/write?address=${q('inseam://home/work/drafts-old/x.md')}`, { token: secrets['drafter'], body: 'x' });
    expect(sibling.status).toBe(403);
    // A grant never beats the host's tree: files is read only for everyone.
    const client = await mcp(secrets['drafter']!);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['write', 'delete']));
    const tree = (await client.callTool({ name: 'write', arguments: { address: 'inseam://home/work/archive/000.txt', content: 'x' } })) as CallToolResult;
    expect((tree.structuredContent as { error: { details: { reason: string } } }).error.details.reason).toBe('no_grant');
    const ok = (await client.callTool({ name: 'write', arguments: { address: 'inseam://home/work/drafts/mcp.md', content: 'via mcp' } })) as CallToolResult;
    expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
    expect(count(work, 'archive')).toBe(FILE_COUNT);
  });

  it("keeps a person's token as it was: the host's tree decides", async () => {
    const answer = await call({ url }, 'DELETE', `/v1/fs/delete?address=${q('inseam://home/work/archive/449.txt')}`, { token: secrets['person'] });
    expect(answer.status, answer.text).toBe(204);
    expect(count(work, 'archive')).toBe(FILE_COUNT - 1);
  });
});

describe('grants on the command line', () => {
  it('lists them, and refuses a person token with grants and every malformed grant', async () => {
    const listed = JSON.parse((await run('token', 'ls', '--user', 'ann', '--json')).stdout) as { name: string; grants: { right: string; address: string }[] }[];
    expect(listed.find((token) => token.name === 'drafter')?.grants).toEqual([
      { right: 'delete', address: 'inseam://home/work/drafts' },
      { right: 'write', address: 'inseam://home/work/drafts' },
    ]);
    expect(listed.find((token) => token.name === 'helper')?.grants).toEqual([]);
    expect((await run('token', 'ls', '--user', 'ann')).stdout).toMatch(/drafter +drafter +\* +- +delete:inseam:\/\/home\/work\/drafts, write:inseam:\/\/home\/work\/drafts/);
    const person = await run('token', 'create', '--name', 'x', '--grant', 'write:inseam://home/work');
    expect(person).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    const hostile = [
      'read:inseam://home/work',
      'write',
      'write:',
      ':inseam://home/work',
      'write,:inseam://home/work',
      'admin:inseam://home/work',
      'write:work://drafts',
      'write:inseam://HOME/work',
      'write:inseam://home/work/../../etc',
      'write:inseam://home/',
      'write:/etc/passwd',
    ];
    for (const grant of hostile) {
      const made = await run('token', 'create', '--name', 'bad', '--agent', 'helper', '--grant', grant);
      expect(made.code, grant).toBe(2);
      expect(made.stderr, grant).toContain('[invalid_argument]');
      expect(made.stdout, grant).toBe('');
    }
    const limited = await run('token', 'create', '--name', 'other-net', '--agent', 'helper', '--network', 'home', '--grant', 'write:inseam://work/box/');
    expect(limited).toMatchObject({ code: 2, stderr: expect.stringContaining('works in network "home" only') });
    // Every refusal stored nothing.
    expect((JSON.parse((await run('token', 'ls', '--user', 'ann', '--json')).stdout) as unknown[]).length).toBe(3);
  });

  it('turns writes on for a host later, a person\'s act over HTTP too', async () => {
    const agentTry = await call({ url }, 'PUT', '/v1/hosts/home/files/permissions', { token: await makeToken('agent-manager', '--agent', 'helper', '--features', 'hosts.manage'), body: { writable: true } });
    expect(agentTry.status).toBe(403);
    expect(agentTry.json().error.details.reason).toBe('agent_cannot_act');
    const changed = await run('host', 'permissions', 'home/files', '--writable');
    expect(changed.code, changed.stderr).toBe(0);
    const written = await call({ url }, 'PUT', `/v1/fs/write?address=${q('inseam://home/files/new.md')}`, { token: secrets['person'], body: 'now writable' });
    expect(written.status, written.text).toBe(200);
    const manager = await makeToken('manager', '--features', 'hosts.manage');
    const back = await call({ url }, 'PUT', '/v1/hosts/home/files/permissions', { token: manager, body: { writable: false } });
    expect(back.status, back.text).toBe(200);
    expect(back.json().permissions).toEqual({ default: { read: true, write: false, exec: false } });
    expect((await call({ url }, 'PUT', `/v1/fs/write?address=${q('inseam://home/files/new.md')}`, { token: secrets['person'], body: 'again' })).status).toBe(403);
    expect((await call({ url }, 'PUT', '/v1/hosts/home/files/permissions', { token: manager, body: {} })).status).toBe(400);
  });
});
