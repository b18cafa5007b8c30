/**
 * Runtime gating: isRuntimeActive() answers from the connection's state without connecting,
 * probeConnection maps SSH failures to the fixed reasons without a path, and stopping sshd in the
 * middle of a crawl fails the crawl as `unavailable` (runtime_offline) until the machine is back.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { PROBE_REASONS } from '@neuralis/package-system/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMachinePort } from './factory.js';
import { collect, machineContext, machinePort, until } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';

let sshd: SshdFixture;
beforeAll(async () => {
  sshd = await startSshd();
  for (let d = 0; d < 20; d++) {
    await mkdir(`${sshd.root}/d${String(d).padStart(2, '0')}`);
    await Promise.all(Array.from({ length: 50 }, (_, f) => writeFile(`${sshd.root}/d${String(d).padStart(2, '0')}/f${f}.txt`, `file ${d}/${f}`)));
  }
});
afterAll(() => sshd.close());

function expectNoPath(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(sshd.base);
}

describe('isRuntimeActive', () => {
  test('never connects: a counting listener sees one attempt however often it is asked', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const portNumber = typeof address === 'object' && address !== null ? address.port : 0;
    const port = createMachinePort(machineContext(sshd, { port: portNumber, reconnectMs: 600_000 }), { secret: async () => ({ privateKey: sshd.privateKey }) });
    try {
      await until(() => port.connection.state === 'down');
      for (let i = 0; i < 100; i++) {
        expect(port.isRuntimeActive()).toBe(false);
        const probe = await port.probeConnection();
        expect(probe).toMatchObject({ connected: false, reason: 'runtime_offline' });
        expect(PROBE_REASONS).toContain(probe.reason);
      }
      expect(connections).toBe(1);
    } finally {
      port.dispose();
      server.close();
    }
  });

  test('a fresh binding is active until something is known against it, and ready once connected', async () => {
    const port = machinePort(sshd);
    try {
      expect(port.isRuntimeActive()).toBe(true);
      await until(() => port.connection.state === 'ready');
      expect(port.isRuntimeActive()).toBe(true);
      expect(await port.probeConnection()).toEqual({ connected: true });
    } finally {
      port.dispose();
    }
  });
});

describe('probeConnection reasons', () => {
  test.each([
    ['a closed port', { port: 1 }, 'runtime_offline'],
    ['a missing root', { root: '/nonexistent/inseam-root' }, 'fs_unreachable'],
    ['an unapproved host key', { hostKey: undefined }, 'fs_permission'],
  ] as const)('%s is %s, and no path leaks', async (_, config, reason) => {
    const context = machineContext(sshd, config);
    const cleaned = Object.fromEntries(Object.entries(context.config).filter(([, value]) => value !== undefined));
    const port = createMachinePort({ ...context, config: cleaned }, { secret: async () => ({ privateKey: sshd.privateKey }) });
    try {
      const error = await port.list('box://').then(() => undefined, (caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'unavailable', details: { reason } });
      expectNoPath({ message: (error as Error).message, details: (error as { details?: unknown }).details });
      const probe = await port.probeConnection();
      expect(probe).toMatchObject({ connected: false, reason });
      expectNoPath(probe);
      // The machine answers SSH in the last two cases: its runtime is up, the probe says what is wrong.
      expect(port.isRuntimeActive()).toBe(reason !== 'runtime_offline');
    } finally {
      port.dispose();
    }
  });
});

describe('sshd stopped mid-crawl', () => {
  test('the walk fails as unavailable (runtime_offline), the runtime reads inactive, and both recover when sshd returns', async () => {
    const port = machinePort(sshd);
    try {
      const seen: string[] = [];
      let failure: unknown;
      try {
        for await (const entry of port.walk('box://')) {
          seen.push(entry.uri);
          if (seen.length === 100) await sshd.stop();
        }
      } catch (error) {
        failure = error;
      }
      expect(seen.length).toBeGreaterThanOrEqual(100);
      expect(seen.length).toBeLessThan(1020);
      expect(failure).toMatchObject({ code: 'unavailable', details: { reason: 'runtime_offline' } });
      await until(() => !port.isRuntimeActive());
      expect(await port.probeConnection()).toMatchObject({ connected: false, reason: 'runtime_offline' });
      await sshd.start();
      await until(() => port.isRuntimeActive(), 15_000);
      expect(await port.probeConnection()).toEqual({ connected: true });
      expect((await collect(port.walk('box://'))).length).toBe(1020);
    } finally {
      port.dispose();
    }
  });
});

describe('a request on a connection that has already dropped', () => {
  // ssh2 files a request made after its channel closed as sent and never answers it; a walk that
  // resumes after the drop issued exactly such a request and waited forever (CI, 2026-12-02).
  test('a walk resumed after the drop fails as unavailable instead of waiting forever', { timeout: 20_000 }, async () => {
    const port = machinePort(sshd);
    try {
      const walk = port.walk('box://')[Symbol.asyncIterator]();
      expect((await walk.next()).value).toMatchObject({ uri: 'box://d00', type: 'directory' });
      await sshd.stop();
      await until(() => port.connection.state === 'down');
      await expect(walk.next()).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'runtime_offline' } });
    } finally {
      port.dispose();
      await sshd.start();
    }
  });
});

describe('coordinates', () => {
  test("resolveOsUri is the machine's own real path, never an invented one", async () => {
    const port = machinePort(sshd);
    try {
      expect(await port.resolveOsUri('box://d03/f7.txt')).toBe(`${sshd.root}/d03/f7.txt`);
      expect(await port.resolveOsUri('box://')).toBe(sshd.root);
      // What the machine itself says the path is, asked over a shell on it.
      const told = await port.exec({ command: 'realpath f7.txt', cwd: 'box://d03' }, { session: { userId: 'u', projectId: 'p', features: new Set(['exec.machine']) } });
      expect(await port.resolveOsUri('box://d03/f7.txt')).toBe(told.stdout.trim());
      await expect(port.resolveOsUri('box://nope/missing.txt')).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      port.dispose();
    }
  });
});
