import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '@inseam/connector';
import { validateDescription } from '@inseam/connector';
import type { ImapHost } from './host.js';
import { ALICE, mail, startMailServer, text } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

const PDF = Buffer.from('%PDF-1.4\n% binary \u00ff\u00fe bytes\n%%EOF\n', 'latin1');

async function listAll(host: ImapHost, opts: { since?: string; order?: 'newest'; prefix?: string } = {}): Promise<{ entries: Entry[]; pages: number }> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await host.list({ ...opts, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { entries, pages };
}

describe('the imap host against Dovecot', () => {
  let server: MailServer;
  let host: ImapHost;
  const inbox: number[] = [];

  beforeAll(async () => {
    server = await startMailServer();
    inbox.push(
      ...(await server.append(
        'INBOX',
        mail({ subject: 'First', headers: ['Authentication-Results: mx.example.com; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass'] }),
        mail({
          subject: 'Forged',
          // The sender wrote both: one under another id, one under ours but below the receiving host's own.
          headers: [
            'Authentication-Results: mx.example.com; dkim=fail; spf=fail; dmarc=fail',
            'Authentication-Results: mx.attacker.test; dkim=pass; spf=pass; dmarc=pass',
            'Authentication-Results: mx.example.com; dkim=pass; spf=pass; dmarc=pass',
          ],
        }),
        mail({ subject: 'Report', cc: 'carol@example.net', headers: ['List-Id: "Team" <team.lists.example.org>', 'Reply-To: list@lists.example.org'], attachments: [{ name: 'report.pdf', type: 'application/pdf', bytes: PDF }] }),
        mail({ subject: 'No auth at all', from: 'Dave <dave@example.org>' }),
      )),
    );
    await server.append('Sent', mail({ from: 'Alice <alice@example.com>', to: 'bob@example.org', subject: 'My reply' }));
    await server.append('Trash', mail({ subject: 'Binned' }));
    host = server.host({ authservId: 'mx.example.com', ownAddresses: ['alice@example.com'] }, { pageSize: 2 });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('describes a valid host: one ordering dimension, a default scope leaving out Trash and Junk, credentials declared', () => {
    const description = host.describe();
    const { origins: _origins, ...auth } = description.auth;
    // The origin is imaps://, which the HTTP trial would refuse; everything else validates.
    expect(() => validateDescription({ ...description, auth: { ...auth, origins: ['https://127.0.0.1'] } })).not.toThrow();
    expect(description.auth.origins).toEqual([`imaps://127.0.0.1:${server.dovecot.port}`]);
    expect(description.auth.fields?.map((field) => [field.name, field.secret])).toEqual([
      ['username', false],
      ['password', true],
    ]);
    expect(description.defaultScope).toEqual({ rules: [{ exclude: { dim: 'specialUse', op: 'in', value: ['trash', 'junk'] } }] });
    expect(Object.entries(description.dimensions).filter(([, d]) => d.ordering === true).map(([name]) => name)).toEqual(['date']);
  });

  it('lists one entry per message at INBOX/{uidvalidity}-{uid}.eml and one per attachment, across pages, each once', async () => {
    const { entries, pages } = await listAll(host);
    expect(pages).toBeGreaterThan(2);
    const paths = entries.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
    const inboxPaths = paths.filter((path) => path.startsWith('INBOX/'));
    expect(inboxPaths).toHaveLength(5);
    expect(inboxPaths[0]).toMatch(/^INBOX\/[0-9]+-1\.eml$/);
    expect(paths.some((path) => /^INBOX\/[0-9]+-3\.parts\/1-report\.pdf$/.test(path))).toBe(true);
    expect(paths.filter((path) => path.startsWith('Sent/'))).toHaveLength(1);
    expect(paths.filter((path) => path.startsWith('Trash/'))).toHaveLength(1);
    for (const entry of entries) {
      for (const [name, dimension] of Object.entries(host.describe().dimensions)) {
        const value = dimension.from === 'mtime' ? entry.mtime : (entry.extra as Record<string, unknown>)[dimension.from.slice('extra.'.length)];
        expect(value, `${entry.path} ${name}`).not.toBeUndefined();
      }
    }
  });

  it('a cursor round-trips: the same page again while the mailbox is unchanged', async () => {
    const first = await host.list({});
    const second = await host.list({ cursor: first.cursor! });
    const again = await host.list({ cursor: first.cursor! });
    expect(again).toEqual(second);
    await expect(host.list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('states the envelope as the headers give it: roles, no invented sender or reply-to, direction, list', async () => {
    const { entries } = await listAll(host);
    const bySubject = (subject: string): Entry => entries.find((entry) => entry.extra?.['subject'] === subject && entry.extra?.['kind'] === 'message')!;
    expect(bySubject('First').envelope).toEqual({
      direction: 'received',
      parties: [
        { identity: 'mailto:bob@example.org', role: 'from' },
        { identity: 'mailto:alice@example.com', role: 'to' },
      ],
      auth: { dkim: true, spf: true, dmarc: true },
    });
    const report = bySubject('Report').envelope!;
    expect(report.parties).toEqual([
      { identity: 'mailto:bob@example.org', role: 'from' },
      { identity: 'mailto:list@lists.example.org', role: 'reply-to' },
      { identity: 'mailto:alice@example.com', role: 'to' },
      { identity: 'mailto:carol@example.net', role: 'cc' },
    ]);
    expect(report.list).toBe('team.lists.example.org');
    expect(report.auth).toBeUndefined();
    expect(bySubject('My reply').envelope?.direction).toBe('sent');
    expect(bySubject('No auth at all').envelope?.auth).toBeUndefined();
  });

  it('ignores a forged Authentication-Results header: another authserv-id, or ours below the receiving host\'s own', async () => {
    const { entries } = await listAll(host);
    const forged = entries.find((entry) => entry.extra?.['subject'] === 'Forged')!;
    expect(forged.envelope?.auth).toEqual({ dkim: false, spf: false, dmarc: false });
    const trusting = server.host({ authservId: 'mx.attacker.test' });
    const seen = (await listAll(trusting)).entries.find((entry) => entry.extra?.['subject'] === 'Forged')!;
    // Only a host configured to trust that id reads it.
    expect(seen.envelope?.auth).toEqual({ dkim: true, spf: true, dmarc: true });
    const untrusting = server.host({});
    expect((await listAll(untrusting)).entries.every((entry) => entry.envelope?.auth === undefined)).toBe(true);
  });

  it('reads the raw message as message/rfc822 bytes, with ranges, and an attachment as its decoded bytes', async () => {
    const { entries } = await listAll(host);
    const report = entries.find((entry) => entry.extra?.['subject'] === 'Report' && entry.extra?.['kind'] === 'message')!;
    expect(report.mime).toBe('message/rfc822');
    const raw = await text(await host.read(report.path));
    expect(raw.byteLength).toBe(report.size);
    expect(raw.toString()).toContain('Subject: Report');
    expect((await text(await host.read(report.path, { range: [5, 25] }))).toString()).toBe(raw.subarray(5, 25).toString());
    expect((await text(await host.read(report.path, { range: [raw.byteLength, raw.byteLength + 10] }))).byteLength).toBe(0);
    const attachment = entries.find((entry) => entry.path.endsWith('1-report.pdf'))!;
    expect(attachment.mime).toBe('application/pdf');
    expect(Buffer.compare(await text(await host.read(attachment.path)), PDF)).toBe(0);
    expect(Buffer.compare(await text(await host.read(attachment.path, { range: [2, 9] })), PDF.subarray(2, 9))).toBe(0);
    expect(await host.stat(attachment.path)).toEqual(attachment);
    expect(await host.stat(report.path)).toEqual(report);
  });

  it('answers null and not_found for what is not there, and refuses non-canonical paths', async () => {
    expect(await host.stat('INBOX/1-999.eml')).toBeNull();
    expect(await host.stat('INBOX')).toBeNull();
    await expect(host.read('INBOX/1-999.eml')).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.read('IN%42OX/1-1.eml')).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(host.read('INBOX/../x')).rejects.toMatchObject({ code: 'invalid_uri' });
  });

  it('lists since a date (inclusive, by arrival) and newest first across pages and mailboxes', async () => {
    const all = (await listAll(host)).entries.filter((entry) => entry.extra?.['kind'] === 'message');
    const future = (await listAll(host, { since: '2099-01-01T00:00:00Z' })).entries;
    expect(future).toEqual([]);
    const recent = (await listAll(host, { since: new Date(Date.now() - 3_600_000).toISOString() })).entries.filter((entry) => entry.extra?.['kind'] === 'message');
    expect(recent.map((entry) => entry.path).sort()).toEqual(all.map((entry) => entry.path).sort());
    const newest = (await listAll(host, { order: 'newest' })).entries.filter((entry) => entry.extra?.['kind'] === 'message');
    expect(newest.map((entry) => entry.path).sort()).toEqual(all.map((entry) => entry.path).sort());
    const dates = newest.map((entry) => entry.mtime!);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('keeps the login out of every error', async () => {
    const wrong = server.host({}, {});
    const bad = (await import('./factory.js')).createImapHost(server.config(), { credentials: { login: async () => ({ user: ALICE.name, pass: 'wrong-secret-value' }) } });
    const error = await bad.list({}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'permission_denied' });
    expect(JSON.stringify(error) + String((error as Error).message)).not.toContain('wrong-secret-value');
    await bad.dispose();
    await wrong.dispose();
  });

  it('lists since an exact moment by INTERNALDATE: later the same day is listed, earlier that day is not', async () => {
    const client = await server.client();
    const at = async (subject: string, iso: string): Promise<number> => {
      const result = await client.append('Archive', mail({ subject }), [], new Date(iso));
      if (result === false || result.uid === undefined) throw new Error('append failed');
      return result.uid;
    };
    await at('The day before', '2024-03-09T23:30:00Z');
    await at('That morning', '2024-03-10T08:00:00Z');
    await at('A second before', '2024-03-10T11:59:59Z');
    await at('At the moment', '2024-03-10T12:00:00Z');
    await at('That afternoon', '2024-03-10T15:00:00Z');
    const since = '2024-03-10T12:00:00Z';
    const subjects = (entries: readonly Entry[]): string[] => entries.filter((entry) => entry.extra?.['kind'] === 'message').map((entry) => String(entry.extra?.['subject'])).sort();
    expect(subjects((await listAll(host, { since, prefix: 'Archive/' })).entries)).toEqual(['At the moment', 'That afternoon']);
    expect(subjects((await listAll(host, { since, prefix: 'Archive/', order: 'newest' })).entries)).toEqual(['At the moment', 'That afternoon']);
    // Between the second and the next: INTERNALDATE is to the second, so that second counts.
    expect(subjects((await listAll(host, { since: '2024-03-10T12:00:00.400Z', prefix: 'Archive/' })).entries)).toEqual(['At the moment', 'That afternoon']);
  });
});
