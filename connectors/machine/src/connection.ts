/**
 * One binding's SSH connection, and the runtime state the platform reads. The connection is opened
 * when the binding is made and kept; when it drops, or an attempt fails for a reason that may pass
 * (the machine is down), the next attempt follows after `reconnectMs`, doubling to 16 × that (at
 * most 60 s); any operation meanwhile tries at once. So
 * `isActive()` answers from the state alone, never connecting: active unless the last attempt
 * found the machine not answering (the very first attempt counts as active until it has failed).
 * Failures that need a person (a refused login, an unapproved or changed host key) are not
 * retried on a timer; the next operation tries again.
 *
 * Secrets: the key or password is fetched from the credential resolver for each attempt and
 * handed to ssh2 only; it is never kept on this object, logged, or put in an error.
 */
import { posix } from 'node:path';
import { failure, failureOfSshError, unavailable } from './failures.js';
import type { ConnectionFailure } from './failures.js';
import { fingerprintOf, judgeHostKey } from './host-key.js';
import { newSshClient } from './ssh.js';
import type { ExecChannel, SftpSession, SshClient } from './ssh.js';
import type { MachineConfig } from './config.js';
import { guardSession } from './session-guard.js';
import { sftpCall } from './sftp-call.js';

export interface MachineSecret {
  readonly privateKey?: string;
  readonly passphrase?: string;
  readonly password?: string;
}

export type SecretSource = () => Promise<MachineSecret | null>;

export type ConnectionState = 'connecting' | 'ready' | 'down';

interface Live {
  readonly client: SshClient;
  readonly sftp: SftpSession;
  /** Answers the session's waiting requests with a connection error once the link is gone. */
  readonly endSession: () => void;
  /** The root's real path on the machine. */
  readonly rootPath: string;
  /** The login's home, for relative state folders. */
  readonly home: string;
}

/** Retries back off by doubling, to 16 × reconnectMs and never past a minute. */
const MAX_BACKOFF_MS = 60_000;
const MAX_BACKOFF_STEPS = 16;

export class MachineConnection {
  #state: ConnectionState = 'connecting';
  #everFailed = false;
  #failure: ConnectionFailure | undefined;
  #live: Live | undefined;
  #pending: Promise<Live> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #backoff: number;
  #disposed = false;
  /** The fingerprint the machine presented last, approved or not. */
  #presented: string | undefined;

  constructor(
    private readonly config: MachineConfig,
    private readonly secret: SecretSource,
  ) {
    this.#backoff = config.reconnectMs;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get lastFailure(): ConnectionFailure | undefined {
    return this.#failure;
  }

  get presentedFingerprint(): string | undefined {
    return this.#presented;
  }

  /**
   * From the state only; never connects. The runtime is the machine answering SSH: a refused
   * login or an unapproved key means it is running (the probe says what is wrong), a machine
   * that does not answer means it is not.
   */
  isActive(): boolean {
    if (this.#state === 'ready' || !this.#everFailed) return true;
    return this.#failure !== undefined && this.#failure.reason !== 'runtime_offline';
  }

  /** Starts the first attempt in the background. */
  start(): void {
    void this.open().catch(() => undefined);
  }

  /** The live connection, opened (or re-opened) when needed. Throws `unavailable` with the probe reason. */
  open(): Promise<Live> {
    if (this.#disposed) return Promise.reject(unavailable(failure('disconnected')));
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    this.#pending ??= this.#connect().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async sftp(): Promise<{ readonly sftp: SftpSession; readonly rootPath: string; readonly home: string }> {
    return this.open();
  }

  /** Opens an exec channel running `command` through the login's shell. */
  async exec(command: string): Promise<ExecChannel> {
    const live = await this.open();
    return new Promise((resolve, reject) => {
      try {
        live.client.exec(command, (error, channel) => (error === undefined || error === null ? resolve(channel) : reject(this.#lost(live))));
      } catch {
        // ssh2 throws "Not connected" when the socket closed before it told us.
        reject(this.#lost(live));
      }
    });
  }

  /**
   * Called with an error from an SFTP request or channel: one without an SFTP status means the
   * connection itself failed, which is marked here; returns the error to throw.
   */
  connectionError(error: unknown): Error | undefined {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number') return undefined;
    const live = this.#live;
    if (live !== undefined) return this.#lost(live);
    return unavailable(this.#failure ?? failure('disconnected'));
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#live?.client.end();
    this.#live = undefined;
  }

  /** Marks the connection lost (a channel failed) and returns the error to throw. */
  #lost(live: Live): Error {
    if (this.#live === live) {
      this.#live = undefined;
      live.client.destroy();
      live.endSession();
      this.#markDown(failure('disconnected'));
    }
    return unavailable(this.#failure ?? failure('disconnected'));
  }

  #markDown(cause: ConnectionFailure): void {
    this.#state = 'down';
    this.#everFailed = true;
    this.#failure = cause;
    if (this.#disposed || this.#timer !== undefined) return;
    if (cause.reason !== 'runtime_offline' && cause.problem !== 'sftp_unavailable') return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, this.config.reconnectMs * MAX_BACKOFF_STEPS, MAX_BACKOFF_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.open().catch(() => undefined);
    }, delay);
    this.#timer.unref();
  }

  async #connect(): Promise<Live> {
    if (this.#state !== 'ready') this.#state = this.#everFailed ? 'down' : 'connecting';
    let live: Live;
    try {
      live = await this.#handshake();
    } catch (error) {
      const cause = (error as { failure?: ConnectionFailure }).failure ?? failure('unreachable');
      this.#markDown(cause);
      throw unavailable(cause);
    }
    this.#live = live;
    this.#state = 'ready';
    this.#failure = undefined;
    this.#backoff = this.config.reconnectMs;
    const onGone = (): void => {
      live.endSession();
      if (this.#live !== live) return;
      this.#live = undefined;
      this.#markDown(failure('disconnected'));
    };
    live.client.on('close', onGone);
    live.client.on('error', onGone);
    return live;
  }

  async #handshake(): Promise<Live> {
    const secret = await this.secret().catch(() => null);
    const fields =
      this.config.auth === 'password'
        ? secret?.password === undefined ? undefined : { password: secret.password }
        : secret?.privateKey === undefined ? undefined : { privateKey: secret.privateKey, ...(secret.passphrase === undefined ? {} : { passphrase: secret.passphrase }) };
    if (fields === undefined) throw Object.assign(new Error('no credential'), { failure: failure('no_credential') });
    const client = newSshClient();
    let refused: ConnectionFailure | undefined;
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Parameters<typeof failureOfSshError>[0]): void => {
        client.destroy();
        reject(Object.assign(new Error('connection failed'), { failure: refused ?? failureOfSshError(error) }));
      };
      client.once('ready', () => {
        client.removeListener('error', onError);
        resolve();
      });
      client.once('error', onError);
      try {
        client.connect({
          host: this.config.host,
          port: this.config.port,
          username: this.config.username,
          ...fields,
          tryKeyboard: false,
          readyTimeout: this.config.connectTimeoutMs,
          keepaliveInterval: 5_000,
          keepaliveCountMax: 3,
          hostVerifier: (key: Buffer) => {
            const presented = fingerprintOf(key);
            this.#presented = presented;
            const verdict = judgeHostKey(this.config.hostKey, presented);
            if (verdict === 'approved') return true;
            refused = failure(verdict === 'changed' ? 'host_key_changed' : 'host_key_unapproved', presented);
            return false;
          },
        });
        // SFTP keeps many small read requests in flight; with Nagle on, each waits for the last
        // segment's acknowledgement and a large read spends most of its time idle.
        client.setNoDelay(true);
      } catch {
        // ssh2 throws synchronously for a key it cannot parse; the message could quote it.
        client.destroy();
        reject(Object.assign(new Error('bad key'), { failure: failure('authentication_failed') }));
      }
    });
    try {
      const raw = await new Promise<SftpSession>((resolve, reject) => client.sftp((error, session) => (error ? reject(error) : resolve(session))));
      const { session: sftp, fail: endSession } = guardSession(raw);
      const home = await sftpCall<string>((done) => sftp.realpath('.', done));
      const rootPath = await this.#checkRoot(sftp);
      return { client, sftp, endSession, rootPath, home };
    } catch (error) {
      client.end();
      throw (error as { failure?: unknown }).failure === undefined ? Object.assign(new Error('sftp'), { failure: failure('sftp_unavailable') }) : error;
    }
  }

  async #checkRoot(sftp: SftpSession): Promise<string> {
    try {
      const real = await sftpCall<string>((done) => sftp.realpath(this.config.root, done));
      const attrs = await sftpCall<{ mode: number }>((done) => sftp.stat(real, done));
      if ((attrs.mode & 0o170000) !== 0o040000) throw Object.assign(new Error('root'), { failure: failure('root_missing') });
      const handle = await sftpCall<Buffer>((done) => sftp.opendir(real, done));
      await sftpCall((done) => sftp.close(handle, done));
      return posix.normalize(real);
    } catch (error) {
      if ((error as { failure?: unknown }).failure !== undefined) throw error;
      const code = (error as { code?: unknown }).code;
      throw Object.assign(new Error('root'), { failure: failure(code === 3 ? 'root_forbidden' : 'root_missing') });
    }
  }
}
