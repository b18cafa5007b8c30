/** ssh2's SFTP callbacks as promises. */
import type { SftpError } from './ssh.js';

export function sftpCall<T = void>(start: (done: (error: SftpError | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    start((error, value) => (error === undefined || error === null ? resolve(value as T) : reject(error)));
  });
}
