/**
 * Host keys. A machine's key is pinned as the SHA256 fingerprint ssh-keygen -l prints
 * (`SHA256:` and the unpadded base64 of the digest of the key blob). Nothing is trusted on first
 * use by itself: with no approved key the connection is refused and the key it presented is kept
 * so a person can look at it and approve it (the platform's trust-key step), after which it is pinned in the
 * host's config; a key that differs from the pinned one is refused, every time.
 */
import { createHash } from 'node:crypto';
import { failure, unavailable } from './failures.js';
import { newSshClient } from './ssh.js';

export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

export type HostKeyVerdict = 'approved' | 'unapproved' | 'changed';

export function judgeHostKey(pinned: string | undefined, presented: string): HostKeyVerdict {
  if (pinned === undefined) return 'unapproved';
  return pinned === presented ? 'approved' : 'changed';
}

/**
 * The fingerprint a machine presents, read without logging in (the handshake is stopped at the
 * host key), so a person can compare it with the machine's own before approving it. Throws
 * `unavailable` (reason runtime_offline) when the machine does not answer.
 */
export async function scanHostKey(target: { readonly host: string; readonly port: number; readonly username: string }, timeoutMs = 10_000): Promise<string> {
  const client = newSshClient();
  return new Promise<string>((resolve, reject) => {
    let seen: string | undefined;
    client.once('error', () => {
      client.destroy();
      if (seen !== undefined) resolve(seen);
      else reject(unavailable(failure('unreachable')));
    });
    client.once('ready', () => {
      client.end();
      if (seen !== undefined) resolve(seen);
    });
    client.connect({
      host: target.host,
      port: target.port,
      username: target.username,
      readyTimeout: timeoutMs,
      keepaliveInterval: 0,
      keepaliveCountMax: 0,
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        seen = fingerprintOf(key);
        return false;
      },
    });
  });
}
