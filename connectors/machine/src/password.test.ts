/**
 * Password logins (`auth: "password"`, credential `ssh-password`) against the real sshd, for a
 * throwaway system user the fixture makes with a random password: the right one lists the root,
 * a wrong one is a refused login — probe reason `fs_permission`, code `permission_denied`, the
 * machine still counted as running — and the password shows in no error, probe, port or log line.
 */
import { writeFileSync, chownSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMachinePort } from './factory.js';
import { machineContext } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { PasswordLogin, SshdFixture } from './__fixtures__/sshd.mjs';
import type { MachineSecret } from './connection.js';

let sshd: SshdFixture;
let login: PasswordLogin;
beforeAll(async () => {
  sshd = await startSshd({ passwordUser: true });
  login = sshd.passwordLogin!;
  writeFileSync(`${login.root}/hello.txt`, 'hello over a password login\n');
  const owner = statSync(login.root);
  chownSync(`${login.root}/hello.txt`, owner.uid, owner.gid);
});
afterAll(() => sshd?.close());

function passwordPort(secret: MachineSecret | null) {
  return createMachinePort(machineContext(sshd, { username: login.username, root: login.root, auth: 'password', stateDir: '.inseam/runs' }), { secret: async () => secret });
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, Object.getOwnPropertyNames(value ?? {}));
}

describe('password login', () => {
  test('the right password logs in and lists the root', async () => {
    const port = passwordPort({ password: login.password });
    try {
      const page = await port.list('box://');
      expect(page.entries.map((entry) => entry.name)).toEqual(['hello.txt']);
      expect((await port.read('box://hello.txt')).text).toBe('hello over a password login\n');
      expect(await port.probeConnection()).toEqual({ connected: true });
      expect(text(port)).not.toContain(login.password);
    } finally {
      port.dispose();
    }
  });

  test('a wrong password is a refused login: fs_permission / permission_denied, with no password anywhere', async () => {
    const wrong = `${login.password}-wrong`;
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))));
    const port = passwordPort({ password: wrong });
    try {
      const error = await port.list('box://').then(
        () => undefined,
        (caught: unknown) => caught as Error & { code?: string; details?: Record<string, unknown> },
      );
      expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'fs_permission', problem: 'authentication_failed' } });
      expect(error!.message).toMatch(/refused the login/);
      const probe = await port.probeConnection();
      expect(probe).toEqual({ connected: false, reason: 'fs_permission', code: 'permission_denied' });
      // sshd answered and refused: the machine is running, the probe says what is wrong.
      expect(port.isRuntimeActive()).toBe(true);
      for (const seen of [text(error), String(error!.stack), text(probe), text(port), text(Object.fromEntries(Object.entries(port.connection))), ...logged]) {
        expect(seen).not.toContain(wrong);
        expect(seen).not.toContain(login.password);
        expect(seen).not.toContain(login.root);
      }
    } finally {
      port.dispose();
      for (const spy of spies) spy.mockRestore();
    }
  });

  test('auth "password" with only a key stored is no credential, and the key is not tried', async () => {
    const port = passwordPort({ privateKey: sshd.privateKey });
    try {
      await expect(port.list('box://')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'fs_permission', problem: 'no_credential' } });
      expect(await port.probeConnection()).toEqual({ connected: false, reason: 'fs_permission', code: 'permission_denied' });
    } finally {
      port.dispose();
    }
  });

  test('a password for a login sshd lets in by key only is refused by the server', async () => {
    const port = createMachinePort(machineContext(sshd, { auth: 'password' }), { secret: async () => ({ password: login.password }) });
    try {
      await expect(port.list('box://')).rejects.toMatchObject({ details: { reason: 'fs_permission', problem: 'authentication_failed' } });
    } finally {
      port.dispose();
    }
  });
});
