/**
 * `inseam up --store postgres://…`: the same server over a shared PostgreSQL store. A child
 * process on a throwaway cluster serves /v1 and /mcp, crawls and searches with everything in the
 * database (nothing in an embedded file), and a second start — this time through
 * INSEAM_DATABASE_URL, from another data directory holding only the same master key — sees it all,
 * and accepts sign-in codes written into the database by `inseam signin` elsewhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { startTestPostgres, type TestPostgres } from '../../store/postgres/__fixtures__/test-postgres.js';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const HOOKS = new URL('../../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

interface Up {
  readonly child: ChildProcess;
  readonly base: string;
  readonly stdout: () => string;
  readonly exit: Promise<number | null>;
}

/** `inseam <global…> up --port 0 <up…>`, resolved once it printed its URLs. */
function startUp(global: readonly string[], up: readonly string[], env: Record<string, string> = {}): Promise<Up> {
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, ...global, 'up', '--port', '0', ...up], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`inseam up printed no URL in time.\nstdout: ${out}\nstderr: ${err}`)), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /HTTP API +(http:\/\/127\.0\.0\.1:\d+)\/v1 /.exec(out);
      if (match !== null && out.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, base: match[1]!, stdout: () => out, exit });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`inseam up exited (${code}) before it was up.\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/** `inseam <args…>` to its end. */
function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Exchanges a sign-in code at `base`, answering the status. */
async function exchange(base: string, code: string): Promise<number> {
  const answer = await request(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  await answer.body.text();
  return answer.statusCode;
}

async function get(base: string, path: string, token: string): Promise<{ status: number; json: unknown }> {
  const answer = await request(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.statusCode, json: (await answer.body.json()) };
}

let server: TestPostgres;
let url: string;
let dataDir: string;
let otherDataDir: string;
let folder: string;

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
  dataDir = await tempDir('up-pg');
  otherDataDir = await tempDir('up-pg-other');
  folder = await tempDir('up-pg-folder');
  await writeFiles(folder, { 'docs/plan.md': '# Plan\nShip the harbour crane on Tuesday.\n', 'docs/café.txt': 'Crème brûlée recipe.\n' });
});

afterAll(async () => {
  await server?.stop();
  await removeDir(dataDir);
  await removeDir(otherDataDir);
  await removeDir(folder);
});

describe('inseam up --store postgres://…', () => {
  it('serves, crawls and searches with its state in PostgreSQL, and another start on the same database sees it', async () => {
    const up = await startUp(['--data', dataDir, '--store', url], ['--folder', folder]);
    const token = (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim();
    expect(up.stdout()).not.toContain(token);
    expect(up.stdout()).not.toContain(url);
    const hosts = await get(up.base, '/v1/hosts', token);
    expect((hosts.json as { slug: string }[]).map((host) => host.slug)).toEqual(['files', 'pad', 'vector']);
    const mcp = await request(`${up.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'up-pg-test', version: '1.0.0' } } }),
    });
    await mcp.body.text();
    expect(mcp.statusCode).toBe(200);
    let hits: { address: string }[] = [];
    for (let attempt = 0; attempt < 200 && hits.length === 0; attempt += 1) {
      hits = ((await get(up.base, '/v1/search?q=harbour&mode=keyword', token)).json as { hits: { address: string }[] }).hits;
      if (hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(hits.map((hit) => hit.address)).toEqual(['inseam://home/files/docs/plan.md']);
    up.child.kill('SIGTERM');
    expect(await up.exit).toBe(0);

    // Everything is in the database: no embedded store was made, and the rows are there.
    expect(await readdir(dataDir)).not.toContain('inseam.db');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const counts = await client.query<{ hosts: string; entries: string; credentials: string }>(
        'SELECT (SELECT count(*) FROM hosts) AS hosts, (SELECT count(*) FROM catalog_entries) AS entries, (SELECT count(*) FROM credential_meta) AS credentials',
      );
      expect(counts.rows[0]).toEqual({ hosts: '3', entries: '2', credentials: '1' });
    } finally {
      await client.end();
    }

    // A second server elsewhere: the store from INSEAM_DATABASE_URL, the same master key, its own data directory.
    await copyFile(join(dataDir, 'master.key'), join(otherDataDir, 'master.key'));
    const again = await startUp(['--data', otherDataDir], [], { INSEAM_DATABASE_URL: url });
    expect((await get(again.base, '/v1/hosts', token)).status).toBe(200);
    // Its sign-in link, and one `inseam signin` writes into the shared database from the first data directory, both work there, once.
    const printed = new RegExp(`${again.base.replace(/[.]/g, '\\.')}/#code=([A-Za-z0-9_-]{43})`).exec(again.stdout())![1]!;
    const signin = await run(['--data', dataDir, '--store', url, 'signin', '--url', again.base]);
    expect(signin.code, signin.stderr).toBe(0);
    const written = new RegExp(`^${again.base.replace(/[.]/g, '\\.')}/#code=([A-Za-z0-9_-]{43})\n$`).exec(signin.stdout)![1]!;
    for (const code of [printed, written]) {
      expect(await exchange(again.base, code)).toBe(201);
      expect(await exchange(again.base, code)).toBe(401);
    }
    const found = (await get(again.base, `/v1/search?q=${encodeURIComponent('creme brulee')}&mode=keyword`, token)).json as { hits: { address: string }[] };
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/files/docs/caf%C3%A9.txt']);
    // A crawl asked for through the API is queued, not run in the request, and runs on the server's worker.
    const fullRuns = async (): Promise<number> => {
      const counter = new pg.Client({ connectionString: url });
      await counter.connect();
      try {
        return Number((await counter.query<{ n: string }>("SELECT count(*) AS n FROM crawl_runs WHERE mode = 'full' AND state = 'completed'")).rows[0]!.n);
      } finally {
        await counter.end();
      }
    };
    const before = await fullRuns();
    const asked = await request(`${again.base}/v1/hosts/home/files/crawl`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'full' }) });
    expect(asked.statusCode).toBe(202);
    expect(await asked.body.json()).toMatchObject({ state: 'queued', queued: { state: expect.any(String) } });
    let crawl: { state?: string; queued?: unknown; progress?: { state: string } | null } = {};
    for (let attempt = 0; attempt < 400 && !(crawl.state === 'idle' && crawl.queued === null); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      crawl = (await get(again.base, '/v1/hosts/home/files/crawl', token)).json as typeof crawl;
    }
    expect(crawl).toMatchObject({ state: 'idle', queued: null, progress: { state: 'completed' } });
    expect(await fullRuns()).toBe(before + 1);
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 180_000);

  it('refuses another master key on the same database, saying so', async () => {
    const stranger = await tempDir('up-pg-stranger');
    try {
      const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', stranger, '--store', url, 'up', '--port', '0'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env['PATH'] ?? '' },
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      // Were it to start anyway, it would not be left running.
      const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearTimeout(guard);
      expect(code).toBe(2);
      expect(err).toContain('master key is not the one');
      expect(err).not.toContain(url);
    } finally {
      await removeDir(stranger);
    }
  }, 60_000);
});
