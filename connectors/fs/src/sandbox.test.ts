/**
 * The command sandbox under attack, with the real bubblewrap: what a command can reach of the
 * machine, of the root against its confinement plan, of the network, of the platform's own
 * processes, environment and descriptors, and what happens where bubblewrap cannot run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, open, readdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { ExecConfinement, ExecResult } from '@neuralis/package-system/contracts';
import { createFsConnector } from './index.js';
import { BWRAP_ENV } from './sandbox-probe.js';
import { EXEC_SESSION, makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';
import type { FolderConnector } from './port.js';

let box: Sandbox;
let listener: Server;
let port: number;
let connections = 0;
const SECRET_NAME = 'INSEAM_SANDBOX_TEST_SECRET';
const SECRET_VALUE = 'platform-only-9c1e';
const CHILD = fileURLToPath(new URL('./__fixtures__/inherited-fd-child.mjs', import.meta.url));

/** The tree of a host that lets the caller write everywhere but `archive`, and read nothing of `private` and `notes.key`. */
const PLAN: ExecConfinement = {
  paths: [
    { path: '', read: true, write: true },
    { path: 'archive', read: true, write: false },
    { path: 'team/private', read: false, write: true },
    { path: 'team/private/shared', read: true, write: false },
    { path: 'notes.key', read: false, write: false },
    { path: 'alias', read: false, write: false },
    { path: 'not/there/yet', read: false, write: false },
  ],
};

beforeAll(async () => {
  box = await makeSandbox();
  for (const folder of ['work', 'archive/2023', 'team/private/shared', 'team/private/hr', 'linked', 'plain']) await mkdir(`${box.root}/${folder}`, { recursive: true });
  await writeFile(`${box.root}/archive/2023/report.txt`, 'archived');
  await writeFile(`${box.root}/team/private/hr/salaries.txt`, 'salaries');
  await writeFile(`${box.root}/team/private/shared/handbook.txt`, 'handbook');
  await writeFile(`${box.root}/notes.key`, 'key material');
  await writeFile(`${box.root}/linked/target.txt`, 'behind the alias');
  await symlink('linked', `${box.root}/alias`);
  await writeFile(`${box.outside}/secret.txt`, 'outside the root');
  await symlink(`${box.outside}/secret.txt`, `${box.root}/work/planted`);
  await symlink(`/proc/${process.pid}/environ`, `${box.root}/work/server-environ`);
  process.env[SECRET_NAME] = SECRET_VALUE;
  listener = createServer((socket) => {
    connections += 1;
    // The command hangs up after the first bytes.
    socket.on('error', () => undefined);
    socket.end('hello from the loopback listener\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  delete process.env[SECRET_NAME];
  await new Promise((resolve) => listener.close(resolve));
  await box.cleanup();
});

const run = (command: string, options: { confinement?: ExecConfinement; connector?: FolderConnector; cwd?: string; timeout?: number } = {}): Promise<ExecResult> =>
  (options.connector ?? box.connector).exec(
    { command, cwd: options.cwd ?? 'box://work', timeout: options.timeout ?? 20_000 },
    { session: EXEC_SESSION, ...(options.confinement === undefined ? {} : { confinement: options.confinement }) },
  );

/** Exit code of `sh -c test` inside the sandbox: 0 when the test holds. */
const holds = async (test: string, options: Parameters<typeof run>[1] = {}): Promise<boolean> => (await run(`${test}`, options)).exitCode === 0;

describe('the machine outside the root does not exist', () => {
  test('/ holds only the read-only system and the path down to the root', async () => {
    const top = (await run('ls -A /')).stdout.split('\n').filter(Boolean);
    const allowed = ['bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'sbin', 'tmp', 'usr'];
    expect(top.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(await holds('test -e /root || test -e /home || test -e /var || test -e /opt || test -e /work')).toBe(false);
    // The root is bound at its real path; everything else on the way there is empty.
    expect((await run(`ls -A ${box.base}`)).stdout).toBe('root\n');
    const write = await run('touch /usr/x /etc/x /bin/x 2>&1; echo done');
    expect(write.stdout.match(/Read-only file system/g)).toHaveLength(3);
    expect(await holds('test -e /etc/shadow || test -e /etc/ssl/private')).toBe(false);
  });

  test('files outside the root cannot be read by absolute path, through a planted symlink or through /proc', async () => {
    for (const attempt of [`cat ${box.outside}/secret.txt`, 'cat planted', 'cat server-environ', `cat /proc/${process.pid}/environ`, 'cat /proc/1/root/../outside/secret.txt']) {
      const result = await run(attempt);
      expect(result.exitCode, attempt).not.toBe(0);
      expect(result.stdout, attempt).toBe('');
    }
    // `cd ..` ends at the filesystem's top, which holds nothing of the host.
    expect((await run('cd ../../../../../../.. && pwd && ls -A')).stdout).toBe('/\n' + (await run('ls -A /')).stdout);
  });

  test("the platform's processes, environment and detached-run state are not there", async () => {
    const result = await run(`env; echo "[$${SECRET_NAME}]"; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; ls /proc | grep -c '^[0-9]'`);
    expect(result.stdout).not.toContain(SECRET_VALUE);
    expect(result.stdout).toContain('[]');
    // Its own shell, `ls`, `grep`, `cat`, `tr`, and bubblewrap's pid 1 — nothing of the machine.
    expect(Number(result.stdout.trim().split('\n').pop())).toBeLessThan(10);
    expect(await holds(`kill -0 ${process.pid}`)).toBe(false);
    expect(await holds(`test -e /proc/${process.pid}`)).toBe(false);
    expect(await holds(`test -e ${box.projectRoot}`)).toBe(false);
    // A signal to every process the command may address reaches only its own sandbox: were this
    // process among them, the test would not get to its next line.
    expect((await run('kill -TERM -1; kill -KILL -1; echo after')).stdout).toBe('after\n');
    expect(process.kill(process.pid, 0)).toBe(true);
  });

  test('kernel settings and SysRq are read-only, even when the platform runs as root', async () => {
    expect(await holds('test -w /proc/sys/kernel/core_pattern || test -w /proc/sys/vm/swappiness || test -w /proc/sysrq-trigger')).toBe(false);
    expect(await holds('test -r /proc/sys/kernel/osrelease')).toBe(true);
  });

  test('a descriptor the platform inherited from its launcher does not reach the command', async () => {
    const outside = await open(box.outside, 'r');
    try {
      const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(17).fill('ignore'), outside.fd];
      const child = spawn(process.execPath, [CHILD, box.root, box.projectRoot, 'ls -A /proc/self/fd/20/; cat /proc/self/fd/20/secret.txt; echo "[$?]"'], { stdio });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      await new Promise((resolve) => child.on('close', resolve));
      const result = JSON.parse(out) as ExecResult;
      expect(result.stdout).not.toContain('secret.txt');
      expect(result.stdout).not.toContain('outside the root');
      expect(result.stdout).toMatch(/\[[1-9]\d*\]/);
    } finally {
      await outside.close();
    }
  });
});

describe('the root, as the plan allows', () => {
  test('read-only subtrees refuse writes, renames and deletes; the host file is unchanged', async () => {
    const result = await run('cd .. && echo x >> archive/2023/report.txt; touch archive/new; rm archive/2023/report.txt; mv archive/2023 archive/moved; cat archive/2023/report.txt', { confinement: PLAN });
    expect(result.stdout).toBe('archived');
    expect(result.stderr.match(/Read-only file system/g)?.length).toBeGreaterThanOrEqual(4);
    expect(readFileSync(`${box.root}/archive/2023/report.txt`, 'utf8')).toBe('archived');
    expect(existsSync(`${box.root}/archive/new`)).toBe(false);
  });

  test('hidden folders and files are empty and read-only; a child the plan gives back is there', async () => {
    const result = await run(
      'cd .. && ls -A team/private; echo "|"; cat team/private/hr/salaries.txt; echo "|"; cat notes.key; echo "|"; cat team/private/shared/handbook.txt; touch team/private/x notes.key 2>&1 | grep -c "Read-only"',
      { confinement: PLAN },
    );
    expect(result.stdout).toBe('shared\n|\n|\n|\nhandbook2\n');
    expect(readFileSync(`${box.root}/notes.key`, 'utf8')).toBe('key material');
  });

  test('a rule on a symlink hides what it points at', async () => {
    expect((await run('cat ../alias/target.txt ../linked/target.txt; echo "[$?]"', { confinement: PLAN })).stdout).toBe('[1]\n');
  });

  test('a parent of a restricted path cannot be renamed to carry it out from under its rule', async () => {
    const result = await run('cd .. && mv team crew; mv team/private team/open; echo "[$?]"; ls', { confinement: PLAN });
    expect(result.stderr).toMatch(/Device or resource busy/);
    expect(result.stdout).toContain('team');
    expect(existsSync(`${box.root}/team/private/hr/salaries.txt`)).toBe(true);
  });

  test('a root the caller may only read is read-only; one it may not read is empty', async () => {
    const readOnly = await run('touch x; cat ../archive/2023/report.txt', { confinement: { paths: [{ path: '', read: true, write: false }] } });
    expect(readOnly.stderr).toMatch(/Read-only file system/);
    expect(readOnly.stdout).toBe('archived');
    const hidden = await run('pwd; ls -A ..; cat ../notes.key', { confinement: { paths: [{ path: '', read: false, write: false }, { path: 'plain', read: true, write: true }] } });
    expect(hidden.stdout).toBe(`${box.root}/work\nplain\nwork\n`);
  });

  test('concealed paths are hidden wherever they lie inside the root, over any right given below them', async () => {
    await mkdir(`${box.root}/platform-data/networks`, { recursive: true });
    await writeFile(`${box.root}/platform-data/admin.token`, 'inseam_admin');
    const result = await run('ls -A ../platform-data; cat ../platform-data/admin.token; echo "[$?]"', {
      confinement: { paths: [{ path: '', read: true, write: true }, { path: 'platform-data/networks', read: true, write: true }], conceal: [`${box.root}/platform-data`] },
    });
    expect(result.stdout).toBe('[1]\n');
  });

  test('the detached-run state stays hidden when stateDir lies inside the root', async () => {
    const connector = createFsConnector(box.context({ stateDir: `${box.root}/plain/.runs` }));
    const { runId } = await connector.detached.start({ command: 'ls -A ../plain; ls -A ../plain/.runs; cat ../plain/.runs/*/status.json 2>/dev/null; echo "[$?]"', cwd: 'box://work' }, { session: EXEC_SESSION });
    expect((await connector.detached.status(runId, 10_000)).state).toBe('exited');
    expect((await connector.detached.output(runId, 0)).data).toBe('.runs\n[1]\n');
    expect(readdirSync(`${box.root}/plain/.runs`)).toEqual([runId]);
    await connector.detached.release(runId);
  });

  test('a malformed plan is invalid_argument; a plan naming paths that do not exist runs', async () => {
    await expect(run('true', { confinement: { paths: [{ path: 'x', read: true, write: true }] } })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'confinement' } });
    await expect(run('true', { confinement: { paths: [{ path: '', read: true, write: true }, { path: '../up', read: false, write: false }] } })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect((await run('true', { confinement: PLAN })).exitCode).toBe(0);
    expect(existsSync(`${box.root}/not`)).toBe(false);
  });

  test('a root that is the whole machine or a system filesystem is refused', async () => {
    for (const root of ['/', '/proc', '/sys/kernel']) {
      const connector = createFsConnector(box.context({ root }));
      await expect(connector.exec({ command: 'true', cwd: 'box://' }, { session: EXEC_SESSION })).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'root_not_confinable' } });
    }
  });
});

describe('network', () => {
  const connect = `exec 3<>/dev/tcp/127.0.0.1/PORT && head -c 10 <&3`;

  test('without execNetwork a command has no network, not even the loopback listener of the machine', async () => {
    const before = connections;
    const result = await run(`bash -c '${connect.replace('PORT', String(port))}'; echo "[$?]"`);
    expect(result.stdout).toBe('[1]\n');
    expect(connections).toBe(before);
  });

  test('with execNetwork the same connection succeeds', async () => {
    const connector = createFsConnector(box.context({ execNetwork: true }));
    const result = await run(`bash -c '${connect.replace('PORT', String(port))}'`, { connector });
    expect(result.stdout).toBe('hello from');
    expect(connections).toBeGreaterThan(0);
  });
});

describe('limits', () => {
  test('the process limit is set inside the sandbox', async () => {
    const connector = createFsConnector(box.context({ execMaxProcesses: 77 }));
    expect((await run('ulimit -p 2>/dev/null || ulimit -u', { connector })).stdout).toBe('77\n');
  });

  test('a process flood ends with the timeout, every process at once, and endless output stays capped', async () => {
    const connector = createFsConnector(box.context({ execOutputCapBytes: 4096 }));
    const started = Date.now();
    // The flood ignores SIGTERM (as do its children), so only the pid namespace's end stops it.
    const result = await run('trap "" TERM; i=0; while [ $i -lt 300 ]; do sleep 9191 & i=$((i+1)); done; wait', { connector, timeout: 700 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    await vi.waitFor(() => expect(processesRunning('sleep 9191')).toBe(0), { timeout: 5000 });
    const flood = await run('yes inseam', { connector, timeout: 700 });
    expect(flood.stdout.length).toBe(4096);
    expect(flood.truncated).toBe(true);
  });
});

describe('detached runs', () => {
  test('cannot reach outside the root or their own state, and are killed with everything they started', async () => {
    const { runId } = await box.connector.detached.start(
      { command: `sleep 4242 & sleep 4243 & cat ${box.outside}/secret.txt; ls ${box.projectRoot}; readlink /proc/self/fd/1; echo ready; wait`, cwd: 'box://work' },
      { session: EXEC_SESSION, confinement: PLAN },
    );
    await vi.waitFor(async () => expect((await box.connector.detached.output(runId, 0)).data).toContain('ready'), { timeout: 10_000 });
    const output = (await box.connector.detached.output(runId, 0)).data;
    expect(output).not.toContain('outside the root');
    expect(output).toMatch(/^pipe:\[\d+\]$/m);
    expect(output).not.toContain('.inseam');
    expect(processesRunning('sleep 4242')).toBe(1);
    await box.connector.detached.kill(runId);
    expect((await box.connector.detached.status(runId, 10_000)).state).toBe('killed');
    await vi.waitFor(() => expect(processesRunning('sleep 424')).toBe(0), { timeout: 5000 });
    await box.connector.detached.release(runId);
  });

  test('a run whose command ended leaves no process of it behind', async () => {
    const { runId } = await box.connector.detached.start({ command: 'sleep 5151 & echo started', cwd: 'box://work' }, { session: EXEC_SESSION });
    expect(await box.connector.detached.status(runId, 10_000)).toMatchObject({ state: 'exited', exitCode: 0 });
    await vi.waitFor(() => expect(processesRunning('sleep 5151')).toBe(0), { timeout: 5000 });
    await box.connector.detached.release(runId);
  });
});

describe('where bubblewrap cannot run, nothing runs', () => {
  const withBwrap = async (program: string, body: () => Promise<void>): Promise<void> => {
    process.env[BWRAP_ENV] = program;
    try {
      await body();
    } finally {
      delete process.env[BWRAP_ENV];
    }
  };

  test.each([
    // Stand-ins for a kernel setting and packages this machine cannot change: each prints what
    // bubblewrap prints in that situation (bubblewrap.c) and fails as it does.
    ['no_user_namespaces', "echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2; exit 1"],
    ['no_user_namespaces', "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1"],
    ['bwrap_too_old', "echo 'bwrap: Unknown option --disable-userns' >&2; exit 1"],
    ['bwrap_failed', 'exit 1'],
  ])('refused with cause %s, for exec and detached runs alike', async (cause, script) => {
    const program = `${box.base}/fake-bwrap-${Math.random().toString(36).slice(2)}`;
    await writeFile(program, `#!/bin/sh\n${script}\n`);
    await chmod(program, 0o755);
    const marker = `${box.root}/work/ran-${cause}`;
    await withBwrap(program, async () => {
      const refusal = { code: 'unavailable', details: { reason: 'exec_sandbox_unavailable', cause } };
      await expect(run(`touch ${marker}`)).rejects.toMatchObject(refusal);
      await expect(box.connector.detached.start({ command: `touch ${marker}`, cwd: 'box://work' }, { session: EXEC_SESSION })).rejects.toMatchObject(refusal);
    });
    expect(existsSync(marker)).toBe(false);
    expect(await readdir(`${box.projectRoot}/.inseam/runs/fs/box`).catch(() => [])).toEqual([]);
  });

  test('a missing program is bwrap_missing, and the message says what to install', async () => {
    await withBwrap(`${box.base}/no-such-bwrap`, async () => {
      await expect(run('true')).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('"bubblewrap" package'), details: { cause: 'bwrap_missing' } });
    });
  });
});

/** Processes on the machine whose command line starts with `command`. */
function processesRunning(command: string): number {
  let count = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').startsWith(command)) count += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}
