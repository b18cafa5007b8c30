/**
 * The whole path from the command line, each step its own `inseam` process on one data
 * directory: network init → host add (an fs host on a folder with files) → crawl → search →
 * cat → host rm.
 *
 * It runs the built command (bin/inseam.js → dist/), as a person would — compiling the sources
 * on the fly would cost seconds per process — after building the package exactly as `npm run
 * build` does, so it never runs stale code (after `npm test`'s own build, that is a no-op).
 */
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';

let dataDir: string | undefined;
let files: string | undefined;

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(packageRoot, 'bin', 'inseam.js');

/** Builds the package (and what it references) as `npm run build` does; a no-op when nothing changed. */
function build(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [tsc, '-b', packageRoot], { timeout: 120_000 }, (error, stdout) => {
      if (error === null) resolve();
      else reject(new Error(`The build failed, so the command cannot be run:\n${stdout}`));
    });
  });
}

beforeAll(async () => {
  await build();
  dataDir = await tempDir('cli-e2e');
  files = await tempDir('cli-e2e-files');
  await writeFiles(files, { 'docs/plan.md': '# Plan\nShip the harbour crane on Tuesday.\n', 'docs/other.txt': 'nothing to see' });
}, 150_000);

afterAll(async () => {
  // beforeAll may have stopped at the build, before making them.
  if (dataDir !== undefined) await removeDir(dataDir);
  if (files !== undefined) await removeDir(files);
});

interface Step {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function inseam(...args: string[]): Promise<Step> {
  const child = spawn(process.execPath, [bin, '--data', dataDir!, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })));
}

describe('inseam, as separate processes', () => {
  it('initialises, adds a host, crawls, searches, reads and removes it', async () => {
    const init = await inseam('network', 'init', 'home');
    expect(init.code, init.stderr).toBe(0);
    const add = await inseam('host', 'add', 'home/docs', '--kind', 'fs', '--config', JSON.stringify({ root: files }));
    expect(add, add.stderr).toMatchObject({ code: 0, stdout: 'Added host inseam://home/docs/ (fs).\n' });
    const crawl = await inseam('crawl', 'home/docs');
    expect(crawl.code, crawl.stderr).toBe(0);
    expect(crawl.stdout).toMatch(/^Crawled home\/docs \(full\): 2 entries .* — completed\.\n$/);
    const search = await inseam('search', 'harbour', '--json');
    expect(search.code, search.stderr).toBe(0);
    const hits = (JSON.parse(search.stdout) as { hits: { address: string; snippet: string }[] }).hits;
    expect(hits.map((hit) => hit.address)).toEqual(['inseam://home/docs/docs/plan.md']);
    const cat = await inseam('cat', hits[0]!.address);
    expect(cat).toMatchObject({ code: 0, stdout: '# Plan\nShip the harbour crane on Tuesday.\n' });
    const rm = await inseam('host', 'rm', 'home/docs');
    expect(rm.code, rm.stderr).toBe(0);
    expect(await inseam('search', 'harbour')).toMatchObject({ code: 1, stdout: '' });
    expect(await inseam('cat', hits[0]!.address)).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });
});
