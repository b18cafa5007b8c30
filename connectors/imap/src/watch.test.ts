import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@inseam/connector';
import type { ImapHost } from './host.js';
import { mail, startMailServer } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

describe('imap watch: IDLE, CONDSTORE/QRESYNC, reconnect', () => {
  let server: MailServer;
  let host: ImapHost;
  const events: ChangeEvent[] = [];
  let stop: () => void;

  beforeAll(async () => {
    server = await startMailServer();
    await server.append('INBOX', mail({ subject: 'old' }));
    await server.append('Archive', mail({ subject: 'archived' }));
    host = server.host({}, { pollMs: 300 });
    stop = await host.watch((event) => events.push(event));
  });

  afterAll(async () => {
    stop?.();
    await server?.stop();
  });

  const since = (from: number): ChangeEvent[] => events.slice(from);

  it('reports new mail in INBOX (IDLE) and in another mailbox (STATUS) as puts with entries', async () => {
    const from = events.length;
    const [inboxUid] = await server.append('INBOX', mail({ subject: 'fresh' }));
    const [archiveUid] = await server.append('Archive', mail({ subject: 'filed' }));
    await expect.poll(() => since(from).filter((event) => event.type === 'put').map((event) => event.entry?.extra?.['subject']).sort(), { timeout: 10_000 }).toEqual(['filed', 'fresh']);
    const put = since(from).find((event) => event.entry?.extra?.['subject'] === 'fresh')!;
    expect(put.path).toMatch(new RegExp(`^INBOX/[0-9]+-${inboxUid}\\.eml$`));
    expect(since(from).find((event) => event.entry?.extra?.['subject'] === 'filed')!.path).toMatch(new RegExp(`^Archive/[0-9]+-${archiveUid}\\.eml$`));
  });

  it('reports a flag change (CHANGEDSINCE) as a put and an expunge (VANISHED) as a delete', async () => {
    const other = await server.client();
    await other.mailboxOpen('INBOX');
    const from = events.length;
    await other.messageFlagsAdd('1', ['\\Flagged'], { uid: true });
    await expect.poll(() => since(from).some((event) => event.type === 'put' && event.entry?.extra?.['flagged'] === true), { timeout: 10_000 }).toBe(true);
    const flagged = since(from).find((event) => event.type === 'put')!;
    const next = events.length;
    await other.messageDelete('1', { uid: true });
    await expect.poll(() => since(next).some((event) => event.type === 'delete' && event.path === flagged.path), { timeout: 10_000 }).toBe(true);
  });

  it('comes back after the server goes away and finds what changed meanwhile', async () => {
    await server.dovecot.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.dovecot.resume();
    // Changed by another client while the watch may still be reconnecting.
    const other = await server.client();
    await other.append('INBOX', mail({ subject: 'while away' }));
    const from = 0;
    await expect.poll(() => since(from).some((event) => event.entry?.extra?.['subject'] === 'while away'), { timeout: 20_000 }).toBe(true);
  });
});
