/**
 * Each command loads only what it uses: `inseam --version` loads nothing but the entry point,
 * `--help` only commander and the command definitions, and `ls`/`stat`/`cat`/`tree` on the embedded
 * store neither the HTTP server, the queue, PostgreSQL, the MCP SDK nor the sandbox. The child
 * runs the sources through the TypeScript hooks plus a hook that records every module it loads
 * (__fixtures__/import-trace.mjs); the test asserts on that list, never on time.
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { cli } from './commands/__fixtures__/cli.js';
import { VERSION } from './version.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const TS_HOOKS = new URL('../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const TRACE_HOOKS = new URL('./__fixtures__/import-trace.mjs', import.meta.url).href;
// The trace hooks are registered last, so they run first and see every module, TypeScript or not.
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(TS_HOOKS)});register(${JSON.stringify(TRACE_HOOKS)});`;
const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Packages no read command may load: the server, PostgreSQL and the queue, the MCP SDK, the sandbox's engine. */
const SERVER_PACKAGES = ['fastify', 'pg', 'pg-boss', '@modelcontextprotocol/sdk', 'quickjs-emscripten', '@jitl/quickjs-wasmfile-release-sync', 'hono', '@hono/node-server'];
/**
 * Our own modules of the same surfaces. The platform keeps the sandbox's host side (its protocol,
 * a few small modules) for sandboxed kinds and starts its process only on first use; the engine
 * (quickjs) must not load, and --help loads none of it.
 */
const SERVER_MODULES = ['http/server.ts', 'http/routes/', 'mcp/', 'queue/queue.ts', 'queue/worker.ts', 'queue/database.ts', 'trial/run.ts', 'web/'];

/**
 * The connectors an fs host does not use, and their clients: the built-in packages load lazily
 * (platform/packages.ts), so a command imports only the kinds it binds.
 */
const UNUSED_CONNECTORS = ['imap', 'machine', 'vector', 'bucket'];
const UNUSED_CLIENTS = ['imapflow', 'mailparser', 'ssh2', 'ssh2-streams', '@aws-crypto/sha256-js', '@smithy/signature-v4'];

interface Traced {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every file loaded, as a path (node_modules/… for packages, src-relative for ours). */
  readonly loaded: readonly string[];
}

let dataDir: string;
let folder: string;
let traceDir: string;

async function traced(args: readonly string[]): Promise<Traced> {
  const trace = join(traceDir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(trace, '');
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, INSEAM_IMPORT_TRACE: trace },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const urls = (await readFile(trace, 'utf8')).split('\n').filter((line) => line !== '');
  await rm(trace, { force: true });
  const loaded = urls.map((url) => {
    const path = fileURLToPath(url);
    const packageAt = path.lastIndexOf('/node_modules/');
    if (packageAt >= 0) return path.slice(packageAt + 1);
    return path.startsWith(SRC) ? path.slice(SRC.length) : path;
  });
  return { code, stdout, stderr, loaded };
}

function packagesOf(loaded: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const path of loaded) {
    const parts = path.split('/');
    if (parts[0] !== 'node_modules') continue;
    names.add(parts[1]!.startsWith('@') ? `${parts[1]}/${parts[2]}` : parts[1]!);
  }
  return names;
}

function expectOnlyFsConnector(run: Traced): void {
  const packages = packagesOf(run.loaded);
  for (const name of UNUSED_CLIENTS) expect(packages.has(name), `${name} was loaded`).toBe(false);
  for (const kind of UNUSED_CONNECTORS) {
    expect(run.loaded.filter((path) => path.includes(`/connectors/${kind}/`) || path.includes(`@inseam/connector-${kind}/`)), `the ${kind} connector was loaded`).toEqual([]);
  }
  expect(run.loaded.some((path) => path.includes('/connectors/fs/') || path.includes('@inseam/connector-fs/'))).toBe(true);
}

function expectNoServer(run: Traced): void {
  const packages = packagesOf(run.loaded);
  for (const name of SERVER_PACKAGES) expect(packages.has(name), `${name} was loaded`).toBe(false);
  for (const prefix of SERVER_MODULES) expect(run.loaded.filter((path) => path.startsWith(prefix)), `src/${prefix} was loaded`).toEqual([]);
  // The compliance harness and its corpus of broken connectors are the trial's, never a read's.
  expect(run.loaded.filter((path) => /package-system\/(src|dist)\/testing\//.test(path)), 'the compliance harness was loaded').toEqual([]);
}

beforeAll(async () => {
  dataDir = await tempDir('cli-lazy');
  folder = await tempDir('cli-lazy-root');
  traceDir = await tempDir('cli-lazy-trace');
  await writeFiles(folder, { 'a.txt': 'alpha\n', 'docs/b.md': '# B\n' });
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/files', '--kind', 'fs', '--config', JSON.stringify({ root: folder })],
  ]) {
    const done = await cli(dataDir, args);
    expect(done.code, done.stderr).toBe(0);
  }
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(folder);
  await removeDir(traceDir);
});

describe('what a command loads', () => {
  it('--version loads the entry point and nothing else of ours, not even commander', async () => {
    const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await traced([flag]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${packageJson.version}\n`);
      expect(VERSION).toBe(packageJson.version);
      expect(run.loaded.filter((path) => !path.startsWith('node_modules/') && !path.includes('__fixtures__'))).toEqual(['cli/main.ts', 'cli/version.ts']);
      expect(packagesOf(run.loaded).has('commander')).toBe(false);
    }
  });

  it('--help lists every command and loads neither the platform, the store nor the server', async () => {
    for (const args of [['--help'], ['up', '--help'], ['ls', '--help']]) {
      const run = await traced(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Usage: inseam');
      expectNoServer(run);
      const packages = packagesOf(run.loaded);
      for (const name of ['better-sqlite3', 'undici', 'ajv', 'zod', 'oauth4webapi', '@inseam/connector-fs']) expect(packages.has(name), `${name} was loaded`).toBe(false);
      for (const prefix of ['platform/platform.ts', 'store/index.ts', 'store/sqlite/', 'sandbox/', 'credentials/', 'gate/', 'crawl/', 'connectors/']) {
        expect(run.loaded.filter((path) => path.startsWith(prefix)), `src/${prefix} was loaded`).toEqual([]);
      }
    }
    const top = await traced(['--help']);
    for (const name of ['up', 'ls', 'stat', 'cat', 'crawl', 'search', 'host', 'token', 'mcp', 'worker']) expect(top.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('ls, stat and cat on the embedded store answer without the server, the queue, PostgreSQL, MCP, the sandbox or any connector but fs', async () => {
    const ls = await traced(['--data', dataDir, 'ls', '--json', 'inseam://home/files/']);
    expect(ls.code, ls.stderr).toBe(0);
    expect((JSON.parse(ls.stdout) as { name: string }[]).map((entry) => entry.name).sort()).toEqual(['a.txt', 'docs']);
    expectNoServer(ls);
    expectOnlyFsConnector(ls);

    const stat = await traced(['--data', dataDir, 'stat', '--json', 'files://a.txt']);
    expect(stat.code, stat.stderr).toBe(0);
    expect(JSON.parse(stat.stdout)).toMatchObject({ address: 'inseam://home/files/a.txt', type: 'file', size: 6 });
    expectNoServer(stat);
    expectOnlyFsConnector(stat);

    const cat = await traced(['--data', dataDir, 'cat', 'files://a.txt']);
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout).toBe('alpha\n');
    expectNoServer(cat);
    expectOnlyFsConnector(cat);
  });

  it('tree, which walks through the filesystem service, loads nothing of the server either', async () => {
    const tree = await traced(['--data', dataDir, 'tree', 'files://']);
    expect(tree.code, tree.stderr).toBe(0);
    expect(tree.stdout).toContain('└── docs/\n    └── b.md\n');
    expectNoServer(tree);
  }, 60_000);
});
