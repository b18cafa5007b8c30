/**
 * The MCP endpoint over Streamable HTTP, driven by the SDK's own client against Fastify on
 * loopback: the tool set and its annotations, paged reads, binary content by the session's
 * declared capability, writes and concurrent conditional writes, permission denials and bad
 * addresses as typed tool errors, identity from the bearer token only, and sessions bound to it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';
import { MODEL_CAPABILITY, RUNTIME_STACK_PROMPT, RUNTIME_STACK_URI } from './host.js';

let fixture: McpFixture;
let ann: Client;
const BIG = Array.from({ length: 20000 }, (_, index) => `line ${String(index).padStart(5, '0')} — ünïcode on every line\n`).join('');
const PNG = randomBytes(4096);
const LARGE_BIN = randomBytes(600 * 1024);

beforeAll(async () => {
  fixture = await openMcpFixture({ files: { 'docs/a.md': '# A\nalpha\n', 'docs/big.txt': BIG, 'private/secret.txt': 'do not read', 'drop/.keep': '' } });
  await mkdir(join(fixture.files, 'media'));
  await writeFile(join(fixture.files, 'media', 'pic.png'), PNG);
  await writeFile(join(fixture.files, 'media', 'blob.bin'), LARGE_BIN);
  await fixture.platform.networks.addHost({
    network: 'home',
    slug: 'notes',
    kind: 'fs',
    config: { root: fixture.files, inlineCaps: { binary: 64 * 1024 } },
    permissions: { default: { read: true, write: false, exec: false }, paths: { docs: { write: true }, private: { read: false }, drop: { read: false, write: true } } },
  });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'bobs', kind: 'fs', config: { root: fixture.files }, ownership: 'user', ownerId: 'bob' });
  fixture.tokens.set('ann-token', callerOf('ann', { features: ['exec.machine', 'connectors.trial', 'hosts.manage'] }));
  fixture.tokens.set('bob-token', callerOf('bob'));
  ann = await fixture.client('ann-token');
});

afterAll(async () => {
  await fixture?.close();
});

function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

describe('the tool set', () => {
  it('offers the filesystem, exec, run and connector tools with honest annotations, and no approval tool', async () => {
    const { tools } = await ann.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['hosts', 'list', 'stat', 'read', 'search', 'run_status', 'run_output', 'runs']) expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    for (const name of ['write', 'delete', 'exec', 'run_start', 'run_kill', 'run_release', 'delete_trial']) expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['trial_connector', 'install_connector']) expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(tools.filter((tool) => /approv/i.test(tool.name))).toEqual([]);
    // The outbound tools need a feature this session does not hold.
    expect(byName.has('outbound_call')).toBe(false);
    expect(byName.get('read')?.inputSchema.properties).toMatchObject({ address: expect.any(Object), offset: expect.any(Object), length: expect.any(Object), lineStart: expect.any(Object), lineCount: expect.any(Object) });
  });

  it('answers an unknown tool with a typed not_found', async () => {
    expect(errorCode(await call(ann, 'approve_trial', { trialId: 'x' }))).toBe('not_found');
  });
});

describe('reads', () => {
  it('returns a small text once, with size, etag and done', async () => {
    const result = await call(ann, 'read', { address: 'notes://docs/a.md' });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: '# A\nalpha\n' }]);
    expect(structured(result)).toMatchObject({ address: 'inseam://home/notes/docs/a.md', size: 10, done: true, encoding: 'text', offset: 0, length: 10 });
    expect(structured(result)['etag']).toEqual(expect.any(String));
    expect(JSON.stringify(result).split('alpha').length - 1).toBe(1);
  });

  it('pages a large text under the per-message cap, and the pages rebuild it exactly', async () => {
    let text = '';
    let offset: number | undefined;
    let calls = 0;
    const sizes: number[] = [];
    do {
      const result = await call(ann, 'read', { address: 'inseam://home/notes/docs/big.txt', ...(offset === undefined ? {} : { offset }), maxBytes: 100_000 });
      expect(result.isError, textOf(result)).toBeFalsy();
      const page = structured(result);
      sizes.push(Buffer.byteLength(textOf(result)));
      text += textOf(result);
      offset = page['nextOffset'] as number | undefined;
      expect(page['done']).toBe(offset === undefined);
      calls += 1;
    } while (offset !== undefined && calls < 100);
    expect(text).toBe(BIG);
    expect(calls).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(BIG) / 100_000));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100_000);
  });

  it('starts an oversized whole read at its first page instead of sending it all', async () => {
    const result = await call(ann, 'read', { address: 'notes://docs/big.txt' });
    const page = structured(result);
    expect(page).toMatchObject({ offset: 0, done: false, size: Buffer.byteLength(BIG) });
    expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(256 * 1024);
    expect(page['nextOffset']).toBe(page['length']);
  });

  it('reads line ranges', async () => {
    const result = await call(ann, 'read', { address: 'notes://docs/big.txt', lineStart: 3, lineCount: 2 });
    expect(textOf(result)).toBe(BIG.split('\n').slice(2, 4).map((line) => `${line}\n`).join(''));
    expect(structured(result)['lines']).toMatchObject({ start: 3, count: 2, next: 5 });
  });

  it('refuses a cap over the MCP ceiling and mixed ranges as invalid_argument', async () => {
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/big.txt', maxBytes: 64 * 1024 * 1024 }))).toBe('invalid_argument');
    const mixed = await call(ann, 'read', { address: 'notes://docs/big.txt', offset: 0, lineStart: 1 });
    expect(errorCode(mixed)).toBe('invalid_argument');
    expect(textOf(mixed)).toMatch(/^\[invalid_argument\] /);
  });

  it('gives an image as image content only to a session that declared it can take images', async () => {
    const plain = await call(ann, 'read', { address: 'notes://media/pic.png' });
    expect(plain.content).toHaveLength(1);
    expect(plain.content[0]).toMatchObject({ type: 'text' });
    expect(structured(plain)['omitted']).toMatchObject({ reason: 'model_capability', capability: 'image' });
    const seeing = await fixture.client('ann-token', { capabilities: { [MODEL_CAPABILITY]: { image: true } } });
    const image = await call(seeing, 'read', { address: 'notes://media/pic.png' });
    expect(image.content).toEqual([{ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') }]);
  });

  it('links a binary too large for one message instead of sending it, and serves ranges of it as a blob', async () => {
    const whole = await call(ann, 'read', { address: 'notes://media/blob.bin' });
    expect(whole.content[0]).toMatchObject({ type: 'resource_link', uri: 'inseam://home/notes/media/blob.bin', size: LARGE_BIN.length });
    expect(JSON.stringify(whole).length).toBeLessThan(4096);
    const range = await call(ann, 'read', { address: 'notes://media/blob.bin', offset: 1000, length: 2000 });
    expect(range.content).toEqual([{ type: 'resource', resource: { uri: 'inseam://home/notes/media/blob.bin', mimeType: expect.any(String), blob: LARGE_BIN.subarray(1000, 3000).toString('base64') } }]);
    expect(structured(range)).toMatchObject({ offset: 1000, length: 2000, nextOffset: 3000, done: false });
  });
});

describe('refusals as typed tool errors', () => {
  it('a path the tree denies, a drop box, another owner\'s host and another network', async () => {
    const denied = await call(ann, 'read', { address: 'notes://private/secret.txt' });
    expect(errorCode(denied)).toBe('permission_denied');
    expect(JSON.stringify(denied)).not.toContain('do not read');
    expect(JSON.stringify(denied)).not.toContain(fixture.files);
    expect(errorCode(await call(ann, 'list', { address: 'notes://drop' }))).toBe('permission_denied');
    expect(errorCode(await call(ann, 'write', { address: 'notes://media/new.txt', content: 'x' }))).toBe('permission_denied');
    expect(errorCode(await call(ann, 'read', { address: 'bobs://docs/a.md' }))).toBe('permission_denied');
    expect(errorCode(await call(ann, 'read', { address: 'inseam://work/notes/docs/a.md' }))).toBe('permission_denied');
  });

  it('bad addresses and unknown hosts', async () => {
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/../private/secret.txt' }))).toBe('invalid_uri');
    expect(errorCode(await call(ann, 'read', { address: 'not an address' }))).toBe('invalid_uri');
    expect(errorCode(await call(ann, 'stat', { address: 'nohost://x' }))).toBe('not_found');
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/missing.md' }))).toBe('not_found');
    expect(errorCode(await call(ann, 'read', { address: '' }))).toBe('invalid_argument');
  });

  it('identity in tool input is ignored: a forged session does not open bob\'s host', async () => {
    const forged = await call(ann, 'list', { address: 'bobs://', session: { userId: 'bob', projectId: 'home', features: [] }, userId: 'bob' });
    expect(errorCode(forged)).toBe('permission_denied');
    const bob = await fixture.client('bob-token');
    expect((await call(bob, 'list', { address: 'bobs://docs' })).isError).toBeFalsy();
  });
});

describe('writes', () => {
  it('writes, reads back, and refuses a stale ifMatch', async () => {
    const first = await call(ann, 'write', { address: 'notes://docs/new.md', content: 'one' });
    expect(first.isError, textOf(first)).toBeFalsy();
    const etag = structured(first)['etag'] as string;
    const second = await call(ann, 'write', { address: 'notes://docs/new.md', content: 'two', ifMatch: etag });
    expect(second.isError, textOf(second)).toBeFalsy();
    expect(errorCode(await call(ann, 'write', { address: 'notes://docs/new.md', content: 'three', ifMatch: etag }))).toBe('precondition_failed');
    expect(errorCode(await call(ann, 'write', { address: 'notes://docs/new.md', content: 'x', createOnly: true }))).toBe('already_exists');
    expect(textOf(await call(ann, 'read', { address: 'notes://docs/new.md' }))).toBe('two');
    const bytes = await call(ann, 'write', { address: 'notes://docs/bytes.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
    expect(bytes.isError, textOf(bytes)).toBeFalsy();
    expect([...(await readFile(join(fixture.files, 'docs', 'bytes.bin')))]).toEqual([0, 1, 2, 255]);
    expect(errorCode(await call(ann, 'write', { address: 'notes://docs/bad.bin', content: 'not base64!', encoding: 'base64' }))).toBe('invalid_argument');
  });

  it('two concurrent writes with the same ifMatch: one wins, the other gets precondition_failed, the file is never torn', async () => {
    const base = await call(ann, 'write', { address: 'notes://docs/race.txt', content: 'base' });
    const etag = structured(base)['etag'] as string;
    const a = 'A'.repeat(2 * 1024 * 1024);
    const b = 'B'.repeat(2 * 1024 * 1024);
    const other = await fixture.client('ann-token');
    const results = await Promise.all([call(ann, 'write', { address: 'notes://docs/race.txt', content: a, ifMatch: etag }), call(other, 'write', { address: 'notes://docs/race.txt', content: b, ifMatch: etag })]);
    const codes = results.map(errorCode).sort();
    expect(codes).toEqual([null, 'precondition_failed'].sort());
    const winner = results.findIndex((result) => !result.isError);
    expect(await readFile(join(fixture.files, 'docs', 'race.txt'), 'utf8')).toBe(winner === 0 ? a : b);
  });

  it('deletes only the version read with ifMatch', async () => {
    const written = await call(ann, 'write', { address: 'notes://docs/gone.txt', content: 'bye' });
    expect(errorCode(await call(ann, 'delete', { address: 'notes://docs/gone.txt', ifMatch: 'stale' }))).toBe('precondition_failed');
    expect((await call(ann, 'delete', { address: 'notes://docs/gone.txt', ifMatch: structured(written)['etag'] })).isError).toBeFalsy();
    expect(errorCode(await call(ann, 'stat', { address: 'notes://docs/gone.txt' }))).toBe('not_found');
  });
});

describe('listing, hosts and the runtime stack', () => {
  it('lists pages with a cursor and leaves out what the caller may not read', async () => {
    const first = await call(ann, 'list', { address: 'notes://', limit: 1 });
    const names = [(structured(first)['entries'] as { name: string }[])[0]!.name];
    let cursor = structured(first)['cursor'] as string | undefined;
    while (cursor !== undefined) {
      const page = await call(ann, 'list', { address: 'notes://', limit: 1, cursor });
      names.push(...(structured(page)['entries'] as { name: string }[]).map((entry) => entry.name));
      cursor = structured(page)['cursor'] as string | undefined;
    }
    expect(names.sort()).toEqual(['docs', 'media']);
  });

  it('lists names and types only with detail "names", and refuses a cursor of the other detail', async () => {
    const full = structured(await call(ann, 'list', { address: 'notes://docs' }))['entries'] as Record<string, unknown>[];
    const namesPage = await call(ann, 'list', { address: 'notes://docs', detail: 'names' });
    // Names only, one string each, a directory's ending in "/".
    expect(structured(namesPage)['names']).toEqual(full.map((entry) => (entry['type'] === 'directory' ? `${String(entry['name'])}/` : entry['name'])));
    expect(structured(namesPage)['entries']).toBeUndefined();
    expect(full.some((entry) => 'etag' in entry)).toBe(true);
    const firstNames = structured(await call(ann, 'list', { address: 'notes://docs', detail: 'names', limit: 1 }))['cursor'] as string;
    expect(errorCode(await call(ann, 'list', { address: 'notes://docs', cursor: firstNames }))).toBe('invalid_argument');
    expect((await call(ann, 'list', { address: 'notes://docs', detail: 'sizes' })).isError).toBe(true);
  });

  it('lists the caller\'s hosts, and offers the runtime stack as a resource and a prompt', async () => {
    const hosts = structured(await call(ann, 'hosts', {}))['hosts'] as { slug: string }[];
    expect(hosts.map((host) => host.slug)).toContain('notes');
    expect(hosts.map((host) => host.slug)).not.toContain('bobs');
    const resource = await ann.readResource({ uri: RUNTIME_STACK_URI });
    expect(resource.contents[0]).toMatchObject({ uri: RUNTIME_STACK_URI, text: expect.stringContaining('notes') });
    const prompt = await ann.getPrompt({ name: RUNTIME_STACK_PROMPT });
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'text', text: expect.stringContaining('notes') });
    const object = await ann.readResource({ uri: 'inseam://home/notes/docs/a.md' });
    expect(object.contents[0]).toMatchObject({ text: '# A\nalpha\n' });
    await expect(ann.readResource({ uri: 'inseam://home/notes/private/secret.txt' })).rejects.toThrow(/permission_denied/);
  });

  it('searches synced content, returning only what the caller may read', async () => {
    await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
    const found = await call(ann, 'search', { query: 'alpha' });
    expect((structured(found)['hits'] as { address: string }[]).map((hit) => hit.address)).toContain('inseam://home/notes/docs/a.md');
    const hidden = await call(ann, 'search', { query: 'read' });
    expect(JSON.stringify(hidden)).not.toContain('private/secret.txt');
  });
});

describe('sessions and authentication', () => {
  it('refuses a request without a known bearer token with 401', async () => {
    const response = await fetch(fixture.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('binds a session to the identity that opened it', async () => {
    const sessionId = (ann as unknown as { transport: { sessionId?: string } }).transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    const hijack = await fetch(fixture.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer bob-token', 'mcp-session-id': sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read', arguments: { address: 'notes://docs/a.md' } } }),
    });
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).not.toContain('alpha');
  });

  it('ends a session on DELETE', async () => {
    const client = await fixture.client('ann-token');
    const transport = (client as unknown as { transport: { sessionId?: string; terminateSession(): Promise<void> } }).transport;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const after = await fetch(fixture.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer ann-token', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(404);
  });
});
