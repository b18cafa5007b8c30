/**
 * Exec and detached runs against the real sshd: the exact contained cwd, exit codes, timeouts that
 * end the whole process group, output caps, the environment allow-list, quoting that never lets a
 * name or value become shell syntax, the whole-root rule, and detached runs that outlive the
 * connection, the sshd and the connector instance.
 */
import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXEC_SESSION, machinePort, until } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';
import type { MachinePort } from './port.js';

const TRICKY = "it's $(touch PWNED) `x` ; \"q\"";
let sshd: SshdFixture;
let port: MachinePort;
const run = (command: string, cwd = 'box://', extra: Record<string, unknown> = {}) => port.exec({ command, cwd, ...extra }, { session: EXEC_SESSION });

beforeAll(async () => {
  sshd = await startSshd();
  port = machinePort(sshd, { execOutputCapBytes: 1000, execEnvAllowlist: ['ALLOWED'], execMaxTimeoutMs: 20_000 });
  await mkdir(`${sshd.root}/sub`);
  await mkdir(`${sshd.root}/${TRICKY}`);
  await writeFile(`${sshd.root}/file.txt`, 'x');
  await symlink(sshd.outside, `${sshd.root}/link-out`);
});
afterAll(async () => {
  port.dispose();
  await sshd.close();
});

describe('exec', () => {
  test('runs in the exact cwd, with exit code, stdout and stderr', async () => {
    const result = await run('pwd; echo oops >&2; exit 3', 'box://sub');
    expect(result).toMatchObject({ exitCode: 3, stdout: `${sshd.root}/sub\n`, stderr: 'oops\n', truncated: false });
    expect(typeof result.durationMs).toBe('number');
  });

  test('a cwd that is a file, missing, outside or not this source is refused before anything runs', async () => {
    await expect(run('touch ran', 'box://file.txt')).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(run('touch ran', 'box://missing')).rejects.toMatchObject({ code: 'not_found' });
    await expect(run('touch ran', 'box://link-out')).rejects.toMatchObject({ code: 'containment_violation' });
    await expect(run('touch ran', 'other://')).rejects.toMatchObject({ code: 'invalid_uri' });
    expect(existsSync(`${sshd.outside}/ran`)).toBe(false);
    expect(existsSync(`${sshd.root}/ran`)).toBe(false);
  });

  test('a folder name full of shell syntax is a name, not a command', async () => {
    const result = await run('pwd', `box://${encodeURIComponent(TRICKY)}`);
    expect(result.stdout).toBe(`${sshd.root}/${TRICKY}\n`);
    expect(existsSync(`${sshd.root}/PWNED`)).toBe(false);
  });

  test('a timeout ends the whole process group and reports timedOut', async () => {
    const result = await run('(sleep 3; touch late-child) & sleep 3; touch late-parent', 'box://', { timeout: 400 });
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
    await sleep(3500);
    expect(existsSync(`${sshd.root}/late-child`)).toBe(false);
    expect(existsSync(`${sshd.root}/late-parent`)).toBe(false);
  });

  test('an abort ends the command too', async () => {
    const controller = new AbortController();
    const running = port.exec({ command: 'sleep 5; touch aborted-late', cwd: 'box://' }, { session: EXEC_SESSION, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    expect(await running).toMatchObject({ exitCode: null });
    await sleep(800);
    expect(existsSync(`${sshd.root}/aborted-late`)).toBe(false);
  });

  test('output is capped per stream', async () => {
    const result = await run('head -c 50000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2');
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stderr).toBe('b'.repeat(10));
    expect(result.truncated).toBe(true);
  });

  test('only allow-listed names reach the command, values stay literal, the rest of the environment is the login default', async () => {
    const result = await run('printf "%s|%s|%s|%s" "$ALLOWED" "${NOT_ALLOWED-unset}" "${SSH_CONNECTION-unset}" "$HOME"', 'box://', {
      env: { ALLOWED: TRICKY, NOT_ALLOWED: 'leak', 'BAD NAME': 'x' },
    });
    expect(result.stdout.split('|').slice(0, 3)).toEqual([TRICKY, 'unset', 'unset']);
    expect(result.stdout.split('|')[3]).toMatch(/^\//);
    expect(existsSync(`${sshd.root}/PWNED`)).toBe(false);
  });

  test('a caller whose rights do not cover the whole root is refused: a machine cannot confine a command', async () => {
    const confinement = { paths: [{ path: '', read: true, write: true }, { path: 'sub', read: true, write: false }] };
    await expect(port.exec({ command: 'touch sub/x', cwd: 'box://' }, { session: EXEC_SESSION, confinement })).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(port.detached.start({ command: 'touch sub/x', cwd: 'box://' }, { session: EXEC_SESSION, confinement })).rejects.toMatchObject({ code: 'permission_denied' });
    expect(existsSync(`${sshd.root}/sub/x`)).toBe(false);
    await expect(port.exec({ command: 'true', cwd: 'box://' }, { session: EXEC_SESSION, confinement: { paths: [{ path: '', read: true, write: true }] } })).resolves.toMatchObject({ exitCode: 0 });
  });
});

describe('detached runs', () => {
  test('status long-polls, output reads from any offset, kill is acknowledged and status reports the real end', async () => {
    const { runId } = await port.detached.start({ command: 'echo one; echo two >&2; sleep 30', cwd: 'box://sub' }, { session: EXEC_SESSION });
    await until(async () => (await port.detached.status(runId)).outputBytes >= 8);
    const all = await port.detached.output(runId, 0);
    expect(all.data).toBe('one\ntwo\n');
    expect(all.done).toBe(false);
    expect((await port.detached.output(runId, 4)).data).toBe('two\n');
    const started = Date.now();
    const polled = await port.detached.status(runId, 600);
    expect(polled.state).toBe('running');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(await port.detached.kill(runId, 'tester')).toEqual({ acknowledged: true });
    const ended = await port.detached.status(runId, 10_000);
    expect(ended).toMatchObject({ state: 'killed', exitCode: null });
    expect(ended.endedAt).toMatch(/Z$/);
    expect((await port.detached.output(runId, 0)).done).toBe(true);
    await port.detached.release(runId);
    await expect(port.detached.status(runId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(port.detached.status('../../etc')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('a run keeps going while sshd is down: status says the machine is offline, and both recover when it returns', async () => {
    const { runId } = await port.detached.start({ command: 'sleep 1.5; echo finished', cwd: 'box://' }, { session: EXEC_SESSION });
    await sshd.stop();
    await expect(port.detached.status(runId)).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'runtime_offline' } });
    expect(port.isRuntimeActive()).toBe(false);
    await sleep(2000);
    await sshd.start();
    await until(() => port.isRuntimeActive(), 10_000);
    const ended = await port.detached.status(runId, 5000);
    expect(ended).toMatchObject({ state: 'exited', exitCode: 0 });
    expect((await port.detached.output(runId, 0)).data).toBe('finished\n');
  });

  test('a new connector instance (inseam restarted) answers for runs the old one started', async () => {
    const { runId } = await port.detached.start({ command: 'sleep 1; echo later; exit 4', cwd: 'box://' }, { session: EXEC_SESSION });
    const restarted = machinePort(sshd, { execEnvAllowlist: ['ALLOWED'] });
    try {
      const ended = await restarted.detached.status(runId, 8000);
      expect(ended).toMatchObject({ state: 'exited', exitCode: 4 });
      expect((await restarted.detached.output(runId, 0)).data).toBe('later\n');
      await restarted.detached.release(runId);
    } finally {
      restarted.dispose();
    }
  });

  test('the state folder may not lie inside the root', async () => {
    const inside = machinePort(sshd, { stateDir: `${sshd.root}/runs` });
    try {
      await expect(inside.detached.start({ command: 'true', cwd: 'box://' }, { session: EXEC_SESSION })).rejects.toMatchObject({ code: 'invalid_config' });
    } finally {
      inside.dispose();
    }
  });
});
