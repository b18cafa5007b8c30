/**
 * guardSession against a stand-in for ssh2's SFTP object that, like ssh2 after its channel closed,
 * never answers; the real drop against sshd is in runtime.test.ts.
 */
import { EventEmitter } from 'node:events';
import { expect, test } from 'vitest';
import { guardSession } from './session-guard.js';
import type { SftpSession } from './ssh.js';

class SilentSession extends EventEmitter {
  readonly answers: ((error: Error | null, value?: unknown) => void)[] = [];
  stat(_path: string, callback: (error: Error | null, value?: unknown) => void): void {
    this.answers.push(callback);
  }
}

function statOf(session: SftpSession): Promise<unknown> {
  return new Promise((resolve, reject) => session.stat('/x', (error, value) => (error ? reject(error) : resolve(value))));
}

test('a request still waiting when the session closes is answered with an error that carries no SFTP status', async () => {
  const raw = new SilentSession();
  const { session } = guardSession(raw as unknown as SftpSession);
  const waiting = statOf(session);
  raw.emit('close');
  const error = await waiting.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(Error);
  expect((error as { code?: unknown }).code).toBeUndefined();
});

test('a request made after the session ended fails at once and never reaches ssh2', async () => {
  const raw = new SilentSession();
  const guarded = guardSession(raw as unknown as SftpSession);
  guarded.fail();
  await expect(statOf(guarded.session)).rejects.toThrow(/ended/);
  expect(raw.answers).toHaveLength(0);
});

test("ssh2's own answer passes through once, and a late second answer is dropped", async () => {
  const raw = new SilentSession();
  const { session } = guardSession(raw as unknown as SftpSession);
  const calls: unknown[] = [];
  session.stat('/x', (error, value) => calls.push(error ?? value));
  raw.answers[0]!(null, 'attrs');
  raw.emit('close');
  raw.answers[0]!(new Error('No response from server'));
  expect(calls).toEqual(['attrs']);
});
