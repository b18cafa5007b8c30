/**
 * inseam's own changes show at once: a write, a delete or a recursive delete made through `/v1`
 * or through `/mcp` (the SDK client) updates the catalog and search in the same operation — no
 * sync in between. 450 files deleted through the API are gone from search while stat says
 * not_found; an agent's new file is searchable when its write answers; and a hit the content
 * index still holds for an entry that is gone is never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sqliteOf, writeFiles } from '../platform/__fixtures__/platforms.js';
import { call, q, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
let agentToken: string;
let client: Client;
const ref = { network: 'home', host: 'files' };
const BULK = 450;

beforeAll(async () => {
  api = await startApi({ mcp: {} });
  await writeFiles(
    api.folder,
    Object.fromEntries(Array.from({ length: BULK }, (_, i) => [`bulk/f${String(i).padStart(3, '0')}.txt`, `bulkword number ${i}\n`])),
  );
  await writeFiles(api.folder, { 'tree/a/one.md': 'treeword one\n', 'tree/b/two.md': 'treeword two\n', 'tree/three.md': 'treeword three\n' });
  const run = await (await api.platform.sync(ref)).result;
  expect(run.state).toBe('completed');
  agentToken = (await api.tokens.create({ name: 'writer', userId: 'ann', agentId: 'scribe', network: 'home', grants: ['write:inseam://home/files/agent', 'delete:inseam://home/files/agent'] })).token;
  client = new Client({ name: 'own-changes', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await api?.close();
});

async function searchPaths(text: string, token = api.admin): Promise<{ paths: string[]; next?: string }> {
  const answer = await call(api, 'GET', `/v1/search?q=${encodeURIComponent(text)}&limit=100&mode=keyword`, { token });
  expect(answer.status, answer.text).toBe(200);
  const page = answer.json<{ hits: { path: string }[]; next?: string }>();
  return { paths: page.hits.map((hit) => hit.path).sort(), ...(page.next === undefined ? {} : { next: page.next }) };
}

async function tool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function noSyncRan(): Promise<number> {
  return api.platform.store.catalog.resolveHost(ref).then(async (hostId) => (await api.platform.store.catalog.listRuns(hostId!, 100)).length);
}

describe('writes and deletes made through inseam update the catalog and search at once', () => {
  it('an agent\'s new file is searchable when its write answers, over /v1 and over MCP', async () => {
    const runs = await noSyncRan();
    const put = await call(api, 'PUT', `/v1/fs/write?address=${q('files://agent/plan.md')}`, { token: agentToken, body: '# Plan\nThe zebracrossing survey.\n' });
    expect(put.status, put.text).toBe(200);
    expect((await searchPaths('zebracrossing', agentToken)).paths).toEqual(['agent/plan.md']);
    const written = await tool('write', { address: 'inseam://home/files/agent/notes.md', content: 'quokka sightings\n' });
    expect(written.isError ?? false, JSON.stringify(written.content)).toBe(false);
    const found = await tool('search', { query: 'quokka' });
    expect((found.structuredContent as { hits: { path: string }[] }).hits.map((hit) => hit.path)).toEqual(['agent/notes.md']);
    // A replacement is what search finds, not the old text.
    await call(api, 'PUT', `/v1/fs/write?address=${q('files://agent/plan.md')}`, { token: agentToken, body: 'The pelicancount instead.\n' });
    expect((await searchPaths('zebracrossing')).paths).toEqual([]);
    expect((await searchPaths('pelicancount')).paths).toEqual(['agent/plan.md']);
    expect(await noSyncRan()).toBe(runs);
  });

  it('450 files deleted through the API no longer appear in search, and stat says not_found', async () => {
    expect((await searchPaths('bulkword')).next).toBeDefined();
    for (let i = 0; i < BULK; i++) {
      const answer = await call(api, 'DELETE', `/v1/fs/delete?address=${q(`files://bulk/f${String(i).padStart(3, '0')}.txt`)}`, { token: api.admin });
      expect(answer.status, answer.text).toBe(204);
    }
    expect(await searchPaths('bulkword')).toEqual({ paths: [] });
    const stat = await call(api, 'GET', `/v1/fs/stat?address=${q('files://bulk/f123.txt')}`, { token: api.admin });
    expect(stat.status).toBe(404);
    expect(stat.json()).toMatchObject({ error: { code: 'not_found' } });
    const hostId = (await api.platform.store.catalog.resolveHost(ref))!;
    expect(await api.platform.store.catalog.listEntries(hostId, { prefix: 'bulk/' })).toEqual([]);
  }, 120_000);

  it('a recursive delete removes everything below from search; an MCP delete does too', async () => {
    expect((await searchPaths('treeword')).paths).toEqual(['tree/a/one.md', 'tree/b/two.md', 'tree/three.md']);
    const answer = await call(api, 'DELETE', `/v1/fs/delete?address=${q('files://tree')}&recursive=true`, { token: api.admin });
    expect(answer.status, answer.text).toBe(204);
    expect((await searchPaths('treeword')).paths).toEqual([]);

    const deleted = await tool('delete', { address: 'inseam://home/files/agent/notes.md' });
    expect(deleted.isError ?? false, JSON.stringify(deleted.content)).toBe(false);
    expect((await tool('search', { query: 'quokka' })).structuredContent).toMatchObject({ hits: [] });
    const stat = await tool('stat', { address: 'inseam://home/files/agent/notes.md' });
    expect(stat.isError).toBe(true);
    expect(JSON.stringify(stat.content)).toContain('not_found');
  });

  it('never returns a hit whose catalog entry is gone', async () => {
    // A content-index row left behind without its entry (a damaged or lagging index).
    sqliteOf(api.platform).prepare('INSERT INTO catalog_content (rowid, path, body) VALUES (999999, ?, ?)').run('ghost.md', 'phantomword left behind');
    expect((await searchPaths('phantomword')).paths).toEqual([]);
    expect((await tool('search', { query: 'phantomword' })).structuredContent).toMatchObject({ hits: [] });
  });
});
