/**
 * An SFTP session that answers every request, even once its connection is gone. ssh2 files a
 * request made after the channel closed as sent and never calls it back (its own readdir-by-path
 * does this when the drop lands between reading and closing the folder), so a walk resuming after
 * a drop waited forever. Here each callback is tracked until it runs; when the session ends, the
 * ones still waiting get a connection error, and a request made afterwards gets one at once.
 * The error carries no SFTP status, which is how the connection tells a lost link from a refusal.
 */
import type { SftpSession } from './ssh.js';

type Callback = (error: Error | null | undefined, ...values: unknown[]) => void;

/** The methods whose last argument is the callback that ssh2 may never call. */
const REQUESTS: ReadonlySet<PropertyKey> = new Set<keyof SftpSession>([
  'realpath',
  'stat',
  'lstat',
  'readdir',
  'opendir',
  'open',
  'fstat',
  'read',
  'write',
  'close',
  'mkdir',
  'rmdir',
  'unlink',
  'utimes',
  'ext_openssh_rename',
  'ext_openssh_hardlink',
]);

export interface GuardedSession {
  readonly session: SftpSession;
  /** Ends every waiting request with a connection error; later requests fail at once. */
  readonly fail: () => void;
}

function sessionGone(): Error {
  return new Error('The SFTP session ended before the machine answered.');
}

export function guardSession(raw: SftpSession): GuardedSession {
  const waiting = new Set<(error: Error) => void>();
  let ended = false;
  const fail = (): void => {
    if (ended) return;
    ended = true;
    for (const abort of [...waiting]) abort(sessionGone());
    waiting.clear();
  };
  raw.on('close', fail);
  const session = new Proxy(raw, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || !REQUESTS.has(key)) return value;
      return (...args: unknown[]): void => {
        const callback = args.pop() as Callback;
        let settled = false;
        const answer: Callback = (error, ...values) => {
          if (settled) return;
          settled = true;
          waiting.delete(abort);
          callback(error, ...values);
        };
        const abort = (error: Error): void => answer(error);
        if (ended) {
          process.nextTick(abort, sessionGone());
          return;
        }
        waiting.add(abort);
        (value as (...all: unknown[]) => void).apply(target, [...args, answer]);
      };
    },
  });
  return { session, fail };
}
