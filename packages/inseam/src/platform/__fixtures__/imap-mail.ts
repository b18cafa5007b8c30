/** Plain-text messages for the imap integration tests, and appending them to the private Dovecot. */
import type { ImapFlow } from 'imapflow';

/** An RFC 5322 message from Bob to Alice with a fresh Message-ID; `headers` come first, as a relay would add them. */
export function plainMessage(subject: string, extra: { headers?: string[]; body?: string; from?: string } = {}): string {
  return [
    ...(extra.headers ?? []),
    `From: ${extra.from ?? 'Bob <bob@example.org>'}`,
    'To: Alice <alice@example.com>',
    `Subject: ${subject}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@example.org>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    extra.body ?? `Body of ${subject}.`,
    '',
  ].join('\r\n');
}

/** Appends `text` to `mailbox` and answers its UID. */
export async function appendMessage(client: ImapFlow, mailbox: string, text: string): Promise<number> {
  const result = await client.append(mailbox, text);
  if (result === false || result.uid === undefined) throw new Error(`APPEND to ${mailbox} failed.`);
  return result.uid;
}
