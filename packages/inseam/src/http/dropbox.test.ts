/**
 * A write-only drop box (`write` without `read`) tells its droppers nothing about what is in it.
 * The reported oracle was `If-None-Match: *` answering 409 for a taken name; the others were the
 * write answer's etag, `If-Match`, the error of a name that is a folder or lies under a file, and
 * the answers of stat, read, list and delete. For each, two names are tried — one that exists and
 * one that does not — over `/v1` and over `/mcp` with the SDK client, and the two answers must be
 * the same but for the name; what was there is never replaced. (Timing is out of scope.)
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { writeFiles } from '../platform/__fixtures__/platforms.js';
import { call, q, startApi, type Answer, type Api } from './__fixtures__/api.js';

let api: Api;
let client: Client;

beforeAll(async () => {
  api = await startApi({ mcp: {}, permissions: { default: { read: true, write: false, exec: false }, paths: { drop: { read: false, write: true } } } });
  await writeFiles(api.folder, { 'drop/taken.txt': 'the original\n', 'drop/folder/inside.txt': 'inside\n', 'drop/plain': 'a file, not a folder\n' });
  client = new Client({ name: 'dropbox', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${api.reader}` } } }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await api?.close();
});

const drop = (path: string): string => `inseam://home/files/drop/${path}`;

/** What a dropper sees of an HTTP answer, with the name it used replaced by `NAME`. */
function seen(answer: Answer, name: string): unknown {
  return { status: answer.status, etag: answer.headers['etag'] ?? null, type: answer.headers['content-type'] ?? null, body: answer.text.split(name).join('NAME') };
}

function seenTool(result: CallToolResult, name: string): string {
  return JSON.stringify({ isError: result.isError ?? false, content: result.content, structured: result.structuredContent ?? null }).split(name).join('NAME');
}

async function both(send: (name: string) => Promise<Answer>, taken: string, free: string): Promise<void> {
  const [a, b] = [await send(taken), await send(free)];
  expect(seen(a, taken)).toEqual(seen(b, free));
}

async function bothTool(tool: string, args: (address: string) => Record<string, unknown>, taken: string, free: string): Promise<CallToolResult> {
  const a = (await client.callTool({ name: tool, arguments: args(drop(taken)) })) as CallToolResult;
  const b = (await client.callTool({ name: tool, arguments: args(drop(free)) })) as CallToolResult;
  expect(seenTool(a, taken)).toBe(seenTool(b, free));
  return a;
}

const put = (headers: Record<string, string> = {}) => (name: string) => call(api, 'PUT', `/v1/fs/write?address=${q(drop(name))}`, { token: api.reader, body: 'dropped\n', headers });
const names = (): string[] => readdirSync(join(api.folder, 'drop')).sort();

describe('a drop box over HTTP', () => {
  it('answers a write the same whether the name is taken, never replacing what is there', async () => {
    await both(put(), 'taken.txt', 'fresh.txt');
    expect(readFileSync(join(api.folder, 'drop', 'taken.txt'), 'utf8')).toBe('the original\n');
    expect(readFileSync(join(api.folder, 'drop', 'fresh.txt'), 'utf8')).toBe('dropped\n');
    // What was dropped on a taken name is kept beside it, for a reader of the box to find.
    const beside = names().filter((name) => /^taken~[0-9a-f]{8}\.txt$/.test(name));
    expect(beside).toHaveLength(1);
    expect(readFileSync(join(api.folder, 'drop', beside[0]!), 'utf8')).toBe('dropped\n');
  });

  it('answers If-None-Match: * the same (the reported 409 oracle), and a write answer carries no etag', async () => {
    const a = await put({ 'if-none-match': '*' })('taken.txt');
    const b = await put({ 'if-none-match': '*' })('fresh-2.txt');
    expect(a.status).toBe(201);
    expect(a.headers['etag']).toBeUndefined();
    expect(seen(a, 'taken.txt')).toEqual(seen(b, 'fresh-2.txt'));
    expect(readFileSync(join(api.folder, 'drop', 'taken.txt'), 'utf8')).toBe('the original\n');
  });

  it('refuses If-Match the same way for a taken and a free name', async () => {
    await both(put({ 'if-match': '"abc"' }), 'taken.txt', 'never.txt');
    expect((await put({ 'if-match': '"abc"' })('taken.txt')).json().error).toMatchObject({ code: 'permission_denied', details: { reason: 'write_only' } });
    await both(put({ 'if-match': '*' }), 'taken.txt', 'never.txt');
  });

  it('answers the same for a name that is a folder, or lies under a file, and leaves both as they were', async () => {
    await both(put(), 'folder', 'no-folder');
    expect(statSync(join(api.folder, 'drop', 'folder')).isDirectory()).toBe(true);
    await both((name) => put()(`${name}/child.txt`), 'plain', 'no-plain');
    expect(readFileSync(join(api.folder, 'drop', 'plain'), 'utf8')).toBe('a file, not a folder\n');
  });

  it('answers stat, read, list and delete the same, and deletes nothing', async () => {
    for (const path of ['/v1/fs/stat', '/v1/fs/read', '/v1/fs/list']) {
      await both((name) => call(api, 'GET', `${path}?address=${q(drop(name))}`, { token: api.reader }), 'taken.txt', 'never.txt');
    }
    await both((name) => call(api, 'DELETE', `/v1/fs/delete?address=${q(drop(name))}`, { token: api.reader }), 'taken.txt', 'never.txt');
    await both((name) => call(api, 'DELETE', `/v1/fs/delete?address=${q(drop(name))}&recursive=true`, { token: api.reader }), 'folder', 'never');
    expect(names()).toEqual(expect.arrayContaining(['folder', 'plain', 'taken.txt']));
    // Listing the folder above does not show the box's names either.
    const root = await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}`, { token: api.reader });
    expect(root.json().entries.map((entry: { name: string }) => entry.name)).not.toContain('drop');
  });
});

describe('a drop box over MCP', () => {
  it('answers write, createOnly and ifMatch the same whether the name is taken', async () => {
    const written = await bothTool('write', (address) => ({ address, content: 'by mcp\n' }), 'taken.txt', 'mcp-fresh.txt');
    expect(written.isError).toBeFalsy();
    expect(JSON.stringify(written.structuredContent)).not.toContain('etag');
    await bothTool('write', (address) => ({ address, content: 'by mcp\n', createOnly: true }), 'taken.txt', 'mcp-fresh-2.txt');
    const conditional = await bothTool('write', (address) => ({ address, content: 'x', ifMatch: 'abc' }), 'taken.txt', 'mcp-never.txt');
    expect(conditional.isError).toBe(true);
    await bothTool('write', (address) => ({ address: `${address}/child.txt`, content: 'x' }), 'plain', 'mcp-no-plain');
    expect(readFileSync(join(api.folder, 'drop', 'taken.txt'), 'utf8')).toBe('the original\n');
    expect(readFileSync(join(api.folder, 'drop', 'mcp-fresh.txt'), 'utf8')).toBe('by mcp\n');
  });

  it('answers stat, read, list and delete the same, and deletes nothing', async () => {
    for (const tool of ['stat', 'read', 'list', 'delete']) {
      const result = await bothTool(tool, (address) => ({ address }), 'taken.txt', 'mcp-never.txt');
      expect(result.isError, tool).toBe(true);
    }
    expect(readFileSync(join(api.folder, 'drop', 'taken.txt'), 'utf8')).toBe('the original\n');
  });
});
