/**
 * The MCP endpoint over stdio: `inseam mcp --data <dir>` started as a separate process from the
 * TypeScript sources (compiled on load by the sandbox's source hooks, as the sandbox child is),
 * driven by the SDK's own stdio client. The session is the local user the command names, with
 * only the features it names; nothing the client sends changes that.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { errorCode, structured, textOf } from './__fixtures__/mcp-fixture.js';

const main = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const hooks = new URL('../sandbox/source-hooks.mjs', import.meta.url).href;
const BIG = 'x'.repeat(300 * 1024);

let dataDir: string;
let files: string;
let client: Client;
let stderr = '';

beforeAll(async () => {
  dataDir = await tempDir('mcp-stdio');
  files = await tempDir('mcp-stdio-files');
  await writeFiles(files, { 'docs/a.md': '# A\nalpha\n', 'docs/big.txt': BIG, 'private/p.txt': 'hidden' });
  await mkdir(join(files, 'work'));
  const platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({
    network: 'home',
    slug: 'notes',
    kind: 'fs',
    config: { root: files },
    permissions: { default: { read: true, write: true, exec: false }, paths: { private: { read: false }, work: { exec: true } } },
  });
  await platform.networks.addHost({ network: 'home', slug: 'bobs', kind: 'fs', config: { root: files }, ownership: 'user', ownerId: 'bob' });
  await platform.close();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=inseam-source', '--import', `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(hooks)});`, main, 'mcp', '--data', dataDir, '--user', 'ann', '--feature', 'exec.machine'],
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new Client({ name: 'inseam-stdio-test', version: '1.0.0' });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await removeDir(dataDir);
  await removeDir(files);
});

function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

describe('inseam mcp over stdio', () => {
  it('lists the tools and reads a file, the content once', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list', 'read', 'write', 'delete', 'search', 'exec', 'run_start']));
    // The session holds exec.machine only: the connector tools need connectors.trial and hosts.manage.
    expect(tools.map((tool) => tool.name)).not.toEqual(expect.arrayContaining(['trial_connector']));
    expect(tools.map((tool) => tool.name)).not.toEqual(expect.arrayContaining(['install_connector']));
    const read = await call('read', { address: 'notes://docs/a.md' });
    expect(read.content, stderr).toEqual([{ type: 'text', text: '# A\nalpha\n' }]);
    expect(structured(read)).toMatchObject({ size: 10, done: true, etag: expect.any(String) });
  });

  it('pages an oversized file and refuses a cap over the ceiling', async () => {
    const first = await call('read', { address: 'notes://docs/big.txt' });
    expect(structured(first)).toMatchObject({ offset: 0, length: 256 * 1024, nextOffset: 256 * 1024, done: false });
    const rest = await call('read', { address: 'notes://docs/big.txt', offset: 256 * 1024 });
    expect(textOf(first) + textOf(rest)).toBe(BIG);
    expect(errorCode(await call('read', { address: 'notes://docs/big.txt', maxBytes: 10 * 1024 * 1024 }))).toBe('invalid_argument');
  });

  it('answers denials and bad addresses with typed tool errors', async () => {
    expect(errorCode(await call('read', { address: 'notes://private/p.txt' }))).toBe('permission_denied');
    expect(errorCode(await call('list', { address: 'bobs://' }))).toBe('permission_denied');
    expect(errorCode(await call('list', { address: 'bobs://', session: { userId: 'bob', projectId: 'home', features: [] } }))).toBe('permission_denied');
    expect(errorCode(await call('read', { address: 'notes://a/../../etc/passwd' }))).toBe('invalid_uri');
    expect(errorCode(await call('exec', { command: 'echo hi', cwd: 'notes://docs' }))).toBe('permission_denied');
  });

  it('runs commands as the local user with the features the command named', async () => {
    const ran = await call('exec', { command: 'echo hi', cwd: 'notes://work' });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    expect(structured(ran)).toMatchObject({ exitCode: 0, stdout: 'hi\n' });
    const run = await call('run_start', { command: 'echo detached', cwd: 'notes://work' });
    expect(structured(run)).toMatchObject({ userId: 'ann', network: 'home', host: 'notes' });
    expect((structured(await call('runs', {}))['runs'] as { runId: string }[]).map((entry) => entry.runId)).toContain(structured(run)['runId']);
  });

  it('two concurrent writes with the same ifMatch: one wins, the other gets precondition_failed, nothing torn', async () => {
    const base = await call('write', { address: 'notes://docs/race.txt', content: 'base' });
    const etag = structured(base)['etag'];
    const a = 'a'.repeat(1024 * 1024);
    const b = 'b'.repeat(1024 * 1024);
    const results = await Promise.all([call('write', { address: 'notes://docs/race.txt', content: a, ifMatch: etag }), call('write', { address: 'notes://docs/race.txt', content: b, ifMatch: etag })]);
    expect(results.map(errorCode).sort()).toEqual([null, 'precondition_failed'].sort());
    const stored = await readFile(join(files, 'docs', 'race.txt'), 'utf8');
    expect(stored).toBe(results[0].isError === true ? b : a);
  });

  it('writes then deletes', async () => {
    await writeFile(join(files, 'docs', 'old.txt'), 'old');
    expect((await call('delete', { address: 'notes://docs/old.txt' })).isError).toBeFalsy();
    expect(errorCode(await call('stat', { address: 'notes://docs/old.txt' }))).toBe('not_found');
  });
});
