import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, Entry } from '@inseam/connector';
import { createImapPort } from './factory.js';
import type { ImapHost } from './host.js';
import { mail, startMailServer, text } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

async function find(host: ImapHost, subject: string): Promise<Entry> {
  let cursor: string | undefined;
  do {
    const page = await host.list(cursor === undefined ? {} : { cursor });
    const found = page.entries.find((entry) => entry.extra?.['subject'] === subject && entry.extra?.['kind'] === 'message');
    if (found !== undefined) return found;
    cursor = page.cursor;
  } while (cursor !== undefined);
  throw new Error(`no message "${subject}"`);
}

describe('imap writes: drafts, flags, moves, deletes — each conditional on ifMatch', () => {
  let server: MailServer;
  let host: ImapHost;
  const events: ChangeEvent[] = [];
  let stop: () => void;

  beforeAll(async () => {
    server = await startMailServer();
    await server.append('INBOX', mail({ subject: 'flag me' }), mail({ subject: 'move me', attachments: [{ name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('notes') }] }), mail({ subject: 'bin me' }), mail({ subject: 'race me' }));
    host = server.host({}, { pollMs: 200 });
    stop = await host.watch((event) => events.push(event));
  });

  afterAll(async () => {
    stop?.();
    await server?.stop();
  });

  it('appends a draft to Drafts and nowhere else; a draft is never replaced', async () => {
    const draft = mail({ from: 'alice@example.com', to: 'bob@example.org', subject: 'A draft' });
    const entry = await host.write('Drafts/new.eml', new Blob([draft]).stream());
    expect(entry.path).toMatch(/^Drafts\/[0-9]+-1\.eml$/);
    expect(entry.extra?.['draft']).toBe(true);
    expect((await text(await host.read(entry.path))).toString()).toBe(draft);
    await expect(host.write('INBOX/new.eml', new Blob([draft]).stream())).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host.write(entry.path, new Blob([draft]).stream())).rejects.toMatchObject({ code: 'unsupported' });
    await expect(host.write('Drafts/x.eml', new Blob(['not a message']).stream())).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect.poll(() => events.some((event) => event.type === 'put' && event.path === entry.path)).toBe(true);
  });

  it('sets and clears flags only while ifMatch is the current etag, and refuses flag injection', async () => {
    const entry = await find(host, 'flag me');
    const flagged = await host.setFlags(entry.path, { add: ['\\Flagged', '\\Seen'] }, { ifMatch: entry.etag! });
    expect(flagged.extra).toMatchObject({ flagged: true, seen: true });
    expect(flagged.etag).not.toBe(entry.etag);
    await expect(host.setFlags(entry.path, { remove: ['\\Seen'] }, { ifMatch: entry.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect((await host.stat(entry.path))?.extra?.['seen']).toBe(true);
    const cleared = await host.setFlags(entry.path, { remove: ['\\Seen'] }, { ifMatch: flagged.etag! });
    expect(cleared.extra).toMatchObject({ flagged: true, seen: false });
    await expect(host.setFlags(entry.path, { add: ['\\Deleted'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host.setFlags(entry.path, { add: ['x) UID EXPUNGE 1:*'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await host.stat(entry.path)).not.toBeNull();
  });

  it('a change another client makes first wins over a stale ifMatch', async () => {
    const entry = await find(host, 'race me');
    const other = await server.client();
    await other.mailboxOpen('INBOX');
    await other.messageFlagsAdd(String(entry.extra!['uid']), ['\\Answered'], { uid: true });
    await expect(host.setFlags(entry.path, { add: ['\\Flagged'] }, { ifMatch: entry.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(host.move(entry.path, 'Archive', { ifMatch: entry.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(host.delete(entry.path, { ifMatch: entry.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect((await host.stat(entry.path))?.extra?.['flagged']).toBe(false);
  });

  it('moves a message between mailboxes as a move (with its attachments), not a delete and an add', async () => {
    const entry = await find(host, 'move me');
    const before = events.length;
    const moved = await host.move(entry.path, 'Archive', { ifMatch: entry.etag! });
    expect(moved.path).toMatch(/^Archive\/[0-9]+-1\.eml$/);
    expect(await host.stat(entry.path)).toBeNull();
    expect((await text(await host.read(moved.path))).toString()).toContain('Subject: move me');
    // Another client's flag change in the test before may be polled in between: find ours by path.
    const mine = events.slice(before);
    expect(mine.filter((event) => event.from === entry.path || event.path === entry.path)).toEqual([expect.objectContaining({ type: 'move', from: entry.path, path: moved.path })]);
    expect(mine.some((event) => event.type === 'move' && event.from?.endsWith('.parts/1-notes.txt') === true && event.path.startsWith('Archive/'))).toBe(true);
    expect(mine.filter((event) => event.type === 'move').every((event) => event.from !== undefined)).toBe(true);
  });

  it('a poll that sees its own move before this host announced it stays quiet: a move, never a delete', async () => {
    await server.append('INBOX', mail({ subject: 'move me slowly' }));
    const entry = await find(host, 'move me slowly');
    const before = events.length;
    // The move's last step (reading the moved message back) waits for a poll that ran after the
    // server moved it: another client's new message wakes the watch, and its put is that poll's.
    const stat = host.stat.bind(host);
    let waited = false;
    host.stat = async (path) => {
      if (!waited && path.startsWith('Archive/')) {
        waited = true;
        await server.append('INBOX', mail({ subject: 'poll in between' }));
        await expect.poll(() => events.slice(before).some((event) => event.entry?.extra?.['subject'] === 'poll in between'), { timeout: 10_000 }).toBe(true);
      }
      return stat(path);
    };
    try {
      const moved = await host.move(entry.path, 'Archive', { ifMatch: entry.etag! });
      expect(waited).toBe(true);
      // A later poll must not bring the delete back either.
      await server.append('INBOX', mail({ subject: 'poll after' }));
      await expect.poll(() => events.slice(before).some((event) => event.entry?.extra?.['subject'] === 'poll after'), { timeout: 10_000 }).toBe(true);
      expect(events.slice(before).filter((event) => event.from === entry.path || event.path === entry.path)).toEqual([expect.objectContaining({ type: 'move', from: entry.path, path: moved.path })]);
    } finally {
      host.stat = stat;
    }
  });

  it('a poll after this host announced its own change does not announce it again', async () => {
    await server.append('INBOX', mail({ subject: 'once only' }));
    const entry = await find(host, 'once only');
    const before = events.length;
    const moved = await host.move(entry.path, 'Archive', { ifMatch: entry.etag! });
    const draft = await host.write('Drafts/once.eml', new Blob([mail({ subject: 'drafted once' })]).stream());
    // A message another client files after ours is seen only by a poll that also sees ours.
    await server.append('INBOX', mail({ subject: 'sentinel inbox' }));
    await server.append('Archive', mail({ subject: 'sentinel archive' }));
    await server.append('Drafts', mail({ subject: 'sentinel drafts' }));
    const subjects = (): unknown[] => events.slice(before).map((event) => event.entry?.extra?.['subject']);
    await expect.poll(() => ['sentinel inbox', 'sentinel archive', 'sentinel drafts'].every((subject) => subjects().includes(subject)), { timeout: 10_000 }).toBe(true);
    // A poll that runs between the server's change and this host's announcement can see it first
    // (nothing orders the two); what is promised is that no poll repeats it after the announcement.
    const mine = events.slice(before);
    const announcedMove = mine.findIndex((event) => event.type === 'move' && event.from === entry.path && event.path === moved.path);
    const announcedDraft = mine.findIndex((event) => event.type === 'put' && event.path === draft.path && event.entry?.etag === draft.etag);
    expect(announcedMove).toBeGreaterThanOrEqual(0);
    expect(announcedDraft).toBeGreaterThanOrEqual(0);
    expect(mine.slice(announcedMove + 1).filter((event) => [entry.path, moved.path].includes(event.path) || event.from === entry.path)).toEqual([]);
    expect(mine.slice(announcedDraft + 1).filter((event) => event.path === draft.path)).toEqual([]);
  });

  it('deletes to Trash unless expunging is allowed; in Trash it expunges', async () => {
    const entry = await find(host, 'bin me');
    await host.delete(entry.path, { ifMatch: entry.etag! });
    expect(await host.stat(entry.path)).toBeNull();
    const binned = await find(host, 'bin me');
    expect(binned.path).toMatch(/^Trash\//);
    await host.delete(binned.path);
    expect(await host.stat(binned.path)).toBeNull();
    const expunging = server.host({ allowExpunge: true });
    await server.append('INBOX', mail({ subject: 'gone for good' }));
    const gone = await find(expunging, 'gone for good');
    await expunging.delete(gone.path);
    expect(await expunging.stat(gone.path)).toBeNull();
    const page = await expunging.list({ prefix: 'Trash/' });
    expect(page.entries.some((item) => item.extra?.['subject'] === 'gone for good')).toBe(false);
  });

  it('the port writes change documents to a message and drafts to Drafts; attachments are not written', async () => {
    const port = await createImapPort({ packageId: '@inseam/connector-imap', packageRoot: '/', source: 'mail', config: server.config(), scope: 'project' }, { host });
    await server.append('INBOX', mail({ subject: 'port me' }));
    const entry = await find(host, 'port me');
    const written = await port.write(`mail://${entry.path}`, JSON.stringify({ flags: { add: ['\\Seen'] } }), { ifMatch: entry.etag! });
    expect(written.etag).not.toBe(entry.etag);
    await expect(port.write(`mail://${entry.path}`, 'Subject: replaced\r\n\r\nx')).rejects.toMatchObject({ code: 'invalid_argument' });
    const moved = await port.write(`mail://${entry.path}`, JSON.stringify({ move: 'Archive' }), { ifMatch: written.etag! });
    expect(moved.uri).toMatch(/^mail:\/\/Archive\//);
    const draft = await port.write('mail://Drafts/hello.eml', mail({ subject: 'port draft' }));
    expect(draft.uri).toMatch(/^mail:\/\/Drafts\/[0-9]+-[0-9]+\.eml$/);
    await port.delete(draft.uri);
    await expect(port.stat(draft.uri)).rejects.toMatchObject({ code: 'not_found' });
  });
});
