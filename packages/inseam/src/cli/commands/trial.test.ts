/**
 * `inseam trial`, run in-process through runCli and once as a child process, against the
 * notes-api example on a loopback API: exit codes, the readable and JSON reports, bad usage, and
 * the install phase's interactive rename.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../program.js';
import { BROKEN_CONNECTORS, brokenModule } from '../../trial/__fixtures__/broken/broken-connectors.js';
import { NOTES_SEED, exampleFile, exampleSource } from '../../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../../trial/__fixtures__/servers/notes-api.js';

let api: NotesApi;
let dir: string;
const modulePath = fileURLToPath(exampleFile('notes-api', 'connector.js'));

beforeAll(async () => {
  api = await startNotesApi(NOTES_SEED);
  dir = await mkdtemp(join(tmpdir(), 'inseam-trial-cli-'));
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  // runCli reads process.exitCode (program.ts); each in-process run must start clean.
  process.exitCode = undefined;
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

async function cli(args: readonly string[], stdin: CliIo['stdin'] = new PassThrough()): Promise<Run> {
  const out = capture();
  const err = capture();
  const code = await runCli(args, { stdout: out.stream, stderr: err.stream, stdin, env: {} });
  process.exitCode = undefined;
  return { code, stdout: out.text(), stderr: err.text() };
}

async function configFile(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function hostConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 }, credentials: { token: api.token }, allowPrivateOrigins: [api.origin], ...extra };
}

describe('inseam trial, in-process', () => {
  it('prints the readable report and exits 0 when the trial passes', async () => {
    const run = await cli(['trial', modulePath, '--config', await configFile('ok.json', hostConfig()), '--seed', '12345']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^inseam trial \(submit phase\) — notes-api: PASSED \(8 passed, 0 failed, 3 skipped\)\n/);
    expect(run.stdout).toMatch(/\nPASS 5 — .*\n {5}read smallest .* \(seed 12345\), each as many bytes as listed/);
    expect(run.stdout).toContain('SKIP 10 — ');
    expect(run.stdout).toContain(`origins used: ${api.origin}\n`);
    expect(run.stdout).toMatch(/\ntime: [\d.]+ m?s\n$/);
    expect(run.stdout + run.stderr).not.toContain(api.token);
  });

  it('--json prints one object in DESIGN.md\'s form; a failed trial exits 1', async () => {
    const broken = BROKEN_CONNECTORS.find((item) => item.name === 'range-ignored')!;
    const path = join(dir, 'broken.js');
    await writeFile(path, brokenModule(exampleSource('notes-api'), broken.patch));
    const run = await cli(['trial', path, '--config', await configFile('ok.json', hostConfig()), '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { kind: string; passed: boolean; checks: Record<string, unknown>[]; origins: string[]; phase: string };
    expect(report).toMatchObject({ kind: 'notes-api', passed: false, origins: [api.origin], phase: 'submit' });
    expect(report.checks.map((check) => check['id'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for (const check of report.checks) expect(Object.keys(check).sort()).toEqual(['detail', 'id', 'name', 'status']);
    expect(report.checks.filter((check) => check['status'] === 'fail').map((check) => check['id'])).toEqual([5]);
  });

  it('the install phase asks the person at the terminal to rename, and passes', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const out = capture();
    const err = capture();
    err.stream.on('data', (chunk: Buffer) => {
      const asked = /rename "([^"]+)" to "([^"]+)" on the host/.exec(chunk.toString('utf8'));
      if (asked === null) return;
      api.rename(decodeURIComponent(asked[1]!), decodeURIComponent(asked[2]!));
      stdin.write('\n');
    });
    const config = await configFile('install.json', hostConfig({ scratchPrefix: 'scratch/' }));
    const code = await runCli(['trial', modulePath, '--config', config, '--phase', 'install'], { stdout: out.stream, stderr: err.stream, stdin, env: {} });
    process.exitCode = undefined;
    expect(code, out.text() + err.text()).toBe(0);
    expect(out.text()).toMatch(/PASS 9 — [^\n]+\n {5}nativeId "\d+" kept across the rename/);
    expect(out.text()).toContain('PASS 10 — ');
  });

  it('exits 2 for bad usage and bad config files, saying what is wrong without echoing secrets', async () => {
    const ok = await configFile('ok.json', hostConfig());
    const cases: [string[], RegExp][] = [
      [['trial', modulePath], /required option '--config <file>'/],
      [['trial', modulePath, '--config', join(dir, 'missing.json')], /The trial config file ".*missing\.json" does not exist\. \[not_found\]/],
      [['trial', join(dir, 'missing.js'), '--config', ok], /The connector module ".*missing\.js" does not exist\. \[not_found\]/],
      [['trial', modulePath, '--config', ok, '--phase', 'later'], /--phase must be "submit" or "install", not "later"\. \[invalid_argument\]/],
      [['trial', modulePath, '--config', ok, '--phase', 'install'], /The install phase needs a scratch prefix.*\[invalid_argument\]/],
      [['trial', modulePath, '--config', ok, '--seed', '-3'], /--seed must be an integer from 0 to 4294967295 \(check 5 names the one it used\), not "-3"\. \[invalid_argument\]/],
      [['trial', modulePath, '--config', ok, '--seed', '4294967296'], /--seed must be an integer from 0 to 4294967295.*\[invalid_argument\]/],
      [['trial', modulePath, '--config', await configFile('nocred.json', hostConfig({ credentials: {} }))], /credentials have no value for "token".*\[invalid_config\]/],
      [['trial', modulePath, '--config', await configFile('typo.json', hostConfig({ scrachPrefix: 'x' }))], /"scrachPrefix" is not a field.*\[invalid_config\]/],
      [['trial', modulePath, '--config', await configFile('bad.json', '{ "credentials": { "token": "sekret-value-123" ')], /is not JSON.*\[invalid_config\]/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain('sekret-value-123');
    }
  });
});

describe('inseam trial, as a child process', () => {
  it('runs from the command line and exits 0', async () => {
    const config = await configFile('child.json', hostConfig());
    const hooks = new URL('../../sandbox/source-hooks.mjs', import.meta.url).href;
    const main = fileURLToPath(new URL('../main.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=inseam-source', '--import', `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(hooks)});`, main, 'trial', modulePath, '--config', config, '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out = capture();
    const err = capture();
    child.stdout.pipe(out.stream);
    child.stderr.pipe(err.stream);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, err.text()).toBe(0);
    expect(JSON.parse(out.text())).toMatchObject({ kind: 'notes-api', passed: true, origins: [api.origin] });
  });

  it('--watch runs again when the module is saved, and Ctrl-C exits 0', async () => {
    const config = await configFile('watch.json', hostConfig());
    const watched = join(dir, 'watched-connector.js');
    await copyFile(modulePath, watched);
    const hooks = new URL('../../sandbox/source-hooks.mjs', import.meta.url).href;
    const main = fileURLToPath(new URL('../main.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=inseam-source', '--import', `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(hooks)});`, main, 'trial', watched, '--config', config, '--json', '--watch'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const reports = (): { passed: boolean; checks: { id: number; status: string }[] }[] =>
      out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { passed: boolean; checks: { id: number; status: string }[] });
    const waitFor = (count: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no report ${count} in time.\nstdout: ${out}\nstderr: ${err}`)), 90_000);
        // A run is over when its report is out and the watch says it is waiting again.
        const look = (): void => {
          if (reports().length >= count && err.split('Watching').length - 1 >= count) {
            clearTimeout(timer);
            child.stdout.off('data', look);
            child.stderr.off('data', look);
            resolve();
          }
        };
        child.stdout.on('data', look);
        child.stderr.on('data', look);
        look();
      });
    try {
      await waitFor(1);
      expect(reports()[0]?.passed).toBe(true);
      // Break the range handling: the next run must see the saved file and fail check 5.
      const source = await readFile(watched, 'utf8');
      await writeFile(watched, source.replace("headers.Range = 'bytes=' + start + '-' + (end - 1);", ''));
      await waitFor(2);
      expect(reports()[1]?.passed).toBe(false);
      expect(reports()[1]?.checks.find((check) => check.id === 5)?.status).toBe('fail');
      child.kill('SIGINT');
      expect(await exit, err).toBe(0);
      expect(err).toContain('Stopped watching.');
    } finally {
      child.kill('SIGKILL');
    }
    // Two trials in a child process that compiles the CLI from source.
  }, 180_000);
});
