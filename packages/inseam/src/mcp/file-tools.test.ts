/**
 * The agent's everyday file tools through the SDK's own client against a real folder host: edit
 * (replacements, diff, refusals, the etag condition, the write right), tree, find over the live
 * listing, multi-path reads, head and tail, search's generated filter help, the description of a
 * host nobody described, and which of these a session without write rights is offered.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeFolder } from '@inseam/connector-fs';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { OPS_BY_TYPE } from '../scope/index.js';
import { WHERE_OPERATORS } from '../search/index.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';

let fixture: McpFixture;
let ann: Client;
const LINES = Array.from({ length: 500 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

beforeAll(async () => {
  fixture = await openMcpFixture({
    files: {
      'docs/a.md': '# A\nalpha\nbeta\ngamma\n',
      'docs/dup.md': 'same\nsame\n',
      'docs/lines.txt': LINES,
      'docs/deep/one/two/three.md': 'deep',
      'docs/deep/one/note.txt': 'note',
      'media/readme.md': 'read only here',
      'private/secret.md': 'hidden',
    },
  });
  await fixture.platform.networks.addHost({
    network: 'home',
    slug: 'notes',
    kind: 'fs',
    config: { root: fixture.files },
    permissions: { default: { read: true, write: false, exec: false }, paths: { docs: { write: true }, private: { read: false } } },
  });
  fixture.tokens.set('ann-token', callerOf('ann'));
  fixture.tokens.set('bot-token', callerOf('ann', { agentId: 'bot' }));
  fixture.tokens.set('writer-token', callerOf('ann', { agentId: 'writer', grants: [{ right: 'write', address: 'inseam://home/notes/docs' }] }));
  ann = await fixture.client('ann-token');
});

afterAll(async () => {
  await fixture?.close();
});

function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

async function onDisk(path: string): Promise<string> {
  return readFile(join(fixture.files, ...path.split('/')), 'utf8');
}

describe('edit', () => {
  it('replaces exact text, answers with a unified diff and the new etag, and the catalog follows', async () => {
    const before = structured(await call(ann, 'stat', { address: 'notes://docs/a.md' }))['etag'];
    const result = await call(ann, 'edit', { address: 'notes://docs/a.md', edits: [{ oldText: 'beta', newText: 'BETA' }, { oldText: 'gamma\n', newText: 'gamma\ndelta\n' }] });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(await onDisk('docs/a.md')).toBe('# A\nalpha\nBETA\ngamma\ndelta\n');
    expect(textOf(result)).toContain(['--- a/docs/a.md', '+++ b/docs/a.md', '@@ -1,4 +1,5 @@', ' # A', ' alpha', '-beta', '+BETA', ' gamma', '+delta'].join('\n'));
    const after = structured(result);
    expect(after).toMatchObject({ address: 'inseam://home/notes/docs/a.md', written: true, edits: 2 });
    expect(after['etag']).toEqual(expect.any(String));
    expect(after['etag']).not.toBe(before);
    // Written through the service's write: the catalog has the new text at once.
    const found = await call(ann, 'search', { query: 'delta' });
    expect((structured(found)['hits'] as { address: string }[]).map((hit) => hit.address)).toContain('inseam://home/notes/docs/a.md');
  });

  it('refuses text that is not there or not unique, writing nothing', async () => {
    const missing = await call(ann, 'edit', { address: 'notes://docs/dup.md', edits: [{ oldText: 'absent', newText: 'x' }] });
    expect(errorCode(missing)).toBe('precondition_failed');
    expect(structured(missing)['error']).toMatchObject({ details: { reason: 'text_not_found', edit: 0 } });
    const twice = await call(ann, 'edit', { address: 'notes://docs/dup.md', edits: [{ oldText: 'same', newText: 'other' }] });
    expect(errorCode(twice)).toBe('precondition_failed');
    expect(structured(twice)['error']).toMatchObject({ details: { reason: 'text_not_unique', edit: 0 } });
    // A later edit that fails leaves the earlier ones unwritten too.
    const partial = await call(ann, 'edit', { address: 'notes://docs/dup.md', edits: [{ oldText: 'same\nsame', newText: 'one\ntwo' }, { oldText: 'same', newText: 'x' }] });
    expect(structured(partial)['error']).toMatchObject({ details: { reason: 'text_not_found', edit: 1 } });
    expect(await onDisk('docs/dup.md')).toBe('same\nsame\n');
  });

  it('is conditional on the etag: a stale ifMatch, or a change between read and write, is precondition_failed', async () => {
    const first = await call(ann, 'write', { address: 'notes://docs/cond.md', content: 'v1\n' });
    const etag = structured(first)['etag'] as string;
    await writeFile(join(fixture.files, 'docs', 'cond.md'), 'v2 from elsewhere\n');
    const stale = await call(ann, 'edit', { address: 'notes://docs/cond.md', ifMatch: etag, edits: [{ oldText: 'v2', newText: 'v3' }] });
    expect(errorCode(stale)).toBe('precondition_failed');
    expect(await onDisk('docs/cond.md')).toBe('v2 from elsewhere\n');
    const current = structured(await call(ann, 'stat', { address: 'notes://docs/cond.md' }))['etag'] as string;
    const fresh = await call(ann, 'edit', { address: 'notes://docs/cond.md', ifMatch: current, edits: [{ oldText: 'v2', newText: 'v3' }] });
    expect(fresh.isError, textOf(fresh)).toBeFalsy();
    expect(await onDisk('docs/cond.md')).toBe('v3 from elsewhere\n');
  });

  it('shows a dry run without writing', async () => {
    const dry = await call(ann, 'edit', { address: 'notes://docs/dup.md', dryRun: true, edits: [{ oldText: 'same\nsame\n', newText: 'same\n' }] });
    expect(dry.isError, textOf(dry)).toBeFalsy();
    expect(textOf(dry)).toContain('@@ -1,2 +1,1 @@\n same\n-same\n');
    expect(structured(dry)['written']).toBe(false);
    expect(await onDisk('docs/dup.md')).toBe('same\nsame\n');
  });

  it('needs the write right where it edits, and a write grant for an agent; the tool is not offered without one', async () => {
    expect(errorCode(await call(ann, 'edit', { address: 'notes://media/readme.md', edits: [{ oldText: 'read', newText: 'write' }] }))).toBe('permission_denied');
    expect(await onDisk('media/readme.md')).toBe('read only here');
    expect(errorCode(await call(ann, 'edit', { address: 'notes://private/secret.md', edits: [{ oldText: 'hidden', newText: 'x' }] }))).toBe('permission_denied');
    const bot = await fixture.client('bot-token');
    const offered = (await bot.listTools()).tools.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['read', 'tree', 'find', 'search']));
    for (const name of ['edit', 'write', 'delete']) expect(offered).not.toContain(name);
    const refused = await call(bot, 'edit', { address: 'notes://docs/dup.md', edits: [{ oldText: 'same\nsame', newText: 'x' }] });
    expect(errorCode(refused)).toBe('permission_denied');
    expect(structured(refused)['error']).toMatchObject({ details: { reason: 'no_grant' } });
    const writer = await fixture.client('writer-token');
    expect((await writer.listTools()).tools.map((tool) => tool.name)).toContain('edit');
    const granted = await call(writer, 'edit', { address: 'notes://docs/deep/one/note.txt', edits: [{ oldText: 'note', newText: 'noted' }] });
    expect(granted.isError, textOf(granted)).toBeFalsy();
    expect(await onDisk('docs/deep/one/note.txt')).toBe('noted');
  });

  it('refuses a binary object', async () => {
    await writeFile(join(fixture.files, 'docs', 'blob.bin'), Buffer.from([0, 159, 146, 150, 0, 1]));
    expect(errorCode(await call(ann, 'edit', { address: 'notes://docs/blob.bin', edits: [{ oldText: 'a', newText: 'b' }] }))).toBe('invalid_argument');
  });
});

describe('tree and find', () => {
  it('shows a tree to the depth asked, without what the session may not read', async () => {
    const result = await call(ann, 'tree', { address: 'notes://', depth: 2 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('docs/\n  a.md\n');
    expect(text).toContain('  deep/\n');
    expect(text).not.toContain('one/');
    expect(text).not.toContain('private');
    const tree = structured(result)['tree'] as { name: string; children?: { name: string }[] }[];
    expect(tree.map((node) => node.name).sort()).toEqual(['docs', 'media']);
    expect(structured(result)).toMatchObject({ address: 'inseam://home/notes/', depth: 2, truncated: false });
    const deep = textOf(await call(ann, 'tree', { address: 'notes://docs/deep', depth: 5 }));
    expect(deep).toContain('one/\n  note.txt\n  two/\n    three.md');
  });

  it('cuts a tree off at its entry bound and says so', async () => {
    const result = await call(ann, 'tree', { address: 'notes://', depth: 5, limit: 3 });
    expect(structured(result)).toMatchObject({ entries: 3, truncated: true });
    expect(textOf(result)).toMatch(/cut off at 3 entries/);
  });

  it('finds names and paths by glob in the live listing, including files the catalog has not synced', async () => {
    await writeFile(join(fixture.files, 'docs', 'deep', 'fresh.md'), 'just made');
    const byName = await call(ann, 'find', { address: 'notes://', pattern: '*.md' });
    expect(byName.isError, textOf(byName)).toBeFalsy();
    const paths = (structured(byName)['matches'] as { path: string }[]).map((match) => match.path);
    expect(paths).toEqual(expect.arrayContaining(['docs/a.md', 'docs/deep/fresh.md', 'docs/deep/one/two/three.md', 'media/readme.md']));
    expect(paths).not.toContain('private/secret.md');
    // Breadth first: the nearest first.
    expect(paths.indexOf('docs/a.md')).toBeLessThan(paths.indexOf('docs/deep/one/two/three.md'));
    const byPath = structured(await call(ann, 'find', { address: 'notes://docs', pattern: 'deep/**/*.md' }))['matches'] as { path: string; address: string }[];
    expect(byPath.map((match) => match.path).sort()).toEqual(['deep/fresh.md', 'deep/one/two/three.md']);
    expect(byPath.find((match) => match.path === 'deep/fresh.md')?.address).toBe('inseam://home/notes/docs/deep/fresh.md');
    const folders = structured(await call(ann, 'find', { address: 'notes://', pattern: 'o*', type: 'directory' }))['matches'] as { path: string }[];
    expect(folders.map((match) => match.path)).toEqual(['docs/deep/one']);
  });

  it('bounds find by depth and by matches, and refuses a bad glob', async () => {
    const shallow = structured(await call(ann, 'find', { address: 'notes://', pattern: '*.md', depth: 2 }))['matches'] as { path: string }[];
    expect(shallow.map((match) => match.path)).not.toContain('docs/deep/fresh.md');
    const few = structured(await call(ann, 'find', { address: 'notes://', pattern: '*', limit: 2 }));
    expect(few).toMatchObject({ truncated: true });
    expect(few['matches']).toHaveLength(2);
    expect(errorCode(await call(ann, 'find', { address: 'notes://', pattern: 'a//b' }))).toBe('invalid_argument');
    expect(errorCode(await call(ann, 'find', { address: 'notes://private', pattern: '*' }))).toBe('permission_denied');
  });
});

describe('reads of several objects, and of first and last lines', () => {
  it('reads several paths in one call, each answer and each failure on its own', async () => {
    const result = await call(ann, 'read', { addresses: ['notes://docs/dup.md', 'notes://private/secret.md', 'notes://docs/missing.md', 'notes://media/readme.md'] });
    expect(result.isError, textOf(result)).toBeFalsy();
    const results = structured(result)['results'] as Record<string, unknown>[];
    expect(results).toHaveLength(4);
    expect(results[0]).toMatchObject({ address: 'inseam://home/notes/docs/dup.md', done: true, size: 10 });
    expect(results[1]).toMatchObject({ address: 'notes://private/secret.md', error: { code: 'permission_denied' } });
    expect(results[2]).toMatchObject({ error: { code: 'not_found' } });
    expect(results[3]).toMatchObject({ address: 'inseam://home/notes/media/readme.md' });
    const text = textOf(result);
    expect(text).toContain('same\nsame\n');
    expect(text).toContain('read only here');
    expect(text).not.toContain('hidden');
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/a.md', addresses: ['notes://docs/a.md'] }))).toBe('invalid_argument');
    expect(errorCode(await call(ann, 'read', {}))).toBe('invalid_argument');
  });

  it('reads the first and the last lines', async () => {
    const head = await call(ann, 'read', { address: 'notes://docs/lines.txt', head: 3 });
    expect(textOf(head)).toBe('line 1\nline 2\nline 3\n');
    const tail = await call(ann, 'read', { address: 'notes://docs/lines.txt', tail: 2 });
    expect(textOf(tail)).toBe('line 499\nline 500\n');
    const size = Buffer.byteLength(LINES);
    expect(structured(tail)).toMatchObject({ size, offset: size - Buffer.byteLength('line 499\nline 500\n'), done: true, tail: { count: 2, complete: true } });
    // Fewer bytes than the lines asked for: as many whole lines as fit, and it says so.
    const cut = await call(ann, 'read', { address: 'notes://docs/lines.txt', tail: 100, maxBytes: 30 });
    expect(textOf(cut)).toBe('line 498\nline 499\nline 500\n');
    expect(structured(cut)['tail']).toEqual({ count: 3, complete: false });
    const both = await call(ann, 'read', { addresses: ['notes://docs/dup.md', 'notes://docs/lines.txt'], tail: 1 });
    expect(textOf(both)).toContain('same\n');
    expect(textOf(both)).toContain('line 500\n');
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/lines.txt', head: 1, tail: 1 }))).toBe('invalid_argument');
    expect(errorCode(await call(ann, 'read', { address: 'notes://docs/lines.txt', tail: 1, offset: 3 }))).toBe('invalid_argument');
  });
});

describe('descriptions', () => {
  it('lists in search\'s description each dimension of the session\'s hosts with the operators its type takes', async () => {
    const search = (await ann.listTools()).tools.find((tool) => tool.name === 'search')!;
    for (const [symbol, op] of WHERE_OPERATORS) expect(search.description).toContain(`${symbol} (${op})`);
    for (const [name, dimension] of Object.entries(describeFolder('fs').dimensions)) {
      const symbols = WHERE_OPERATORS.filter(([, op]) => OPS_BY_TYPE[dimension.type].includes(op)).map(([symbol]) => symbol);
      expect(search.description).toContain(`${name} (${dimension.type}: ${symbols.join(' ')})`);
    }
    // What it lists works.
    await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
    const hits = structured(await call(ann, 'search', { query: 'alpha', where: ['size>=1', 'path^=docs/'] }))['hits'] as { address: string }[];
    expect(hits.map((hit) => hit.address)).toContain('inseam://home/notes/docs/a.md');
  });

  it('describes a host nobody described by what it holds, not by its kind\'s sentence', async () => {
    await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
    const hosts = structured(await call(ann, 'hosts', {}))['hosts'] as { slug: string; description: string }[];
    const notes = hosts.find((host) => host.slug === 'notes')!;
    const entries = await fixture.platform.store.catalog.countEntries((await fixture.platform.networks.hostRecord({ network: 'home', host: 'notes' })).id);
    expect(entries).toBeGreaterThan(0);
    expect(notes.description).toBe(`Folder (fs) host named "${basename(fixture.files)}", ${entries} entries synced.`);
    expect(notes.description).not.toContain(fixture.files);
    const stack = textOf(await ann.getPrompt({ name: 'runtime_stack' }).then((prompt) => ({ content: [prompt.messages[0]!.content] })));
    expect(stack).toContain(notes.description);
    expect(stack).not.toContain('A folder on this device');
  });
});
