/**
 * `inseam up` as a person runs it: a child process on a temp data directory, port 0. It prints a
 * working URL and an admin token (saved 0600), serves `/`, `/v1` and `/mcp`, finishes a request in
 * flight when SIGTERM arrives, exits 0, and a restart sees the same hosts and data.
 *
 * The child runs the TypeScript sources through the crawl tests' module hooks (no build needed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const HOOKS = new URL('../../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

interface Up {
  readonly child: ChildProcess;
  readonly base: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `inseam --data <dir> up --port 0 …` and resolves once it printed its URLs. */
function startUp(dataDir: string, args: readonly string[] = []): Promise<Up> {
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', dataDir, 'up', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir },
  });
  let out = '';
  let err = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`inseam up printed no URL in time.\nstdout: ${out}\nstderr: ${err}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /HTTP API +(http:\/\/127\.0\.0\.1:\d+)\/v1 /.exec(out);
      if (match !== null && out.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, base: match[1]!, stdout: () => out, stderr: () => err, exit });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`inseam up exited (${code}) before it was up.\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

async function get(base: string, path: string, token?: string): Promise<{ status: number; text: string }> {
  const answer = await request(`${base}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: answer.statusCode, text: await answer.body.text() };
}

async function crawled(base: string, token: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const status = JSON.parse((await get(base, '/v1/hosts/home/files/crawl', token)).text) as { progress: { state: string } | null };
    if (status.progress?.state === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The first crawl did not complete.');
}

let dataDir: string;
let folder: string;
let token: string;

beforeAll(async () => {
  dataDir = await tempDir('up');
  folder = await tempDir('up-folder');
  await writeFiles(folder, { 'docs/plan.md': '# Plan\nShip the harbour crane on Tuesday.\n' });
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(folder);
});

describe('inseam up', () => {
  it('starts on a fresh data directory, serves /, /v1 and /mcp, and stops cleanly on SIGTERM with a request in flight', async () => {
    const up = await startUp(dataDir, ['--folder', folder]);
    const printed = /Admin token[^\n]*\n {2}(inseam_[A-Za-z0-9_-]{43})\n/.exec(up.stdout());
    expect(printed, up.stdout()).not.toBeNull();
    token = printed![1]!;
    const file = join(dataDir, 'admin.token');
    expect(up.stdout()).toContain(file);
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(up.stdout()).toContain(`  ${up.base}/#token=${token}\n`);

    const hosts = await get(up.base, '/v1/hosts', token);
    expect(hosts.status).toBe(200);
    expect((JSON.parse(hosts.text) as { slug: string }[]).map((host) => host.slug)).toEqual(['files', 'pad', 'vector']);
    expect((await get(up.base, '/v1/hosts')).status).toBe(401);
    const home = await get(up.base, '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('<script type="module" src="/web/js/app.js"></script>');
    expect((await get(up.base, '/web/js/app.js')).status).toBe(200);
    expect((await get(up.base, '/v1/openapi.json')).status).toBe(200);
    const mcp = await request(`${up.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'up-test', version: '1.0.0' } } }),
    });
    await mcp.body.text();
    expect(mcp.statusCode).toBe(200);
    await crawled(up.base, token);
    const found = JSON.parse((await get(up.base, '/v1/search?q=harbour', token)).text) as { hits: { address: string }[] };
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/files/docs/plan.md']);

    // The first start's host is read only, until the person turns writes on.
    expect(up.stdout()).toContain(`Host "files" mounts ${folder} read only`);
    const refused = await request(`${up.base}/v1/fs/write?address=${encodeURIComponent('files://docs/early.txt')}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: 'x' });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(await refused.body.text()).error.details.right).toBe('write');
    const turned = await request(`${up.base}/v1/hosts/home/files/permissions`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ writable: true }) });
    expect(JSON.parse(await turned.body.text()).permissions).toEqual({ default: { read: true, write: true, exec: false } });

    // A write whose body is still arriving when SIGTERM comes is finished, not lost.
    const body = new PassThrough();
    const writing = request(`${up.base}/v1/fs/write?address=${encodeURIComponent('files://docs/late.txt')}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body });
    body.write('first half, ');
    await new Promise((resolve) => setTimeout(resolve, 300));
    up.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    body.end('second half\n');
    const written = await writing;
    await written.body.text();
    expect(written.statusCode).toBe(200);
    expect(await up.exit).toEqual({ code: 0, signal: null });
    expect(up.stderr()).toContain('Stopped; everything is saved.');
    expect(await readFile(join(folder, 'docs/late.txt'), 'utf8')).toBe('first half, second half\n');
  }, 120_000);

  it('sees the same hosts and token after a restart, and prints no new token', async () => {
    const up = await startUp(dataDir);
    expect(up.stdout()).not.toMatch(/inseam_[A-Za-z0-9_-]{43}/);
    expect(up.stdout()).toContain(`Admin token: in ${join(dataDir, 'admin.token')}`);
    expect(up.stdout()).not.toContain('#token=');
    const hosts = JSON.parse((await get(up.base, '/v1/hosts', token)).text) as { slug: string }[];
    expect(hosts.map((host) => host.slug)).toEqual(['files', 'pad', 'vector']);
    const late = await get(up.base, `/v1/fs/read?address=${encodeURIComponent('files://docs/late.txt')}`, token);
    expect(late.text).toBe('first half, second half\n');
    up.child.kill('SIGINT');
    expect(await up.exit).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('mounts a demo folder when no folder is named', async () => {
    const fresh = await tempDir('up-demo');
    try {
      const up = await startUp(fresh);
      const admin = (await readFile(join(fresh, 'admin.token'), 'utf8')).trim();
      const readme = await get(up.base, `/v1/fs/read?address=${encodeURIComponent('inseam://home/files/README.md')}`, admin);
      expect(readme.status).toBe(200);
      expect(readme.text).toContain('# Welcome to inseam');
      expect(up.stdout()).toContain(join(fresh, 'demo'));
      up.child.kill('SIGTERM');
      expect((await up.exit).code).toBe(0);
    } finally {
      await removeDir(fresh);
    }
  }, 120_000);

  it('refuses a port that is not one before starting anything, and a port in use with exit 3', async () => {
    const fresh = await tempDir('up-bad');
    try {
      const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', fresh, 'up', '--port', '70000'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(err).toContain('--port must be a port number');
      await expect(stat(join(fresh, 'inseam.db'))).rejects.toThrow();
      // A port in use is "not now" (exit 3) with a message saying what to do.
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const port = (busy.address() as AddressInfo).port;
      try {
        const second = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', fresh, 'up', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
        let message = '';
        second.stderr.on('data', (chunk: Buffer) => (message += chunk.toString()));
        expect(await new Promise<number | null>((resolve) => second.once('exit', resolve))).toBe(3);
        expect(message).toContain(`Port ${port} on 127.0.0.1 is in use`);
      } finally {
        busy.close();
      }
    } finally {
      await removeDir(fresh);
    }
  }, 60_000);
});
