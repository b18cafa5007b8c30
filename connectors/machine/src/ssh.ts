/**
 * The part of the `ssh2` package this kind uses, typed here rather than through @types/ssh2 (which
 * pins an older @types/node). ssh2 is CommonJS; it is loaded with createRequire.
 */
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';

export interface SftpAttributes {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  /** Seconds since the epoch (SFTP v3 carries whole seconds). */
  readonly atime: number;
  readonly mtime: number;
}

export interface SftpDirEntry {
  readonly filename: string;
  readonly attrs: SftpAttributes;
}

/** An SFTP failure: `code` is the SFTP status (2 no such file, 3 permission denied, 4 failure). */
export interface SftpError extends Error {
  readonly code?: number | string;
}

type Callback<T> = (error: SftpError | undefined | null, value: T) => void;

export interface SftpSession {
  realpath(path: string, callback: Callback<string>): void;
  stat(path: string, callback: Callback<SftpAttributes>): void;
  lstat(path: string, callback: Callback<SftpAttributes>): void;
  readdir(pathOrHandle: string | Buffer, callback: Callback<SftpDirEntry[] | false>): void;
  opendir(path: string, callback: Callback<Buffer>): void;
  open(path: string, flags: string, attrs: { mode?: number }, callback: Callback<Buffer>): void;
  fstat(handle: Buffer, callback: Callback<SftpAttributes>): void;
  read(handle: Buffer, buffer: Buffer, offset: number, length: number, position: number, callback: (error: SftpError | undefined | null, bytesRead: number) => void): void;
  write(handle: Buffer, buffer: Buffer, offset: number, length: number, position: number, callback: (error: SftpError | undefined | null) => void): void;
  close(handle: Buffer, callback: (error: SftpError | undefined | null) => void): void;
  mkdir(path: string, attrs: { mode?: number }, callback: (error: SftpError | undefined | null) => void): void;
  rmdir(path: string, callback: (error: SftpError | undefined | null) => void): void;
  unlink(path: string, callback: (error: SftpError | undefined | null) => void): void;
  utimes(path: string, atime: number, mtime: number, callback: (error: SftpError | undefined | null) => void): void;
  ext_openssh_rename(from: string, to: string, callback: (error: SftpError | undefined | null) => void): void;
  ext_openssh_hardlink(from: string, to: string, callback: (error: SftpError | undefined | null) => void): void;
  end(): void;
  on(event: 'close', listener: () => void): this;
}

export interface ExecChannel extends Readable {
  readonly stderr: Readable;
  readonly stdin: Writable;
  on(event: 'exit', listener: (code: number | null, signal?: string) => void): this;
  on(event: 'close', listener: () => void): this;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: string, listener: (...args: never[]) => void): this;
  close(): void;
  signal(name: string): void;
}

/** What ssh2 hands an `error` listener: `level` tells a socket failure from an authentication one. */
export interface SshError extends Error {
  readonly level?: string;
  readonly code?: string;
}

export interface SshConnectConfig {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly privateKey?: string;
  readonly passphrase?: string;
  readonly password?: string;
  readonly readyTimeout: number;
  readonly keepaliveInterval: number;
  readonly keepaliveCountMax: number;
  /** Answers whether the server's host key (its raw public key blob) is the approved one. */
  readonly hostVerifier: (key: Buffer) => boolean;
  readonly tryKeyboard?: boolean;
}

export interface SshClient {
  connect(config: SshConnectConfig): this;
  setNoDelay(noDelay: boolean): this;
  sftp(callback: (error: SshError | undefined, sftp: SftpSession) => void): void;
  exec(command: string, callback: (error: SshError | undefined, channel: ExecChannel) => void): void;
  end(): void;
  destroy(): void;
  on(event: 'ready' | 'close' | 'end', listener: () => void): this;
  on(event: 'error', listener: (error: SshError) => void): this;
  once(event: 'ready' | 'close' | 'end', listener: () => void): this;
  once(event: 'error', listener: (error: SshError) => void): this;
  removeListener(event: string, listener: (...args: never[]) => void): this;
}

const require = createRequire(import.meta.url);
const ssh2 = require('ssh2') as { Client: new () => SshClient };

export function newSshClient(): SshClient {
  return new ssh2.Client();
}
