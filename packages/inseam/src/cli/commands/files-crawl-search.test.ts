/**
 * `inseam ls|stat|cat`, `inseam crawl` and `inseam search`, in-process on a temp data directory
 * with an fs host whose permission tree hides one folder.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { PassThrough } from 'node:stream';
import { runCli } from '../program.js';
import { capture, cli, type CliRun } from './__fixtures__/cli.js';
import { progressLine } from './progress.js';

let dataDir: string;
let files: string;
const binary = randomBytes(4096);

beforeAll(async () => {
  dataDir = await tempDir('cli-files');
  files = await tempDir('cli-files-root');
  await writeFiles(files, {
    'notes/alpha.md': '# Alpha\nThe quarterly plan, with a needle.\n',
    'notes/meeting notes.txt': 'Agenda: needle review\n',
    'private/secret.txt': 'a needle nobody may read\n',
    'readme.txt': '0123456789',
  });
  await writeFile(join(files, 'image.bin'), binary);
  const permissions = JSON.stringify({ default: { read: true, write: false, exec: false }, paths: { private: { read: false } } });
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--permissions', permissions],
  ]) {
    const done = await cli(dataDir, args);
    expect(done.code, done.stderr).toBe(0);
  }
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(files);
});

const run = (...args: string[]): Promise<CliRun> => cli(dataDir, args);

describe('inseam ls, stat, cat', () => {
  it('lists a folder live, leaving out what may not be read', async () => {
    const listed = await run('ls', 'inseam://home/notes/');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').filter(Boolean).map((line) => line.split(/\s+/).pop())).toEqual(['image.bin', 'notes/', 'readme.txt']);
    const json = JSON.parse((await run('ls', 'notes://notes', '--json')).stdout) as { address: string; type: string; size?: number }[];
    expect(json).toEqual([
      expect.objectContaining({ address: 'inseam://home/notes/notes/alpha.md', type: 'file', size: 43, mime: 'text/markdown', name: 'alpha.md' }),
      expect.objectContaining({ address: 'inseam://home/notes/notes/meeting%20notes.txt', type: 'file' }),
    ]);
    expect(await run('ls', 'inseam://home/notes/private')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('ls', 'inseam://home/notes/', '--names')).toMatchObject({ code: 0, stdout: 'image.bin\nnotes/\nreadme.txt\n' });
    expect(await run('ls', 'inseam://home/notes/nothing-here')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run('ls', 'inseam://home/nohost/')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run('ls', 'notes:///../etc')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_uri]') });
  });

  it('reads short addresses in the only network, --network or INSEAM_NETWORK, and asks when it cannot tell', async () => {
    expect((await run('ls', 'notes://notes')).code).toBe(0);
    expect((await run('network', 'init', 'work')).code).toBe(0);
    expect(await run('ls', 'notes://notes')).toMatchObject({ code: 2, stderr: expect.stringMatching(/Which network\?.*\[invalid_argument\]/) });
    expect((await run('ls', 'notes://notes', '--network', 'home')).code).toBe(0);
    expect((await cli(dataDir, ['ls', 'notes://notes'], { env: { INSEAM_NETWORK: 'home' } })).code).toBe(0);
    expect(await run('ls', 'notes://notes', '--network', 'work')).toMatchObject({ code: 2, stderr: expect.stringContaining('no host "notes"') });
  });

  it('stats an object', async () => {
    const shown = await run('stat', 'inseam://home/notes/readme.txt');
    expect(shown.stdout).toMatch(/^address: +inseam:\/\/home\/notes\/readme\.txt\ntype: +file\nsize: +10\nmtime: +2024-05-04T00:00:00/);
    expect(JSON.parse((await run('stat', 'inseam://home/notes/notes', '--json')).stdout)).toMatchObject({ address: 'inseam://home/notes/notes', type: 'directory' });
    expect(await run('stat', 'inseam://home/notes/private/secret.txt')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('stat', 'inseam://home/notes/missing.txt')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('writes bytes exactly, whole or by range', async () => {
    expect((await run('cat', 'inseam://home/notes/image.bin')).bytes.equals(binary)).toBe(true);
    expect((await run('cat', 'inseam://home/notes/readme.txt', '--range', '2-4')).stdout).toBe('234');
    expect((await run('cat', 'inseam://home/notes/readme.txt', '--range', '7-')).stdout).toBe('789');
    expect((await run('cat', 'inseam://home/notes/readme.txt', '--range', '-3')).stdout).toBe('789');
    expect((await run('cat', 'inseam://home/notes/readme.txt', '--range', '8-100')).stdout).toBe('89');
    expect((await run('cat', 'inseam://home/notes/image.bin', '--range', '1000-1999')).bytes.equals(binary.subarray(1000, 2000))).toBe(true);
    for (const range of ['5-2', 'x', '-', '1-2-3']) {
      expect(await run('cat', 'inseam://home/notes/readme.txt', '--range', range)).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    }
    const denied = await run('cat', 'inseam://home/notes/private/secret.txt');
    expect(denied).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('[permission_denied]') });
  });
});

describe('inseam crawl and search', () => {
  it('crawls with progress and a summary; the next crawl is incremental', async () => {
    const first = await run('crawl', 'home/notes');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Crawled home\/notes \(full\): 5 entries \([\d.]+ KiB\), 4 indexed, 0 skipped, 0 errors in 0:0\d — completed\.\n$/);
    expect(first.stdout).toMatch(/ — completed\.\n$/);
    expect(first.stderr).toMatch(/^home\/notes: \d+ entries, /m);
    const again = await run('crawl', 'inseam://home/notes', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'completed', mode: 'incremental', host: { network: 'home', host: 'notes' } });
    const full = await run('crawl', 'notes://', '--network', 'home', '--full');
    expect(full.stdout).toContain('(full)');
  });

  it('counts one entry and one error in the singular', async () => {
    const single = await tempDir('cli-files-single');
    try {
      await writeFiles(single, { 'only.txt': 'one file\n' });
      expect((await run('host', 'add', 'home/single', '--kind', 'fs', '--config', JSON.stringify({ root: single }))).code).toBe(0);
      const crawled = await run('crawl', 'home/single');
      expect(crawled.code, crawled.stderr).toBe(0);
      expect(crawled.stdout).toMatch(/^Crawled home\/single \(full\): 1 entry \([\d.]+ B\), 1 indexed, 0 skipped, 0 errors in /);
    } finally {
      expect((await run('host', 'rm', 'home/single')).code).toBe(0);
      await removeDir(single);
    }
  });

  it('draws a bar on a terminal', async () => {
    const tty = await cli(dataDir, ['crawl', 'home/notes', '--full'], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain('\r\x1b[2K');
    const line = progressLine('home/notes', { entries: 50, total: 200, bytes: 3 * 1024 * 1024, rate: 25, etaMs: 6000, fraction: 0.25, state: 'running', phase: 'list', errors: 0 } as never, { bar: true });
    expect(line).toBe('home/notes [██████░░░░░░░░░░░░░░░░░░]  25% 50/200 entries · 3.0 MiB · 25/s · ETA 0:06');
    const spinning = progressLine('home/notes', { entries: 5, total: null, bytes: 10, rate: 0, etaMs: null, fraction: null, state: 'running', phase: 'sweep', errors: 2 } as never, { bar: true, frame: 1 });
    expect(spinning).toBe('home/notes ⠙ 5 entries · 10 B · 0/s · removing what is gone · 2 errors');
    const single = progressLine('home/notes', { entries: 1, total: null, bytes: 10, rate: 0, etaMs: null, fraction: null, state: 'running', phase: 'sweep', errors: 1 } as never, { bar: true, frame: 1 });
    expect(single).toBe('home/notes ⠙ 1 entry · 10 B · 0/s · removing what is gone · 1 error');
  });

  it('refuses unknown hosts and bad options', async () => {
    expect(await run('crawl', 'home/nope')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run('crawl', 'home/notes', '--follow', '--interval', 'soon')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
  });

  it('searches: global addresses and snippets, never a denied path; exit 1 when nothing matches', async () => {
    const found = await run('search', 'needle', '--network', 'home');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.split('\n').filter((line) => line.startsWith('inseam://')).sort()).toEqual(['inseam://home/notes/notes/alpha.md', 'inseam://home/notes/notes/meeting%20notes.txt']);
    expect(found.stdout).toContain('    Agenda: [needle] review\n');
    expect(found.stdout).not.toContain('private');
    const json = JSON.parse((await run('search', 'quarterly', 'plan', '--json')).stdout) as { hits: { address: string }[] };
    expect(json.hits.map((hit) => hit.address)).toEqual(['inseam://home/notes/notes/alpha.md']);
    const filtered = await run('search', 'needle', '--network', 'home', '--host', 'notes', '--where', 'mime=text/markdown');
    expect(filtered.stdout.split('\n').filter((line) => line.startsWith('inseam://'))).toEqual(['inseam://home/notes/notes/alpha.md']);
    expect(await run('search', 'nobody')).toMatchObject({ code: 1, stdout: '' });
    expect(await run('search', 'needle', '--where', 'colour=red')).toMatchObject({ code: 2, stderr: expect.stringContaining('[scope_invalid]') });
    expect(await run('search', 'needle', '--limit', 'many')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    const paged = await run('search', 'needle', '--limit', '1');
    expect(paged.stderr).toMatch(/^next: s1\.\d+\n$/);
  });

  it('--follow keeps the host in sync until interrupted', async () => {
    const out = capture();
    const err = capture();
    const following = runCli(['--data', dataDir, 'crawl', 'home/notes', '--follow', '--interval', 'PT1H'], { stdout: out.stream, stderr: err.stream, stdin: new PassThrough(), env: {} });
    await until(() => err.text().includes('Following home/notes'));
    await writeFile(join(files, 'notes', 'late.txt'), 'a watchword written while following\n');
    await until(() => out.text().includes('Changes in home/notes'));
    process.emit('SIGINT');
    expect(await following, err.text()).toBe(0);
    process.exitCode = undefined;
    expect(err.text()).toContain('Following home/notes (watching for changes)');
    expect(out.text()).toMatch(/Changes in home\/notes: 1 written, 0 moved, 0 removed\.\n/);
    expect(await searchFor('watchword')).toEqual(['inseam://home/notes/notes/late.txt']);
  });
});

async function searchFor(word: string): Promise<string[]> {
  const found = await run('search', word, '--json');
  return found.code === 0 ? (JSON.parse(found.stdout) as { hits: { address: string }[] }).hits.map((hit) => hit.address) : [];
}

/** Waits for `ready` (a generous bound, not a timing assertion). */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
