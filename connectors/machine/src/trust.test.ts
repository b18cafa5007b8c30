/**
 * Trust: no host key is trusted unless approved, a changed key is refused, and the secret never
 * shows in an error, a probe or a log line — checked by looking for the key's text (and its
 * base64 body) in everything the connector hands back.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMachinePort } from './factory.js';
import { scanHostKey } from './host-key.js';
import { machineContext, until } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';

let sshd: SshdFixture;
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(() => sshd.close());

/** Every piece of the private key long enough to mean something. */
function secretPieces(secret: string): string[] {
  const body = secret.split('\n').filter((line) => !line.startsWith('-----') && line.length > 0);
  return [secret, ...body, body.join('')].filter((piece) => piece.length >= 16);
}

function expectNoSecret(value: unknown, secret: string): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value, Object.getOwnPropertyNames(value ?? {}));
  for (const piece of secretPieces(secret)) expect(text).not.toContain(piece);
  expect(text).not.toContain(sshd.base);
}

async function failureOf(action: () => Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await action();
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

describe('host keys', () => {
  test('scanHostKey reads the fingerprint without logging in, and it is the server key', async () => {
    expect(await scanHostKey({ host: '127.0.0.1', port: sshd.port, username: sshd.username })).toBe(sshd.fingerprint);
  });

  test('with no approved key nothing is trusted: the login is refused and the presented key is reported for approval', async () => {
    const context = machineContext(sshd);
    const { hostKey: _, ...unpinned } = context.config as Record<string, unknown>;
    const port = createMachinePort({ ...context, config: unpinned }, { secret: async () => ({ privateKey: sshd.privateKey }) });
    try {
      const error = await failureOf(() => port.list('box://'));
      expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'fs_permission', problem: 'host_key_unapproved', fingerprint: sshd.fingerprint } });
      expect(await port.probeConnection()).toEqual({ connected: false, reason: 'fs_permission', code: 'permission_denied' });
      // The machine is up (it answered SSH): the runtime is active, the probe says what is wrong.
      expect(port.isRuntimeActive()).toBe(true);
    } finally {
      port.dispose();
    }
  });

  test('a changed host key is refused even though the login would work', async () => {
    const port = createMachinePort(machineContext(sshd), { secret: async () => ({ privateKey: sshd.privateKey }) });
    try {
      await expect(port.list('box://')).resolves.toBeDefined();
      const rotated = await sshd.rotateHostKey();
      expect(rotated).not.toBe(sshd.fingerprint);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: without it the fallback is typed {}, which has no index
      await until(async () => (await failureOf(() => port.list('box://')).catch(() => ({ details: {} as Record<string, unknown> }))).details?.['problem'] === 'host_key_changed');
      const error = await failureOf(() => port.list('box://'));
      expect(error.details).toMatchObject({ reason: 'fs_permission', problem: 'host_key_changed', fingerprint: rotated });
    } finally {
      port.dispose();
    }
    // Approving the new key (pinning it in the config) lets the same login in.
    const context = machineContext(sshd);
    const approved = createMachinePort({ ...context, config: { ...context.config, hostKey: await scanHostKey({ host: '127.0.0.1', port: sshd.port, username: sshd.username }) } }, { secret: async () => ({ privateKey: sshd.privateKey }) });
    try {
      await expect(approved.list('box://')).resolves.toBeDefined();
    } finally {
      approved.dispose();
    }
  });
});

describe('secrets', () => {
  test('a wrong key, a missing key and a broken key fail without the key in any error, probe or log line', async () => {
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))));
    const fresh = (await import('node:child_process')).execFileSync;
    fresh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', `${sshd.base}/stranger`], { stdio: 'ignore' });
    const stranger = (await import('node:fs')).readFileSync(`${sshd.base}/stranger`, 'utf8');
    const cases: [string, string | null][] = [
      [stranger, stranger],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nTHISISNOTAKEYBUTITISSECRETTEXT0123456789\n-----END OPENSSH PRIVATE KEY-----\n', 'THISISNOTAKEYBUTITISSECRETTEXT0123456789'],
    ];
    try {
      for (const [key, secret] of cases) {
        const context = machineContext(sshd, { hostKey: await scanHostKey({ host: '127.0.0.1', port: sshd.port, username: sshd.username }) });
        const port = createMachinePort(context, { secret: async () => ({ privateKey: key }) });
        try {
          const error = await failureOf(() => port.read('box://x.txt'));
          expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'fs_permission', problem: 'authentication_failed' } });
          expectNoSecret(error, secret!);
          expectNoSecret(String((error as Error).stack), secret!);
          expectNoSecret(await port.probeConnection(), secret!);
          expectNoSecret(port, secret!);
        } finally {
          port.dispose();
        }
      }
      const none = createMachinePort(machineContext(sshd), { secret: async () => null });
      try {
        await expect(none.read('box://x.txt')).rejects.toMatchObject({ details: { problem: 'no_credential', reason: 'fs_permission' } });
      } finally {
        none.dispose();
      }
      for (const line of logged) expectNoSecret(line, stranger);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  test('the working key is not kept on the port or its connection', async () => {
    const port = createMachinePort(machineContext(sshd, { hostKey: await scanHostKey({ host: '127.0.0.1', port: sshd.port, username: sshd.username }) }), {
      secret: async () => ({ privateKey: sshd.privateKey }),
    });
    try {
      await port.list('box://');
      expectNoSecret(port, sshd.privateKey);
      expectNoSecret(Object.fromEntries(Object.entries(port.connection)), sshd.privateKey);
    } finally {
      port.dispose();
    }
  });
});
