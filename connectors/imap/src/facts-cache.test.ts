import { ImapFlow } from 'imapflow';
import type { FetchQueryObject } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Entry } from '@inseam/connector';
import type { ImapHost } from './host.js';
import { mail, startMailServer } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

async function listAll(host: ImapHost): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  let cursor: string | undefined;
  do {
    const page = await host.list(cursor === undefined ? {} : { cursor });
    for (const entry of page.entries) out.set(entry.path, entry);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

describe('a rescan of a mailbox fetches only the state of messages it has seen', () => {
  let server: MailServer;
  let host: ImapHost;
  let uids: number[];

  beforeAll(async () => {
    server = await startMailServer();
    uids = await server.append('INBOX', ...[1, 2, 3, 4, 5].map((n) => mail({ subject: `Message ${n}` })));
    host = server.host({}, { pageSize: 2 });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await server?.stop();
  });

  it('after a flag change, an append and an expunge, a second listing shows exactly those and fetches headers of the new message only', async () => {
    const before = await listAll(host);
    expect([...before.values()].filter((entry) => entry.mime === 'message/rfc822')).toHaveLength(5);
    const other = await server.client();
    await other.mailboxOpen('INBOX');
    await other.messageFlagsAdd(String(uids[1]), ['\\Flagged'], { uid: true });
    await other.messageDelete(String(uids[3]), { uid: true });
    const [added] = await server.append('INBOX', mail({ subject: 'Message 6' }));

    const heavy: string[] = [];
    const fetch = ImapFlow.prototype.fetch;
    vi.spyOn(ImapFlow.prototype, 'fetch').mockImplementation(function (this: ImapFlow, range, query: FetchQueryObject, options) {
      if (query.headers !== undefined || query.bodyStructure === true || query.source !== undefined || query.bodyParts !== undefined) heavy.push(typeof range === 'string' ? range : JSON.stringify(range));
      return fetch.call(this, range, query, options);
    });
    const download = vi.spyOn(ImapFlow.prototype, 'download');
    const after = await listAll(host);
    vi.restoreAllMocks();

    expect(heavy).toEqual([String(added)]);
    expect(download).not.toHaveBeenCalled();
    const changed = [...after.keys()].filter((path) => before.get(path)?.etag !== after.get(path)!.etag);
    const gone = [...before.keys()].filter((path) => !after.has(path));
    const byUid = (entries: Iterable<Entry>, uid: number | undefined): string => [...entries].find((entry) => entry.extra?.['uid'] === uid)!.path;
    expect(gone).toEqual([byUid(before.values(), uids[3])]);
    expect(changed.sort()).toEqual([byUid(after.values(), uids[1]), byUid(after.values(), added)].sort());
    const flagged = after.get(byUid(after.values(), uids[1]))!;
    expect(flagged.extra?.['flagged']).toBe(true);
    expect(flagged.envelope).toEqual(before.get(flagged.path)!.envelope);
    expect(flagged.extra?.['subject']).toBe('Message 2');
    expect(after.get(byUid(after.values(), added))!.extra?.['subject']).toBe('Message 6');
  });
});
