/** A system user that may log in with a password only. */
export interface PasswordLogin {
  readonly username: string;
  readonly password: string;
  /** A folder the user owns, for the machine's root. */
  readonly root: string;
}

export interface SshdFixture {
  /** Real path of the temp folder; `root` and `outside` are below it. */
  readonly base: string;
  readonly port: number;
  readonly username: string;
  /** The client's private key (OpenSSH format). */
  readonly privateKey: string;
  /** The file holding that key, for OpenSSH's client and rclone. */
  readonly keyFile: string;
  /** A known_hosts file naming the current host key at `[127.0.0.1]:port`. */
  readonly knownHosts: string;
  /** The server's host key fingerprint, `SHA256:…` as ssh-keygen prints it. */
  readonly fingerprint: string;
  /** A folder the tests use as the machine's root. */
  readonly root: string;
  /** A folder beside the root, for escape attempts. */
  readonly outside: string;
  /** Only with `{ passwordUser: true }`. */
  readonly passwordLogin?: PasswordLogin;
  /** Replaces the host key (a changed machine, or a machine in the middle). */
  rotateHostKey(): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export declare function startSshd(options?: { readonly passwordUser?: boolean }): Promise<SshdFixture>;
