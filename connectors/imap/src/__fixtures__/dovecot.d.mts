export declare const SPECIAL_MAILBOXES: readonly { readonly name: string; readonly use: string }[];
export interface DovecotUser {
  readonly name: string;
  readonly password: string;
}
export interface Dovecot {
  readonly host: string;
  readonly port: number;
  readonly ca: string;
  readonly caPath: string;
  readonly dir: string;
  readonly users: readonly DovecotUser[];
  maildir(user: string): string;
  pause(): Promise<void>;
  resume(): Promise<void>;
  log(): Promise<string>;
  stop(): Promise<void>;
}
export declare function makeTestCa(dir: string, name?: string): { ca: string; cert: string; key: string };
export declare function startDovecot(options?: { users?: readonly DovecotUser[]; oauth?: { introspectionUrl: string } }): Promise<Dovecot>;
export declare function maildirFolder(maildir: string, mailbox: string): string;
