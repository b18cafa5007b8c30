/**
 * `inseam up` as a person runs it: a child process on a temp data directory, port 0. It prints a
 * working URL and a one-time sign-in link (never the admin token, which it saves 0600), serves `/`,
 * `/v1` and `/mcp`; on SIGTERM it answers 503 to new requests (on new and kept-alive connections)
 * while it finishes the request in flight, then stops listening, exits 0, and a restart sees the same hosts and data.
 * `inseam signin` in another process makes a link the running server accepts.
 *
 * The child runs the TypeScript sources through the crawl tests' module hooks (no build needed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, stat } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { writeSourcePackage } from '../../platform/__fixtures__/source-package.js';
import { localUser } from './token.js';

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
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /HTTP API +(http:\/\/127\.0\.0\.1:\d+)\/v1 /.exec(out);
      if (match !== null && out.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, base: match[1]!, stdout: () => out, stderr: () => err, exit });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`inseam up exited (${code}) before it was up.\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/** Runs `inseam --data <dir> <args…>` to its end. */
function inseam(dataDir: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', HOME: dataDir } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const TOKEN_SHAPE = /inseam_[A-Za-z0-9_-]{43}/;

/** The sign-in link `up` printed, checked for its form. */
function printedLink(up: Up): string {
  const match = new RegExp(`\\n {2}(${up.base.replace(/[.]/g, '\\.')}/#code=[A-Za-z0-9_-]{43})\\n`).exec(up.stdout());
  expect(match, up.stdout()).not.toBeNull();
  return match![1]!;
}

/** Exchanges a sign-in link's code for a session, as the page does. */
async function exchange(base: string, link: string): Promise<{ status: number; token?: string }> {
  const answer = await request(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: link.split('#code=')[1] }) });
  const body = (await answer.body.json()) as { token?: string };
  return { status: answer.statusCode, ...(body.token === undefined ? {} : { token: body.token }) };
}

/** Whether a new connection to `base` is refused (true) or accepted (false). */
function refusesConnections(base: string): Promise<boolean> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Writes `text` on a fresh connection and reads the answer to the end: for requests a client would tidy up. */
function rawAnswer(base: string, text: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', (error) => (answer === '' ? reject(error) : undefined));
    socket.on('close', () => {
      const end = answer.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), body: end < 0 ? '' : answer.slice(end + 4) });
    });
    socket.write(text);
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
    const file = join(dataDir, 'admin.token');
    token = (await readFile(file, 'utf8')).trim();
    expect(token).toMatch(TOKEN_SHAPE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The admin token is in its file only: never in the output, which is often a log, nor in a URL.
    expect(up.stdout()).toContain(`Admin token: made now, and saved (mode 0600) in ${file}.`);
    for (const output of [up.stdout(), up.stderr()]) expect(output).not.toMatch(TOKEN_SHAPE);
    expect(up.stdout()).not.toContain('#token=');
    // The sign-in link carries a one-time code the page exchanges for a session, once.
    const link = printedLink(up);
    const session = await exchange(up.base, link);
    expect(session.status).toBe(201);
    expect((await get(up.base, '/v1/hosts', session.token)).status).toBe(200);
    expect((await exchange(up.base, link)).status).toBe(401);

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
    const found = JSON.parse((await get(up.base, '/v1/search?q=harbour&mode=keyword', token)).text) as { hits: { address: string }[] };
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/files/docs/plan.md']);

    // Bad input to the server as `up` runs it: the envelope and the documented status, nothing coerced.
    const listed = await request(`${up.base}/v1/hosts`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'listed', kind: ['fs'], config: { root: folder } }) });
    expect(listed.statusCode).toBe(400);
    expect(((await listed.body.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_argument', details: { argument: 'body.kind' } });
    const long = await rawAnswer(up.base, `GET /v1/search?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: ${new URL(up.base).host}\r\nConnection: close\r\n\r\n`);
    expect(long.status).toBe(431);
    expect((JSON.parse(long.body) as { error: unknown }).error).toMatchObject({ code: 'too_large', details: { reason: 'headers_too_large' } });
    const typelessBody = JSON.stringify({ slug: 'typeless', kind: 'fs', config: { root: folder } });
    const typeless = await rawAnswer(up.base, `POST /v1/hosts HTTP/1.1\r\nHost: ${new URL(up.base).host}\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${Buffer.byteLength(typelessBody)}\r\nConnection: close\r\n\r\n${typelessBody}`);
    expect(typeless.status).toBe(415);
    expect((JSON.parse(typeless.body) as { error: unknown }).error).toMatchObject({ code: 'unsupported_media_type' });

    // The first start's host is read only, until the person turns writes on.
    expect(up.stdout()).toContain(`Host "files" mounts ${folder} read only`);
    const refused = await request(`${up.base}/v1/fs/write?address=${encodeURIComponent('files://docs/early.txt')}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: 'x' });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(await refused.body.text()).error.details.right).toBe('write');
    const turned = await request(`${up.base}/v1/hosts/home/files/permissions`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ writable: true }) });
    expect(JSON.parse(await turned.body.text()).permissions).toEqual({ default: { read: true, write: true, exec: false } });

    // A connection kept alive from before the signal (a load balancer's, an agent's).
    const kept = new Client(up.base, { pipelining: 1 });
    const before = await kept.request({ method: 'GET', path: '/v1/hosts', headers: { authorization: `Bearer ${token}` } });
    await before.body.text();
    expect(before.statusCode).toBe(200);
    // A write whose body is still arriving when SIGTERM comes is finished, not lost.
    const body = new PassThrough();
    const writing = request(`${up.base}/v1/fs/write?address=${encodeURIComponent('files://docs/late.txt')}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body });
    body.write('first half, ');
    await new Promise((resolve) => setTimeout(resolve, 300));
    up.child.kill('SIGTERM');
    // While the write is in flight, a request on a new connection (an agent, a CLI, a load balancer's health check) gets the documented 503 envelope and `Connection: close`, not a refused connection…
    const answeredSoon = Date.now() + 5_000;
    let fresh: { status: number; connection: unknown; body: string };
    for (;;) {
      const client = new Client(up.base);
      try {
        const answer = await client.request({ method: 'GET', path: '/v1/hosts', headers: { authorization: `Bearer ${token}` } });
        fresh = { status: answer.statusCode, connection: answer.headers['connection'], body: await answer.body.text() };
      } finally {
        await client.close();
      }
      if (fresh.status !== 200) break;
      expect(Date.now(), 'requests are still served after SIGTERM').toBeLessThan(answeredSoon);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fresh.status).toBe(503);
    expect(fresh.connection).toBe('close');
    expect((JSON.parse(fresh.body) as { error: unknown }).error).toEqual({ code: 'unavailable', message: expect.stringContaining('shutting down'), details: { reason: 'shutting_down' } });
    // …and so does one on the connection kept alive from before, which then closes.
    const during = await kept.request({ method: 'GET', path: '/v1/hosts', headers: { authorization: `Bearer ${token}` } });
    expect(during.statusCode).toBe(503);
    expect(during.headers['connection']).toBe('close');
    expect(((await during.body.json()) as { error: unknown }).error).toEqual({ code: 'unavailable', message: expect.stringContaining('shutting down'), details: { reason: 'shutting_down' } });
    await kept.close();
    body.end('second half\n');
    const written = await writing;
    await written.body.text();
    expect(written.statusCode).toBe(200);
    expect(await up.exit).toEqual({ code: 0, signal: null });
    // Once stopped, nothing listens.
    expect(await refusesConnections(up.base)).toBe(true);
    expect(up.stderr()).toContain('Stopped; everything is saved.');
    expect(await readFile(join(folder, 'docs/late.txt'), 'utf8')).toBe('first half, second half\n');
  }, 120_000);

  it('sees the same hosts and token after a restart, prints no token, and a fresh sign-in link; `inseam signin` makes more', async () => {
    // A drop that cannot load is named at start, with why, and does not stop the rest.
    const drop = join(dataDir, 'networks', 'home', '_packages', 'kind-drop');
    await writeSourcePackage(drop, { id: 'home.kind-drop', version: '1.0.0', kinds: ['sneaky'], text: 'x' });
    const up = await startUp(dataDir);
    await rm(drop, { recursive: true });
    expect(up.stderr()).toMatch(/^inseam: network home's drop kind-drop could not be loaded: .+ \[manifest_invalid\]; `inseam package ls` lists it\.$/m);
    expect(up.stderr()).not.toContain(drop);
    expect(up.stdout()).not.toMatch(TOKEN_SHAPE);
    expect(up.stdout()).toContain(`Admin token: in ${join(dataDir, 'admin.token')}.`);
    expect(up.stdout()).not.toContain('#token=');
    const link = printedLink(up);
    expect((await exchange(up.base, link)).status).toBe(201);

    // From another terminal: a link for the running server, written into the store it reads.
    const signin = await inseam(dataDir, ['signin']);
    expect(signin.code, signin.stderr).toBe(0);
    const another = signin.stdout.trim();
    expect(another).toMatch(new RegExp(`^${up.base.replace(/[.]/g, '\\.')}/#code=[A-Za-z0-9_-]{43}$`));
    expect(another).not.toBe(link);
    const session = await exchange(up.base, another);
    expect(session.status).toBe(201);
    expect((await inseam(dataDir, ['signin', '--url', 'https://inseam.example.com'])).stdout).toMatch(/^https:\/\/inseam\.example\.com\/#code=[A-Za-z0-9_-]{43}\n$/);
    // Sessions are listed (never their secrets) and can be ended from the terminal.
    const listed = JSON.parse((await inseam(dataDir, ['signin', 'ls', '--json'])).stdout) as { id: string; revokedAt: number | null }[];
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(listed)).not.toContain(session.token!);
    const newest = listed[0]!;
    expect((await get(up.base, '/v1/hosts', session.token)).status).toBe(200);
    const revoked = await inseam(dataDir, ['signin', 'revoke', newest.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await get(up.base, '/v1/hosts', session.token)).status).toBe(401);

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
      // A port in use is "not now" (exit 3) with a message saying what to do…
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
      // …that made no admin token nobody was shown: the next start that listens makes it and says so.
      await expect(stat(join(fresh, 'admin.token'))).rejects.toThrow();
      const listed = await inseam(fresh, ['token', 'ls', '--user', localUser(), '--json']);
      expect(JSON.parse(listed.stdout || '[]')).toEqual([]);
      const up = await startUp(fresh);
      expect(up.stdout()).toContain(`Admin token: made now, and saved (mode 0600) in ${join(fresh, 'admin.token')}.`);
      expect((await get(up.base, '/v1/hosts', (await readFile(join(fresh, 'admin.token'), 'utf8')).trim())).status).toBe(200);
      up.child.kill('SIGTERM');
      expect((await up.exit).code).toBe(0);
    } finally {
      await removeDir(fresh);
    }
  }, 120_000);
});
