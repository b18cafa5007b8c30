/**
 * The attack of issue 15 item 2, through the filesystem service with a real caller and over the
 * HTTP API: a token with only `exec.machine`, on a host that grants exec in one folder, tries to
 * read what the host's tree hides, the data directory's admin token, other hosts' roots and the
 * platform's own state, and to write what the tree keeps read-only. Real bubblewrap, real
 * platform; the admin token file is written as `inseam up` writes it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startApi, type Api } from '../http/__fixtures__/api.js';
import { SEED_PACKAGE, openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { callerOf } from './__fixtures__/fs-service.js';
import { FsService } from './service.js';

const ADMIN_TOKEN = 'inseam_admin-token-of-this-platform-0f3c9a';
const SECRET_NAME = 'INSEAM_EXEC_SANDBOX_TEST_SECRET';
const SECRET_VALUE = 'server-environment-only-77d1';

let outer: string;
let dataDir: string;
let files: string;
let otherRoot: string;
let platform: Platform;
let fs: FsService;
/**
 * The caller: an agent token with exec.machine, allowed to run commands in shell://scripts
 * and to change the whole `shell` host — so what keeps it out below is the tree and the sandbox.
 */
const agent = callerOf('ann', {
  agentId: 'helper',
  features: ['exec.machine'],
  grants: [
    { right: 'exec', address: 'inseam://home/shell/scripts' },
    { right: 'exec', address: 'inseam://home/outer' },
    { right: 'write', address: 'inseam://home/shell' },
    { right: 'delete', address: 'inseam://home/shell' },
  ],
});

beforeAll(async () => {
  // The data directory lies inside the folder of host `home-folder`, as `inseam up --folder ~` would have it.
  outer = await tempDir('exec-sandbox');
  dataDir = join(outer, 'data');
  files = join(outer, 'files');
  otherRoot = await tempDir('exec-sandbox-other');
  await writeFiles(files, {
    'scripts/run.sh': 'echo hi\n',
    'private/salary.txt': 'secret numbers\n',
    'archive/2023.txt': 'archived\n',
  });
  await writeFile(join(otherRoot, 'other-secret.txt'), 'another host\n');
  platform = await openTestPlatform(dataDir, { packages: [{ folder: SEED_PACKAGE, trust: 'trusted' }] });
  await writeFile(join(dataDir, 'admin.token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
  await platform.networks.init('home');
  await mkdir(join(platform.paths.networkRoot('home'), 'data'), { recursive: true });
  await writeFile(join(platform.paths.networkRoot('home'), 'data', 'local-secret.txt'), 'local host\n');
  await platform.networks.addHost({
    network: 'home',
    slug: 'shell',
    kind: 'fs',
    config: { root: files },
    permissions: { default: { read: true, write: true, exec: false }, paths: { scripts: { exec: true }, private: { read: false }, archive: { write: false } } },
  });
  await platform.networks.addHost({ network: 'home', slug: 'other', kind: 'fs', config: { root: otherRoot } });
  await platform.networks.addHost({ network: 'home', slug: 'outer', kind: 'fs', config: { root: outer }, permissions: { default: { read: true, write: true, exec: true } } });
  // Planted beforehand by anyone who could write the folder.
  await symlink(join(dataDir, 'admin.token'), join(files, 'scripts', 'token-link'));
  fs = new FsService(platform);
  process.env[SECRET_NAME] = SECRET_VALUE;
});

afterAll(async () => {
  delete process.env[SECRET_NAME];
  await platform?.close();
  await removeDir(outer);
  await removeDir(otherRoot);
});

const shell = (command: string, cwd = 'shell://scripts') => fs.exec(agent, { command, cwd });

describe('exec through the filesystem service', () => {
  it('runs where the tree grants exec, as before', async () => {
    expect(await shell('cat run.sh')).toMatchObject({ exitCode: 0, stdout: 'echo hi\n' });
  });

  it("never reads the data directory's admin token: by path, through /proc, through a planted or a fresh symlink", async () => {
    const token = join(dataDir, 'admin.token');
    for (const attempt of [
      `cat ${token}`,
      `cat /proc/$PPID/root${token}`,
      `cat /proc/1/root${token}`,
      `cat /proc/self/root${token}`,
      'cat token-link',
      `ln -s ${token} fresh-link && cat fresh-link`,
      `cd ../../../../../../.. && cat .${token}`,
      `ls -R ${dataDir} /proc/1/cwd/ 2>&1`,
    ]) {
      const result = await shell(`${attempt}; echo "[$?]"`);
      expect(result.stdout, attempt).not.toContain(ADMIN_TOKEN);
      expect(result.stderr, attempt).not.toContain(ADMIN_TOKEN);
    }
    expect(readFileSync(token, 'utf8')).toBe(`${ADMIN_TOKEN}\n`);
  });

  it('reads nothing the tree hides and writes nothing it keeps read-only', async () => {
    const result = await shell('cat ../private/salary.txt; ls -A ../private; echo more >> ../archive/2023.txt; touch ../archive/new; echo "[$?]"');
    expect(result.stdout).toBe('[1]\n');
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(files, 'archive', '2023.txt'), 'utf8')).toBe('archived\n');
    expect(existsSync(join(files, 'archive', 'new'))).toBe(false);
  });

  it("does not reach another host's root, a local host's root in the data directory, or the platform's store", async () => {
    for (const path of [otherRoot, join(platform.paths.networkRoot('home'), 'data', 'local-secret.txt'), platform.paths.database, platform.paths.masterKey, dataDir]) {
      expect(await shell(`test -e ${path}; echo "[$?]"`), path).toMatchObject({ stdout: '[1]\n' });
    }
  });

  it('hides the data directory inside a host root that contains it', async () => {
    const result = await fs.exec(agent, { command: 'ls -A; echo "|"; ls -A data; cat data/admin.token data/master.key; echo "[$?]"', cwd: 'outer://' });
    expect(result.stdout).toBe('data\nfiles\n|\n[1]\n');
    expect(result.stdout + result.stderr).not.toContain(ADMIN_TOKEN);
  });

  it("sees neither the server's environment nor its process", async () => {
    const result = await shell(`env; cat /proc/[0-9]*/environ 2>/dev/null; kill -0 ${process.pid} 2>&1; echo "[$?]"`);
    expect(result.stdout).not.toContain(SECRET_VALUE);
    expect(result.stdout).toMatch(/\[1\]\n$/);
  });

  it("writes, as an agent, only where the token's write and delete grants both reach", async () => {
    const execOnly = callerOf('ann', { agentId: 'helper', features: ['exec.machine'], grants: [{ right: 'exec', address: 'inseam://home/shell/scripts' }] });
    const writeOnly = callerOf('ann', {
      agentId: 'helper',
      features: ['exec.machine'],
      grants: [
        { right: 'exec', address: 'inseam://home/shell/scripts' },
        { right: 'write', address: 'inseam://home/shell' },
      ],
    });
    const outOnly = callerOf('ann', {
      agentId: 'helper',
      features: ['exec.machine'],
      grants: [
        { right: 'exec', address: 'inseam://home/shell/scripts' },
        { right: 'write', address: 'inseam://home/shell/scripts/out' },
        { right: 'delete', address: 'inseam://home/shell/scripts/out' },
      ],
    });
    await mkdir(join(files, 'scripts', 'out'), { recursive: true });
    for (const caller of [execOnly, writeOnly]) {
      const result = await fs.exec(caller, { command: 'touch made; rm run.sh; echo "[$?]"', cwd: 'shell://scripts' });
      expect(result.stdout).toBe('[1]\n');
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(existsSync(join(files, 'scripts', 'made'))).toBe(false);
      expect(existsSync(join(files, 'scripts', 'run.sh'))).toBe(true);
    }
    const result = await fs.exec(outOnly, { command: 'touch out/made && echo ok; touch made; echo "[$?]"', cwd: 'shell://scripts' });
    expect(result.stdout).toBe('ok\n[1]\n');
    expect(existsSync(join(files, 'scripts', 'out', 'made'))).toBe(true);
    expect(existsSync(join(files, 'scripts', 'made'))).toBe(false);
  });

  it('refuses a cwd with ".." before anything runs', async () => {
    await expect(shell('touch escaped', 'shell://scripts/../..')).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(shell('touch escaped', 'shell://scripts/%2e%2e')).rejects.toMatchObject({ code: 'invalid_uri' });
  });
});

describe('detached runs through the filesystem service', () => {
  it('are confined the same way and killed with everything they started', async () => {
    const run = await fs.startRun(agent, {
      command: `sleep 3131 & cat ${join(dataDir, 'admin.token')} token-link ../private/salary.txt; touch ../archive/run; ls ${join(dataDir, 'networks')}; echo ready; wait`,
      cwd: 'shell://scripts',
    });
    await vi.waitFor(async () => expect((await fs.runOutput(agent, run.runId)).data).toContain('ready'), { timeout: 10_000 });
    const output = (await fs.runOutput(agent, run.runId)).data;
    expect(output).not.toContain(ADMIN_TOKEN);
    expect(output).not.toContain('secret numbers');
    expect(output).toMatch(/Read-only file system/);
    expect(existsSync(join(files, 'archive', 'run'))).toBe(false);
    await fs.killRun(agent, run.runId);
    await vi.waitFor(async () => expect((await fs.runStatus(agent, run.runId, { waitMs: 1000 })).state).toBe('killed'), { timeout: 10_000 });
    await vi.waitFor(() => expect(sleepersOf('3131')).toBe(0), { timeout: 5000 });
    await fs.releaseRun(agent, run.runId);
  });
});

describe('over HTTP', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
    await mkdir(join(api.folder, 'readonly'));
    await writeFile(join(api.dataDir, 'admin.token'), `${api.admin}\n`, { mode: 0o600 });
  });
  afterAll(() => api?.close());

  it('POST /v1/exec with the agent token cannot read the admin token or the hidden folder, nor write the read-only one', async () => {
    const attempts = [`cat ${join(api.dataDir, 'admin.token')}`, 'cat private/salary.txt', `cat /proc/1/root${join(api.dataDir, 'admin.token')}`, 'touch ../readonly/x'];
    for (const command of attempts) {
      const answer = await call(api, 'POST', '/v1/exec', { token: api.agent, body: { command: `${command}; echo "[$?]"`, cwd: 'files://docs' } });
      expect(answer.status, command).toBe(200);
      expect(answer.json().stdout, command).toBe('[1]\n');
      expect(JSON.stringify(answer.json()), command).not.toContain(api.admin);
    }
  });
});

/** Processes on this machine running `sleep <seconds>`. */
function sleepersOf(seconds: string): number {
  let count = 0;
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8') === `sleep\0${seconds}\0`) count += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}
