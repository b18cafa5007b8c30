/**
 * Test helpers: a Dovecot per test file, an imap host on it, and messages to put there.
 */
import { ImapFlow } from 'imapflow';
import { createImapHost } from '../factory.js';
import type { ImapHost, ImapHostOptions } from '../host.js';
import { startDovecot } from './dovecot.mjs';
import type { Dovecot } from './dovecot.mjs';

export const ALICE = { name: 'alice', password: 'alice-Pa55-word' } as const;

export interface MailServer {
  readonly dovecot: Dovecot;
  /** A host on the server with alice's login; closed by `stop()`. */
  host(config?: Record<string, unknown>, options?: ImapHostOptions): ImapHost;
  /** The config of a host on this server. */
  config(extra?: Record<string, unknown>): Record<string, unknown>;
  /** A plain imapflow client as alice (another mail client changing things). */
  client(): Promise<ImapFlow>;
  /** Appends messages to a mailbox; resolves their UIDs in order. */
  append(mailbox: string, ...messages: string[]): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startMailServer(): Promise<MailServer> {
  const dovecot = await startDovecot({ users: [ALICE] });
  const hosts: ImapHost[] = [];
  const clients: ImapFlow[] = [];
  const config = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca, ...extra });
  const client = async (): Promise<ImapFlow> => {
    const c = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: true, tls: { ca: dovecot.ca }, auth: { user: ALICE.name, pass: ALICE.password }, logger: false });
    c.on('error', () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  };
  let admin: ImapFlow | undefined;
  return {
    dovecot,
    config,
    host(extra = {}, options = {}) {
      const host = createImapHost(config(extra), { ...options, credentials: { login: async () => ({ user: ALICE.name, pass: ALICE.password }) } });
      hosts.push(host);
      return host;
    },
    client,
    async append(mailbox, ...messages) {
      admin ??= await client();
      const uids: number[] = [];
      for (const message of messages) {
        const result = await admin.append(mailbox, message);
        if (result === false || result.uid === undefined) throw new Error('append failed');
        uids.push(result.uid);
      }
      return uids;
    },
    async stop() {
      for (const host of hosts) await host.dispose().catch(() => undefined);
      for (const c of clients) await c.logout().catch(() => c.close());
      await dovecot.stop();
    },
  };
}

export interface MailSpec {
  readonly from?: string;
  readonly to?: string;
  readonly cc?: string;
  readonly subject?: string;
  readonly date?: string;
  readonly headers?: readonly string[];
  readonly body?: string;
  readonly attachments?: readonly { readonly name: string; readonly type: string; readonly bytes: Uint8Array }[];
}

/** An RFC 5322 message with CRLF line ends; attachments base64 in a multipart/mixed. */
export function mail(spec: MailSpec = {}): string {
  const head = [
    ...(spec.headers ?? []),
    `From: ${spec.from ?? 'Bob <bob@example.org>'}`,
    `To: ${spec.to ?? 'Alice <alice@example.com>'}`,
    ...(spec.cc === undefined ? [] : [`Cc: ${spec.cc}`]),
    `Subject: ${spec.subject ?? 'Hello'}`,
    `Date: ${spec.date ?? 'Tue, 01 Dec 2026 10:00:00 +0000'}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@example.org>`,
    'MIME-Version: 1.0',
  ];
  const body = spec.body ?? 'Hi Alice,\r\nthe report is attached.\r\n';
  if (spec.attachments === undefined || spec.attachments.length === 0) {
    return [...head, 'Content-Type: text/plain; charset=utf-8', '', body].join('\r\n');
  }
  const boundary = 'b0undary-inseam';
  const parts = spec.attachments.map((item) =>
    [
      `--${boundary}`,
      `Content-Type: ${item.type}; name="${item.name}"`,
      'Content-Transfer-Encoding: base64',
      `Content-Disposition: attachment; filename="${item.name}"`,
      '',
      (Buffer.from(item.bytes).toString('base64').match(/.{1,76}/gu) ?? ['']).join('\r\n'),
    ].join('\r\n'),
  );
  return [...head, `Content-Type: multipart/mixed; boundary="${boundary}"`, '', `--${boundary}`, 'Content-Type: text/plain; charset=utf-8', '', body, ...parts, `--${boundary}--`, ''].join('\r\n');
}

export async function text(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
