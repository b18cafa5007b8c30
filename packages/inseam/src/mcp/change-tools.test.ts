/**
 * move, copy and mkdir through the SDK's own client against real folder hosts: a moved file is
 * found by search at its new address and no longer at its old one as soon as the call answers
 * (within a host and across hosts), copies and folders land on disk, and the tools are offered to
 * an agent only with the grants they need — move never without a delete grant.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';

let fixture: McpFixture;
let ann: Client;

beforeAll(async () => {
  fixture = await openMcpFixture({
    files: {
      'notes/docs/kestrel.md': 'the kestrel hovers over the verge',
      'notes/docs/heron.md': 'a heron stands in the shallows',
      'notes/docs/tree/one.md': 'one',
      'notes/docs/tree/deeper/two.md': 'two',
      'notes/docs/granted/wren.md': 'wren',
      'notes/docs/granted/plover.md': 'plover',
      'notes/media/frozen.md': 'frozen',
      'archive/.keep': '',
    },
  });
  const tree = { default: { read: true, write: false, exec: false }, paths: { docs: { write: true } } };
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(fixture.files, 'notes') }, permissions: tree });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'archive', kind: 'fs', config: { root: join(fixture.files, 'archive') }, permissions: { default: { read: true, write: true, exec: false } } });
  for (const host of ['notes', 'archive']) await (await fixture.platform.sync({ network: 'home', host })).result;
  fixture.tokens.set('ann-token', callerOf('ann'));
  fixture.tokens.set('reader-token', callerOf('ann', { agentId: 'reader' }));
  fixture.tokens.set('writer-token', callerOf('ann', { agentId: 'writer', grants: [{ right: 'write', address: 'inseam://home/notes/docs' }] }));
  fixture.tokens.set('deleter-token', callerOf('ann', { agentId: 'deleter', grants: [{ right: 'delete', address: 'inseam://home/notes/docs' }] }));
  fixture.tokens.set('mover-token', callerOf('ann', { agentId: 'mover', grants: [{ right: 'write', address: 'inseam://home/notes/docs/granted' }, { right: 'delete', address: 'inseam://home/notes/docs/granted' }] }));
  ann = await fixture.client('ann-token');
});

afterAll(async () => {
  await fixture?.close();
});

function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

async function hits(query: string): Promise<string[]> {
  const result = await call(ann, 'search', { query, mode: 'keyword' });
  expect(result.isError, textOf(result)).toBeFalsy();
  return (structured(result)['hits'] as { address: string }[]).map((hit) => hit.address);
}

async function exists(path: string): Promise<boolean> {
  return stat(join(fixture.files, path)).then(
    () => true,
    () => false,
  );
}

async function offered(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

describe('move', () => {
  it('renames a file within a host: search finds it at the new address and not at the old one at once', async () => {
    expect(await hits('kestrel')).toEqual(['inseam://home/notes/docs/kestrel.md']);
    const result = await call(ann, 'move', { from: 'notes://docs/kestrel.md', to: 'notes://docs/falcon.md' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result)).toEqual({ from: 'inseam://home/notes/docs/kestrel.md', to: 'inseam://home/notes/docs/falcon.md', type: 'file', files: 1, bytes: 33 });
    expect(textOf(result)).toBe('Moved inseam://home/notes/docs/kestrel.md to inseam://home/notes/docs/falcon.md (33 bytes).');
    expect(await hits('kestrel')).toEqual(['inseam://home/notes/docs/falcon.md']);
    expect(await exists('notes/docs/kestrel.md')).toBe(false);
    expect(await readFile(join(fixture.files, 'notes/docs/falcon.md'), 'utf8')).toBe('the kestrel hovers over the verge');
    expect(errorCode(await call(ann, 'stat', { address: 'notes://docs/kestrel.md' }))).toBe('not_found');
  });

  it('moves a file to another host: search finds it there and not on the first at once', async () => {
    const result = await call(ann, 'move', { from: 'notes://docs/heron.md', to: 'archive://' });
    expect(result.isError, textOf(result)).toBeFalsy();
    // A folder that is there is moved into, under the source's name.
    expect(structured(result)).toMatchObject({ to: 'inseam://home/archive/heron.md', type: 'file' });
    expect(await hits('heron')).toEqual(['inseam://home/archive/heron.md']);
    expect(await exists('notes/docs/heron.md')).toBe(false);
    expect(await readFile(join(fixture.files, 'archive/heron.md'), 'utf8')).toBe('a heron stands in the shallows');
  });

  it('moves a folder with everything below it, and refuses what the tree does not allow, changing nothing', async () => {
    const result = await call(ann, 'move', { from: 'notes://docs/tree', to: 'archive://tree' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result)).toMatchObject({ type: 'directory', files: 2 });
    expect(textOf(result)).toContain('a folder: 2 files');
    expect(await readFile(join(fixture.files, 'archive/tree/deeper/two.md'), 'utf8')).toBe('two');
    expect(await exists('notes/docs/tree')).toBe(false);
    const frozen = await call(ann, 'move', { from: 'notes://media/frozen.md', to: 'notes://docs/frozen.md' });
    expect(errorCode(frozen)).toBe('permission_denied');
    expect(structured(frozen)['error']).toMatchObject({ details: { right: 'delete' } });
    expect(await exists('notes/media/frozen.md')).toBe(true);
    expect(errorCode(await call(ann, 'move', { from: 'notes://docs/missing.md', to: 'notes://docs/x.md' }))).toBe('not_found');
    expect(errorCode(await call(ann, 'move', { from: 'notes://docs/granted/wren.md', to: 'notes://docs/granted/plover.md', createOnly: true }))).toBe('already_exists');
    expect(await readFile(join(fixture.files, 'notes/docs/granted/plover.md'), 'utf8')).toBe('plover');
    // Wrong types are refused, not coerced.
    expect(errorCode(await call(ann, 'move', { from: 'notes://docs/granted/wren.md', to: 'notes://docs/w.md', createOnly: 'true' }))).toBe('invalid_argument');
    expect(await exists('notes/docs/granted/wren.md')).toBe(true);
  });
});

describe('copy and mkdir', () => {
  it('copies a file and a folder (recursive), and refuses a folder without recursive', async () => {
    const file = await call(ann, 'copy', { from: 'notes://docs/granted/wren.md', to: 'archive://birds/wren.md' });
    expect(file.isError, textOf(file)).toBeFalsy();
    expect(structured(file)).toEqual({ from: 'inseam://home/notes/docs/granted/wren.md', to: 'inseam://home/archive/birds/wren.md', type: 'file', files: 1, bytes: 4 });
    expect(await hits('wren')).toEqual(expect.arrayContaining(['inseam://home/notes/docs/granted/wren.md', 'inseam://home/archive/birds/wren.md']));
    const folder = errorCode(await call(ann, 'copy', { from: 'notes://docs/granted', to: 'archive://granted' }));
    expect(folder).toBe('is_a_directory');
    const whole = await call(ann, 'copy', { from: 'notes://docs/granted', to: 'archive://granted', recursive: true });
    expect(structured(whole)).toMatchObject({ type: 'directory', files: 2 });
    expect(await readFile(join(fixture.files, 'archive/granted/plover.md'), 'utf8')).toBe('plover');
    expect(await exists('notes/docs/granted/plover.md')).toBe(true);
  });

  it('makes a folder and the folders on the way, answers one that is there, and refuses a file there', async () => {
    const made = await call(ann, 'mkdir', { address: 'notes://docs/a/b/c' });
    expect(made.isError, textOf(made)).toBeFalsy();
    expect(structured(made)).toMatchObject({ address: 'inseam://home/notes/docs/a/b/c', type: 'directory', created: true, implied: false });
    expect((await stat(join(fixture.files, 'notes/docs/a/b/c'))).isDirectory()).toBe(true);
    expect(structured(await call(ann, 'mkdir', { address: 'notes://docs/a/b' }))).toMatchObject({ created: false });
    expect(errorCode(await call(ann, 'mkdir', { address: 'notes://docs/granted/wren.md' }))).toBe('already_exists');
    expect(errorCode(await call(ann, 'mkdir', { address: 'notes://media/new' }))).toBe('permission_denied');
    expect(await exists('notes/media/new')).toBe(false);
  });
});

describe('what an agent is offered', () => {
  it('an agent without a delete grant is not offered move and cannot move', async () => {
    for (const token of ['reader-token', 'writer-token']) {
      const agent = await fixture.client(token);
      expect(await offered(agent), token).not.toContain('move');
      const refused = await call(agent, 'move', { from: 'notes://docs/granted/wren.md', to: 'notes://docs/granted/w.md' });
      expect(errorCode(refused), token).toBe('permission_denied');
      expect(structured(refused)['error']).toMatchObject({ details: { reason: 'no_grant', right: 'delete' } });
    }
    expect(await exists('notes/docs/granted/wren.md')).toBe(true);
    expect(await exists('notes/docs/granted/w.md')).toBe(false);
  });

  it('an agent with a delete grant and no write grant is not offered move either', async () => {
    const deleter = await fixture.client('deleter-token');
    const names = await offered(deleter);
    expect(names).toContain('delete');
    for (const name of ['move', 'copy', 'mkdir']) expect(names).not.toContain(name);
    const refused = await call(deleter, 'move', { from: 'notes://docs/granted/wren.md', to: 'notes://docs/granted/w.md' });
    expect(structured(refused)['error']).toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'write' } });
    expect(await exists('notes/docs/granted/wren.md')).toBe(true);
  });

  it('an agent with a write grant copies and makes folders inside it, and nowhere else', async () => {
    const writer = await fixture.client('writer-token');
    expect(await offered(writer)).toEqual(expect.arrayContaining(['copy', 'mkdir']));
    const copied = await call(writer, 'copy', { from: 'notes://media/frozen.md', to: 'notes://docs/frozen-copy.md' });
    expect(copied.isError, textOf(copied)).toBeFalsy();
    expect(errorCode(await call(writer, 'copy', { from: 'notes://docs/granted/wren.md', to: 'archive://wren-by-agent.md' }))).toBe('permission_denied');
    expect(await exists('archive/wren-by-agent.md')).toBe(false);
    expect(structured(await call(writer, 'mkdir', { address: 'notes://docs/agent-made' }))).toMatchObject({ created: true });
  });

  it('an agent with write and delete grants moves inside them, and not out of them', async () => {
    const mover = await fixture.client('mover-token');
    expect(await offered(mover)).toContain('move');
    const moved = await call(mover, 'move', { from: 'notes://docs/granted/wren.md', to: 'notes://docs/granted/renamed-wren.md' });
    expect(moved.isError, textOf(moved)).toBeFalsy();
    expect(await exists('notes/docs/granted/renamed-wren.md')).toBe(true);
    const out = await call(mover, 'move', { from: 'notes://docs/granted/plover.md', to: 'notes://docs/plover.md' });
    expect(structured(out)['error']).toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'write' } });
    expect(await exists('notes/docs/granted/plover.md')).toBe(true);
  });
});
