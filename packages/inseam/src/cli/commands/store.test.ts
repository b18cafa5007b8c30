/**
 * The store is never silently replaced or trusted when damaged: an empty `inseam.db`, a file that
 * is not a database, and a real store with garbage written over pages in its middle each stop
 * every command with `store_damaged` naming the file, and nothing is written to them. A data
 * directory that cannot be written is reported as read-only. `inseam store check` runs the full
 * integrity check; `inseam store backup` copies the store while another process keeps writing to
 * it, and the copy passes the check and opens as a store.
 */
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, openSync, readFileSync, readdirSync, statSync, writeFileSync, closeSync, writeSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlatform } from '../../platform/index.js';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { SqliteStore, checkStoreFile } from '../../store/index.js';
import { cli } from './__fixtures__/cli.js';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const HOOKS = new URL('../../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

let root: string;
let sound: string;

function digest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A data directory holding a real store: a network, a host and its synced catalog of 300 files. */
async function realStore(name: string): Promise<string> {
  const dataDir = join(root, name);
  const files = join(root, `${name}-files`);
  const content: Record<string, string> = {};
  for (let index = 0; index < 300; index++) content[`notes/n${index}.md`] = `note ${index} about the budget ${'and more words '.repeat(40)}`;
  await writeFiles(files, content);
  const platform = await openPlatform({ dataDir, env: {} });
  try {
    await platform.networks.init('home');
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files } });
    expect((await (await platform.sync({ network: 'home', host: 'notes' })).result).state).toBe('completed');
  } finally {
    await platform.close();
  }
  return dataDir;
}

beforeAll(async () => {
  root = await tempDir('cli-store');
  sound = await realStore('sound');
}, 120_000);

afterAll(async () => {
  await removeDir(root);
});

describe('a store that cannot be trusted', () => {
  it('an empty inseam.db stops every command, naming the file, and is not replaced', async () => {
    const dataDir = join(root, 'empty');
    mkdirSync(dataDir);
    const file = join(dataDir, 'inseam.db');
    writeFileSync(file, '');
    for (const args of [['network', 'ls'], ['up', '--port', '0'], ['crawl', 'inseam://home/notes']]) {
      const run = await cli(dataDir, args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('[store_damaged]');
      expect(run.stderr).toContain(file);
      expect(run.stderr).toContain('empty (0 bytes)');
      expect(run.stderr).toContain('backup');
    }
    expect(statSync(file).size).toBe(0);
    expect(readdirSync(dataDir).sort()).toEqual(['inseam.db']);
    const check = await cli(dataDir, ['store', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('DAMAGED [store_empty]');
  });

  it('a file that is not a database is refused as such', async () => {
    const dataDir = join(root, 'text');
    mkdirSync(dataDir);
    const file = join(dataDir, 'inseam.db');
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(200));
    const before = digest(file);
    const run = await cli(dataDir, ['network', 'ls']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a SQLite database');
    expect(run.stderr).toContain('[store_damaged]');
    expect(digest(file)).toBe(before);
  });

  it('a real store with garbage over pages in its middle is refused by every command, and nothing is written to it', async () => {
    const dataDir = await realStore('corrupt');
    const file = join(dataDir, 'inseam.db');
    expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0);
    const size = statSync(file).size;
    const pageSize = 4096;
    const pages = size / pageSize;
    expect(pages).toBeGreaterThan(40);
    const fd = openSync(file, 'r+');
    try {
      const garbage = Buffer.alloc(pageSize * 4);
      for (let index = 0; index < garbage.length; index++) garbage[index] = (index * 131 + 7) % 251;
      writeSync(fd, garbage, 0, garbage.length, Math.floor(pages / 2) * pageSize);
    } finally {
      closeSync(fd);
    }
    const before = digest(file);
    for (const args of [['network', 'ls'], ['ls', 'inseam://home/notes/'], ['search', 'budget'], ['crawl', 'inseam://home/notes']]) {
      const run = await cli(dataDir, args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain('[store_damaged]');
      expect(run.stderr).toContain(file);
      expect(run.stderr).toContain('integrity check');
    }
    expect(digest(file)).toBe(before);
    const check = await cli(dataDir, ['store', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('DAMAGED [store_corrupt]');
    const json = await cli(dataDir, ['store', 'check', '--json']);
    const report = JSON.parse(json.stdout) as { ok: boolean; problems: string[] };
    expect(report.ok).toBe(false);
    expect(report.problems.length).toBeGreaterThan(0);
    // A backup of a damaged store is refused: it would only copy the damage.
    const backup = await cli(dataDir, ['store', 'backup', join(root, 'corrupt-copy.db')]);
    expect(backup.code).toBe(2);
    expect(existsSync(join(root, 'corrupt-copy.db'))).toBe(false);
    expect(digest(file)).toBe(before);
  }, 120_000);

  it('a sound store passes the full check', async () => {
    const run = await cli(sound, ['store', 'check']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(': ok (');
  });
});

describe('a data directory that cannot be written', () => {
  // Root ignores file modes, so there the command runs in a bubblewrap mount namespace where the
  // data directory is a read-only bind (EROFS); as any other user, on a directory made read-only
  // (EACCES). Not as "nobody": a clone under a private (0700) folder is unreadable to it.
  function asReader(dataDir: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
    const asRoot = process.getuid?.() === 0;
    const node = [process.execPath, '--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', dataDir, ...args];
    const [command, ...argv] = asRoot ? ['bwrap', '--dev-bind', '/', '/', '--ro-bind', dataDir, dataDir, '--', ...node] : node;
    return new Promise((resolve) => {
      const child = spawn(command!, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, INSEAM_MASTER_KEY: 'a'.repeat(64) } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it('is reported as read-only, naming it, for a new store and for an existing one', async () => {
    const fresh = join(root, 'readonly-fresh');
    mkdirSync(fresh, { mode: 0o755 });
    const existing = join(root, 'readonly-existing');
    mkdirSync(existing, { mode: 0o755 });
    copyFileSync(join(sound, 'inseam.db'), join(existing, 'inseam.db'));
    chmodSync(join(existing, 'inseam.db'), 0o644);
    if (process.getuid?.() !== 0) {
      chmodSync(fresh, 0o555);
      chmodSync(existing, 0o555);
    }
    try {
      for (const dataDir of [fresh, existing]) {
        const run = await asReader(dataDir, ['network', 'ls']);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(`The data directory ${dataDir} is read-only`);
        expect(run.stderr).toContain('[permission_denied]');
        expect(run.stderr).not.toContain('SQLITE_CANTOPEN');
      }
      expect(readdirSync(fresh)).toEqual([]);
    } finally {
      chmodSync(fresh, 0o755);
      chmodSync(existing, 0o755);
    }
  }, 60_000);
});

describe('inseam store backup', () => {
  it('copies the store consistently while another process keeps writing to it', async () => {
    const file = join(sound, 'inseam.db');
    const setup = new Database(file);
    setup.exec('CREATE TABLE IF NOT EXISTS backup_probe (n INTEGER PRIMARY KEY, at INTEGER NOT NULL)');
    setup.close();
    // A writer in another process: one row per transaction, as fast as it can, until killed.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
         const db = new D(${JSON.stringify(file)}); db.pragma('journal_mode = WAL'); db.pragma('busy_timeout = 5000');
         const insert = db.prepare('INSERT INTO backup_probe (at) VALUES (?)');
         let n = 0; process.stdout.write('ready\\n');
         for (;;) { insert.run(Date.now()); if (++n % 200 === 0) process.stdout.write(n + '\\n'); }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let written = 0;
    writer.stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (/^\d+$/.test(line)) written = Number(line);
    });
    try {
      await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
      while (written < 400) await new Promise((resolve) => setTimeout(resolve, 20));
      const copies: { file: string; started: number; ended: number }[] = [];
      for (let index = 0; index < 3; index++) {
        const target = join(root, `backup-${index}.db`);
        const started = Date.now();
        const run = await cli(sound, ['store', 'backup', target]);
        const ended = Date.now();
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toContain(`Backed up the store to ${target}`);
        copies.push({ file: target, started, ended });
      }
      const original = new Database(file, { readonly: true });
      try {
        // The writer went on committing while each copy was made.
        for (const { started, ended } of copies) {
          expect((original.prepare('SELECT count(*) AS n FROM backup_probe WHERE at BETWEEN ? AND ?').get(started, ended) as { n: number }).n).toBeGreaterThan(0);
        }
      } finally {
        original.close();
      }
      for (const { file: copy, ended } of copies) {
        expect(statSync(copy).mode & 0o777).toBe(0o600);
        const check = await checkStoreFile(copy);
        expect(check).toMatchObject({ ok: true, problems: [] });
        const store = SqliteStore.open({ path: copy });
        try {
          expect((await store.networks.list()).map((network) => network.slug)).toEqual(['home']);
          expect((await store.hosts.list('home')).map((host) => host.slug)).toContain('notes');
          const host = (await store.hosts.list('home')).find((item) => item.slug === 'notes')!;
          expect(await store.catalog.countEntries(host.id)).toBeGreaterThanOrEqual(300);
          const rows = store.database.prepare('SELECT count(*) AS n, max(n) AS top, max(at) AS last FROM backup_probe').get() as { n: number; top: number; last: number };
          // A snapshot: every row up to the newest it holds, none missing in between.
          expect(rows.n).toBe(rows.top);
          expect(rows.n).toBeGreaterThan(0);
          expect(rows.last).toBeLessThanOrEqual(ended);
        } finally {
          await store.close();
        }
      }
      // Never over an existing file.
      const again = await cli(sound, ['store', 'backup', copies[0]!.file]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('[already_exists]');
    } finally {
      writer.kill('SIGKILL');
      await new Promise((resolve) => writer.once('close', resolve));
    }
  }, 120_000);

  it('is refused on PostgreSQL with a pointer to its own tools', async () => {
    const check = await cli(sound, ['--store', 'postgres://inseam@127.0.0.1:1/inseam', 'store', 'check']);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('pg_amcheck');
    const backup = await cli(sound, ['--store', 'postgres://inseam@127.0.0.1:1/inseam', 'store', 'backup', join(root, 'pg.sql')]);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain('pg_dump');
  });
});
