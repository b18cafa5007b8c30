/**
 * One IMAP connection for a host, opened on first use and opened again after it drops.
 *
 * - TLS is always on: implicit TLS (IMAPS) or STARTTLS that must succeed; the server's
 *   certificate is verified against the configured CA (or the system's roots) and name, and a
 *   certificate that does not verify refuses the connection.
 * - Credentials come from an `ImapCredentialSource` on every connect and are never logged or put
 *   in an error (imapflow's logger is off). A refused XOAUTH2 token is renewed once (the source
 *   decides, single-flight) and the login tried once more.
 * - Mailbox work runs under imapflow's mailbox lock, so operations on one connection never see
 *   another's selected mailbox.
 * - What the server said of itself is kept for the connection's life: its capabilities and
 *   namespace (imapflow asks them once, at login), and the mailbox list (LIST, at most half a
 *   minute old, for mailboxes other clients create). A new connection forgets the list, so a
 *   reconnect (perhaps to another backend behind the same name) asks again.
 * - Every outcome is reported to the reachability flag (`@inseam/connector/reachability`, the
 *   bucket kind's too) probeConnection answers from.
 */
import { ImapFlow } from 'imapflow';
import type { ListResponse, MailboxObject } from 'imapflow';
import { PermissionDeniedError, TimeoutError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import type { ImapConfig } from './config.js';
import type { MessageFacts } from './entries.js';
import { FactsCache } from './facts-cache.js';
import { Reachability } from '@inseam/connector/reachability';
import { SPECIAL_USES, type MailboxInfo, type SpecialUse } from './mailbox.js';

export interface ImapLogin {
  readonly user: string;
  readonly pass?: string;
  readonly accessToken?: string;
}

export interface ImapCredentialSource {
  /** The login to use now; null when nothing is stored for the host (yet). */
  login(): Promise<ImapLogin | null>;
  /** The server refused the login: renew it and resolve true when one more try may succeed. */
  rejected?(): Promise<boolean>;
}

export { SPECIAL_USES } from './mailbox.js';
export type { MailboxInfo, SpecialUse } from './mailbox.js';

const MAILBOX_CACHE_MS = 30_000;

function specialUseOf(box: ListResponse): SpecialUse {
  const use = (box.specialUse ?? '').replace(/^\\/u, '').toLowerCase();
  return (SPECIAL_USES as readonly string[]).includes(use) ? (use as SpecialUse) : box.path.toUpperCase() === 'INBOX' ? 'inbox' : 'none';
}

/** A typed error for a failure of imapflow or the socket; messages name the server, never a credential. */
export function imapError(error: unknown, what: string): Error {
  if (isConnectorError(error)) return error;
  const e = error as { code?: string; authenticationFailed?: boolean; message?: string; serverResponseCode?: string } | undefined;
  if (e?.authenticationFailed === true) return new PermissionDeniedError(`The IMAP server refused the login while ${what}; check the host's credentials.`);
  if (e?.code === 'ETIMEDOUT' || e?.code === 'ETIMEOUT' || e?.code === 'CONNECT_TIMEOUT' || e?.code === 'GREETING_TIMEOUT' || e?.code === 'UPGRADE_TIMEOUT') {
    return new TimeoutError(`The IMAP server did not answer in time while ${what}.`);
  }
  if (typeof e?.code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME/u.test(e.code)) {
    return new UnavailableError(`The IMAP server's TLS certificate could not be verified (${e.code}) while ${what}; configure the CA that signed it.`, { details: { reason: 'tls' } });
  }
  if (e?.serverResponseCode === 'NONEXISTENT' || e?.serverResponseCode === 'TRYCREATE') return new UnavailableError(`The mailbox does not exist on the server (${what}).`, { details: { reason: 'nonexistent' } });
  return new UnavailableError(`The IMAP server could not be used while ${what}${typeof e?.code === 'string' ? ` (${e.code})` : ''}.`, { cause: error });
}

export class ImapSession {
  readonly config: ImapConfig;
  /** Immutable facts of messages fetched on this session (messages.ts). */
  readonly facts = new FactsCache<MessageFacts>();
  readonly reachability: Reachability;
  readonly #credentials: ImapCredentialSource;
  #client: ImapFlow | undefined;
  #connecting: Promise<ImapFlow> | undefined;
  /** The mailbox list, and the connection that answered it (a list is a fact of one connection). */
  #mailboxes: { readonly at: number; readonly client: ImapFlow; readonly list: readonly MailboxInfo[] } | undefined;
  /** LIST commands sent (tests read it to tell a cached answer from a new one). */
  listCommands = 0;
  #closed = false;
  /** Called with each new connection, so watchers can tell a reconnect. */
  onConnect: ((client: ImapFlow) => void) | undefined;

  constructor(config: ImapConfig, credentials: ImapCredentialSource) {
    this.config = config;
    this.#credentials = credentials;
    this.reachability = new Reachability(
      async () => {
        await this.client();
      },
      { freshMs: 60_000, firstCheckTimeoutMs: 5_000, reason: 'store_unreachable' },
    );
  }

  /** A new, unshared connection (for IDLE), logged in. The caller logs it out. */
  async open(): Promise<ImapFlow> {
    const login = await this.#credentials.login();
    if (login === null) throw new PermissionDeniedError('No credentials are stored for this IMAP host; add its username and password (or connect its account).');
    try {
      return await this.#connect(login);
    } catch (error) {
      if ((error as { authenticationFailed?: boolean }).authenticationFailed === true && login.accessToken !== undefined && (await this.#credentials.rejected?.()) === true) {
        const renewed = await this.#credentials.login();
        if (renewed !== null) return this.#connect(renewed);
      }
      throw error;
    }
  }

  async #connect(login: ImapLogin): Promise<ImapFlow> {
    const config = this.config;
    const client = new ImapFlow({
      host: config.host,
      port: config.port,
      secure: config.tls === 'implicit',
      ...(config.tls === 'starttls' ? ({ doSTARTTLS: true }) : {}),
      ...(config.servername === undefined ? {} : { servername: config.servername }),
      tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2', ...(config.ca === undefined ? {} : { ca: config.ca }), ...(config.servername === undefined ? {} : { servername: config.servername }) },
      auth: login.accessToken !== undefined ? { user: login.user, accessToken: login.accessToken } : { user: login.user, pass: login.pass ?? '' },
      logger: false,
      qresync: true,
      disableAutoIdle: true,
      connectionTimeout: config.connectTimeoutMs,
      greetingTimeout: config.connectTimeoutMs,
      socketTimeout: 5 * 60_000,
      clientInfo: { name: 'inseam' },
    });
    // An error after connect also closes the client; the next call opens a new one.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  /** The shared connection, opened (again) when needed. Throws `permission_denied`, `unavailable`, `timeout`. */
  async client(): Promise<ImapFlow> {
    if (this.#closed) throw new UnavailableError('This IMAP host was closed.');
    const current = this.#client;
    if (current !== undefined && current.usable) return current;
    this.#connecting ??= this.open()
      .then(
        (client) => {
          this.#client = client;
          this.#mailboxes = undefined;
          client.on('close', () => {
            if (this.#client === client) this.#client = undefined;
          });
          this.reachability.reachable();
          this.onConnect?.(client);
          return client;
        },
        (error: unknown) => {
          const typed = imapError(error, 'connecting');
          if (isConnectorError(typed)) this.reachability.unreachable(typed.code);
          throw typed;
        },
      )
      .finally(() => {
        this.#connecting = undefined;
      });
    return this.#connecting;
  }

  capability(name: string): boolean {
    return this.#client?.capabilities.has(name) === true;
  }

  /** The server's hierarchy delimiter ('/' when it states none). */
  async delimiter(): Promise<string> {
    const client = await this.client();
    const namespace = (client as unknown as { namespace?: { delimiter?: string } }).namespace;
    return namespace?.delimiter ?? '/';
  }

  /** Selectable mailboxes with their special use, sorted by name; cached for half a minute. */
  async mailboxes(fresh = false): Promise<readonly MailboxInfo[]> {
    const client = await this.client();
    const cached = this.#mailboxes;
    if (!fresh && cached !== undefined && cached.client === client && Date.now() - cached.at < MAILBOX_CACHE_MS) return cached.list;
    let listed: ListResponse[];
    try {
      this.listCommands += 1;
      listed = await client.list();
    } catch (error) {
      throw this.#failed(error, 'listing mailboxes');
    }
    const wanted = this.config.mailboxes;
    const list = listed
      .filter((box) => !box.flags.has('\\Noselect') && !box.flags.has('\\NonExistent'))
      .filter((box) => wanted.length === 0 || wanted.includes(box.path))
      .map((box): MailboxInfo => ({ name: box.path, delimiter: box.delimiter ?? '/', specialUse: specialUseOf(box) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#mailboxes = { at: Date.now(), client, list };
    return list;
  }

  async mailbox(name: string): Promise<MailboxInfo | undefined> {
    return (await this.mailboxes()).find((box) => box.name === name) ?? (await this.mailboxes(true)).find((box) => box.name === name);
  }

  /** Runs `work` with `name` selected (EXAMINE when `readOnly`), under the mailbox lock. */
  async withMailbox<T>(name: string, work: (client: ImapFlow, mailbox: MailboxObject) => Promise<T>, options: { readonly readOnly?: boolean; readonly what: string }): Promise<T> {
    const client = await this.client();
    let lock;
    try {
      lock = await client.getMailboxLock(name, { readOnly: options.readOnly ?? true });
    } catch (error) {
      throw this.#failed(error, options.what);
    }
    try {
      const mailbox = client.mailbox;
      if (mailbox === false) throw new UnavailableError(`The mailbox could not be opened while ${options.what}.`);
      return await work(client, mailbox);
    } catch (error) {
      throw this.#failed(error, options.what);
    } finally {
      lock.release();
    }
  }

  /** Like withMailbox, but the lock is released only when `work`'s returned release is called (for streams). */
  async holdMailbox<T>(name: string, work: (client: ImapFlow, mailbox: MailboxObject) => Promise<T>, what: string): Promise<{ value: T; release: () => void }> {
    const client = await this.client();
    let lock;
    try {
      lock = await client.getMailboxLock(name, { readOnly: true });
    } catch (error) {
      throw this.#failed(error, what);
    }
    try {
      const mailbox = client.mailbox;
      if (mailbox === false) throw new UnavailableError(`The mailbox could not be opened while ${what}.`);
      return { value: await work(client, mailbox), release: () => lock.release() };
    } catch (error) {
      lock.release();
      throw this.#failed(error, what);
    }
  }

  #failed(error: unknown, what: string): Error {
    const typed = imapError(error, what);
    const code = (typed as { code?: string }).code;
    // Only failures of the server as a whole dim the host; a missing message does not.
    if (code === 'unavailable' && (typed as { details?: { reason?: string } }).details?.reason !== 'nonexistent') this.reachability.unreachable('unavailable');
    else if (code === 'timeout') this.reachability.unreachable('timeout');
    else this.reachability.reachable();
    return typed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) await client.logout().catch(() => client.close());
  }
}
