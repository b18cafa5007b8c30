/**
 * Bad input on the MCP endpoint of the real server (`createServer`, as `inseam up` serves it):
 * the input it shares with `/v1` — the JSON body, a search query, a write — is refused the same
 * way. Wrong types in tool arguments are typed `invalid_argument` tool errors naming the field,
 * never coerced; a key given twice anywhere in the JSON-RPC body is refused before any tool runs;
 * a body without Content-Type is 415 `unsupported_media_type`. Nothing refused is written.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  api = await startApi({ mcp: {} });
  client = new Client({ name: 'refusals-test', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${api.admin}` } } });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await api?.close();
});

async function tool(name: string, args: Record<string, unknown>): Promise<{ code: string | null; details: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError !== true) return { code: null, details: result.structuredContent };
  const error = (result.structuredContent as { error?: { code?: string; details?: unknown } } | undefined)?.error;
  return { code: error?.code ?? null, details: error?.details };
}

async function exists(path: string): Promise<boolean> {
  return stat(join(api.folder, path)).then(
    () => true,
    () => false,
  );
}

/** A JSON-RPC request written by hand on the session the SDK client opened. */
function rpc(text: string, headers: Record<string, string> = { 'content-type': 'application/json' }): ReturnType<typeof call> {
  return call(api, 'POST', '/mcp', {
    token: api.admin,
    body: text,
    headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18', ...headers },
  });
}

describe('MCP tool arguments: wrong types refused, not coerced', () => {
  it('search: a list for the query, text for the limit, a query over the limit', async () => {
    expect(await tool('search', { query: ['harbour'] })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('search', { query: 'harbour', limit: '5' })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('search', { query: 123 })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('search', { query: 'a'.repeat(100_000) })).toMatchObject({ code: 'invalid_argument' });
    // The same words, typed right, are a search.
    expect(await tool('search', { query: 'harbour', limit: 5 })).toMatchObject({ code: null });
  });

  it('write: a number for the content, a list for the address — nothing written', async () => {
    expect(await tool('write', { address: 'files://notes/typed.txt', content: 123 })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('write', { address: ['files://notes/typed.txt'], content: 'x' })).toMatchObject({ code: 'invalid_argument' });
    expect(await exists('notes/typed.txt')).toBe(false);
    expect(await tool('write', { address: 'files://notes/typed.txt', content: '123' })).toMatchObject({ code: null });
    expect(await exists('notes/typed.txt')).toBe(true);
  });

  it('move and mkdir: text for a boolean, a list or a number for an address — nothing moved or made', async () => {
    expect(await tool('move', { from: 'files://notes/a.txt', to: 'files://notes/moved.txt', createOnly: 'true' })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('move', { from: ['files://notes/a.txt'], to: 'files://notes/moved.txt' })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('copy', { from: 'files://notes', to: 'files://copied', recursive: 1 })).toMatchObject({ code: 'invalid_argument' });
    expect(await tool('mkdir', { address: 42 })).toMatchObject({ code: 'invalid_argument' });
    for (const path of ['notes/moved.txt', 'copied', '42']) expect(await exists(path), path).toBe(false);
    expect(await exists('notes/a.txt')).toBe(true);
    expect(await tool('move', { from: 'files://notes/a.txt', to: 'files://notes/moved.txt', createOnly: true })).toMatchObject({ code: null });
    expect(await exists('notes/moved.txt')).toBe(true);
    expect(await exists('notes/a.txt')).toBe(false);
  });
});

describe('the JSON-RPC body: parsed as strictly as /v1', () => {
  it('refuses a key given twice in the tool arguments, and runs nothing', async () => {
    const answer = await rpc(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{"address":"files://notes/twice.txt","content":"first","address":"files://notes/other.txt"}}}',
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 'invalid_argument', details: { argument: 'body.params.arguments.address', reason: 'duplicate_key' } });
    expect(await exists('notes/twice.txt')).toBe(false);
    expect(await exists('notes/other.txt')).toBe(false);
    // The same request with the key once writes: the refusal above is the duplicate's.
    const once = await rpc('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write","arguments":{"address":"files://notes/twice.txt","content":"first"}}}');
    expect(once.status, once.text).toBe(200);
    expect(await exists('notes/twice.txt')).toBe(true);
  });

  it('refuses a body without Content-Type as 415 unsupported_media_type', async () => {
    const answer = await rpc('{"jsonrpc":"2.0","id":8,"method":"tools/list"}', {});
    expect(answer.status, answer.text).toBe(415);
    expect(answer.json().error).toMatchObject({ code: 'unsupported_media_type' });
  });
});
