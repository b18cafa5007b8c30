import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFsConnector } from './index.js';
import { commandEnvironment } from './exec-env.js';
import { EXEC_SESSION, makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
const SECRET_NAME = 'INSEAM_TEST_SECRET_TOKEN';
const SECRET_VALUE = 'do-not-leak-4b1f';

beforeAll(async () => {
  box = await makeSandbox();
  await mkdir(`${box.root}/work`);
  await writeFile(`${box.root}/work/file.txt`, 'content');
  process.env[SECRET_NAME] = SECRET_VALUE;
});
afterAll(async () => {
  delete process.env[SECRET_NAME];
  await box.cleanup();
});

const run = (command: string, extra: Record<string, unknown> = {}, connector = box.connector) =>
  connector.exec({ command, cwd: 'box://work', ...extra }, { session: EXEC_SESSION });

describe('exec', () => {
  test('runs in the contained cwd and reports exit code, output and duration', async () => {
    const result = await run('pwd; cat file.txt; echo oops >&2; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe(`${box.root}/work\ncontent`);
    expect(result.stderr).toBe('oops\n');
    expect(result.truncated).toBe(false);
    expect(result.timedOut).toBeUndefined();
    expect(Number.isInteger(result.durationMs)).toBe(true);
  });

  test('a cwd that is a file or missing is refused; background and bad commands are invalid_argument', async () => {
    await expect(box.connector.exec({ command: 'true', cwd: 'box://work/file.txt' }, { session: EXEC_SESSION })).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(box.connector.exec({ command: 'true', cwd: 'box://nowhere' }, { session: EXEC_SESSION })).rejects.toMatchObject({ code: 'not_found' });
    await expect(run('true', { background: true })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(run('')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(run('true', { timeout: -5 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('a timeout kills the whole process group and reports timedOut', async () => {
    // Inside the root: the only place the command could leave it.
    const marker = `${box.root}/work/survivor`;
    const started = Date.now();
    const result = await run(`(sleep 1; touch ${marker}) & sleep 30`, { timeout: 200 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(existsSync(marker)).toBe(false);
  });

  test('the configured ceiling clips a longer timeout', async () => {
    const capped = createFsConnector(box.context({ execMaxTimeoutMs: 200 }));
    const result = await run('sleep 20', { timeout: 60_000 }, capped);
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(5000);
  });

  test('output over the cap is cut and flagged', async () => {
    const capped = createFsConnector(box.context({ execOutputCapBytes: 1000 }));
    const result = await run('head -c 5000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2', {}, capped);
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stderr).toBe('b'.repeat(10));
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  test('only allow-listed environment reaches the command: a secret of the platform does not', async () => {
    const result = await run(`env; echo "[$${SECRET_NAME}]"`, { env: { [SECRET_NAME]: 'from-request', LANG: 'C.UTF-8', EXTRA: 'dropped' } });
    expect(result.stdout).not.toContain(SECRET_VALUE);
    expect(result.stdout).not.toContain('from-request');
    expect(result.stdout).toContain(`[]`);
    expect(result.stdout).toContain('LANG=C.UTF-8');
    expect(result.stdout).not.toContain('EXTRA=');
    expect(result.stdout).toMatch(/^PATH=/m);
    const allowed = createFsConnector(box.context({ execEnvAllowlist: ['EXTRA'] }));
    expect((await run('echo "$EXTRA"', { env: { EXTRA: 'kept' } }, allowed)).stdout).toBe('kept\n');
  });

  test('a command that ends at once is always heard: its exit is never lost while the cwd descriptor closes', async () => {
    // The race this guards against lost about one run in 300 here: listeners attached after the
    // cwd descriptor's close missed a child that had already exited.
    for (let attempt = 0; attempt < 400; attempt += 1) {
      const result = await run('exit 7', { timeout: 10_000 });
      expect(result.exitCode).toBe(7);
    }
  });

  test('commandEnvironment keeps PATH even when the platform has none', () => {
    expect(commandEnvironment([], undefined, {})).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin' });
    expect(commandEnvironment([], { PATH: '/opt/bin', HOME: 'x\0y' }, { HOME: '/root', SECRET: 's' })).toEqual({ PATH: '/opt/bin', HOME: '/root' });
  });

  test('an abort signal ends the command', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await box.connector.exec({ command: 'sleep 30', cwd: 'box://work' }, { session: EXEC_SESSION, signal: controller.signal });
    expect(result.exitCode).toBeNull();
    expect(result.durationMs).toBeLessThan(5000);
  });
});

describe('detached runs', () => {
  test('start, long-poll status, output from any offset, and release', async () => {
    const { runId } = await box.connector.detached.start({ command: 'echo one; echo two >&2; sleep 0.3; echo three; exit 4', cwd: 'box://work' }, { session: EXEC_SESSION });
    const running = await box.connector.detached.status(runId);
    expect(running).toMatchObject({ runId, state: 'running', exitCode: null });
    const ended = await box.connector.detached.status(runId, 10_000);
    expect(ended).toMatchObject({ state: 'exited', exitCode: 4 });
    expect(ended.endedAt).toBeDefined();
    const all = await box.connector.detached.output(runId, 0);
    expect(all).toEqual({ data: 'one\ntwo\nthree\n', next: 14, done: true });
    expect(ended.outputBytes).toBe(14);
    expect(await box.connector.detached.output(runId, 4)).toEqual({ data: 'two\nthree\n', next: 14, done: true });
    expect(await box.connector.detached.output(runId, 99)).toEqual({ data: '', next: 99, done: true });
    await expect(box.connector.detached.output(runId, -1)).rejects.toMatchObject({ code: 'invalid_argument' });
    await box.connector.detached.release(runId);
    await expect(box.connector.detached.status(runId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(box.connector.detached.output(runId, 0)).rejects.toMatchObject({ code: 'not_found' });
  });

  test('a run survives a new connector instance: status, output and kill still answer', async () => {
    const { runId } = await box.connector.detached.start({ command: 'echo started; sleep 30', cwd: 'box://work' }, { session: EXEC_SESSION });
    const restarted = createFsConnector(box.context());
    let output = await restarted.detached.output(runId, 0);
    for (let attempt = 0; output.data === '' && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      output = await restarted.detached.output(runId, 0);
    }
    expect(output).toEqual({ data: 'started\n', next: 8, done: false });
    expect((await restarted.detached.status(runId)).state).toBe('running');
    expect(await restarted.detached.kill(runId, 'tester')).toEqual({ acknowledged: true });
    const ended = await restarted.detached.status(runId, 10_000);
    expect(ended.state).toBe('killed');
    expect(JSON.parse(readFileSync(`${box.projectRoot}/.inseam/runs/fs/box/${runId}/killed`, 'utf8'))).toMatchObject({ actor: 'tester' });
    expect(await restarted.detached.kill(runId)).toEqual({ acknowledged: true });
    await restarted.detached.release(runId);
    await expect(box.connector.detached.status(runId)).rejects.toMatchObject({ code: 'not_found' });
  });

  test('unknown and malformed run ids are not_found; the env allowlist applies to detached runs too', async () => {
    for (const runId of ['00000000-0000-0000-0000-000000000000', '../../etc', '']) {
      await expect(box.connector.detached.status(runId)).rejects.toMatchObject({ code: 'not_found' });
      await expect(box.connector.detached.kill(runId)).rejects.toMatchObject({ code: 'not_found' });
      await expect(box.connector.detached.release(runId)).rejects.toMatchObject({ code: 'not_found' });
    }
    const { runId } = await box.connector.detached.start({ command: `echo "[$${SECRET_NAME}]"`, cwd: 'box://work' }, { session: EXEC_SESSION });
    await box.connector.detached.status(runId, 10_000);
    expect((await box.connector.detached.output(runId, 0)).data).toBe('[]\n');
    await box.connector.detached.release(runId);
  });

  test('status waits at most waitMs while the run keeps running', async () => {
    const { runId } = await box.connector.detached.start({ command: 'sleep 30', cwd: 'box://work' }, { session: EXEC_SESSION });
    const started = Date.now();
    expect((await box.connector.detached.status(runId, 300)).state).toBe('running');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await box.connector.detached.release(runId);
  });
});
