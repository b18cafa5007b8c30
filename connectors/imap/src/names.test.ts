import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImapHost } from './host.js';
import type { NamesMemo } from './names.js';
import { memoKey } from './names-state.js';
import { mail, startMailServer } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

/** path → etag from a full listing, the names listing's reference. */
async function listed(host: ImapHost): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  let cursor: string | undefined;
  do {
    const page = await host.list(cursor === undefined ? {} : { cursor });
    for (const entry of page.entries) out.set(entry.path, entry.etag ?? null);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

async function named(host: ImapHost): Promise<Map<string, string | null>> {
  const page = await host.names();
  expect([...page.paths]).toEqual([...page.paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  return new Map(page.paths.map((path, index) => [path, page.etags[index]!]));
}

/** A memo as the crawler keeps one (the store's host memos), in memory, counting writes. */
class MemoryMemo implements NamesMemo {
  readonly values = new Map<string, string>();
  writes = 0;
  failWrites = false;

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.values.get(key) ?? null);
  }

  put(key: string, value: string | null): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('store unavailable'));
    this.writes += 1;
    if (value === null) this.values.delete(key);
    else this.values.set(key, value);
    return Promise.resolve();
  }

  keys(): Promise<string[]> {
    return Promise.resolve([...this.values.keys()].sort());
  }
}

async function memoNamed(host: ImapHost, memo: NamesMemo): Promise<Map<string, string | null>> {
  const page = await host.names({ memo });
  return new Map(page.paths.map((path, index) => [path, page.etags[index]!]));
}

describe('the names listing', () => {
  let server: MailServer;
  let uids: number[];

  beforeAll(async () => {
    server = await startMailServer();
    uids = await server.append(
      'INBOX',
      ...[1, 2, 3, 4, 5, 6].map((n) => mail({ subject: `Message ${n}` })),
      mail({ subject: 'With a file', attachments: [{ name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('hello') }] }),
    );
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('states every listed path with its etag; the next call asks CHANGEDSINCE and hears the expunge as VANISHED', async () => {
    const host = server.host();
    expect(await named(host)).toEqual(await listed(host));
    expect(host.namesListing.counters).toMatchObject({ full: expect.any(Number), changedSince: 0 });
    const full = host.namesListing.counters.full;

    const other = await server.client();
    await other.mailboxOpen('INBOX');
    await other.messageFlagsAdd(`${uids[1]},${uids[6]}`, ['\\Seen'], { uid: true });
    await other.messageDelete(String(uids[3]), { uid: true });
    const [added] = await server.append('INBOX', mail({ subject: 'Message 7' }));

    const after = await named(host);
    expect(after).toEqual(await listed(host));
    const counters = host.namesListing.counters;
    expect(counters.full).toBe(full);
    expect(counters.changedSince).toBeGreaterThan(0);
    // Two flag changes and one new message; the expunge came as VANISHED, no UID SEARCH diff.
    expect(counters.changedRows).toBe(3);
    expect(counters.vanished).toBeGreaterThanOrEqual(1);
    expect(counters.uidDiffs).toBe(0);
    expect([...after.keys()].some((path) => path.endsWith(`-${added}.eml`))).toBe(true);
    // The attachment's etag moved with its message's flags.
    const attachment = [...after.keys()].find((path) => path.includes(`-${uids[6]}.parts/`))!;
    expect(attachment).toBeDefined();
    await host.dispose();
  });

  it('without QRESYNC an expunge is found by the message count and a UID SEARCH diff', async () => {
    const host = server.host();
    await named(host);
    const session = host.session as unknown as { client(): Promise<{ enabled: Set<string> }> };
    (await session.client()).enabled.delete('QRESYNC');
    const other = await server.client();
    await other.mailboxOpen('INBOX');
    await other.messageDelete(String(uids[0]), { uid: true });
    const after = await named(host);
    expect(host.namesListing.counters.uidDiffs).toBe(1);
    expect([...after.keys()].some((path) => path.endsWith(`-${uids[0]}.eml`))).toBe(false);
    expect(after).toEqual(await listed(host));
    await host.dispose();
  });

  it("continues in a new process from the crawler's memo: CHANGEDSINCE from the first call, nothing fetched in full", async () => {
    const memo = new MemoryMemo();
    const first = server.host();
    expect(await memoNamed(first, memo)).toEqual(await listed(first));
    expect(memo.values.has(memoKey('INBOX'))).toBe(true);
    await first.dispose();

    const other = await server.client();
    await other.mailboxOpen('INBOX');
    await other.messageFlagsAdd(String(uids[2]), ['\\Flagged'], { uid: true });
    await other.messageDelete(String(uids[4]), { uid: true });
    await server.append('INBOX', mail({ subject: 'While no one listened', attachments: [{ name: 'a.csv', type: 'text/csv', bytes: Buffer.from('x,y') }] }));

    // A new host is a new process: no state in memory, no facts cached.
    const second = server.host();
    const after = await memoNamed(second, memo);
    expect(after).toEqual(await listed(second));
    expect(second.namesListing.counters).toMatchObject({ full: 0, fromMemo: expect.any(Number), changedRows: 2 });
    expect(second.namesListing.counters.fromMemo).toBeGreaterThanOrEqual(1);
    expect(second.namesListing.counters.vanished + second.namesListing.counters.uidDiffs).toBeGreaterThanOrEqual(1);
    // Nothing changed since: no write, and still no full fetch.
    const writes = memo.writes;
    const third = server.host();
    expect(await memoNamed(third, memo)).toEqual(after);
    expect(third.namesListing.counters.full).toBe(0);
    expect(memo.writes).toBe(writes);
    await second.dispose();
    await third.dispose();
  });

  it('fetches a mailbox in full when its memo is damaged, foreign or unwritable, and still lists every name', async () => {
    const memo = new MemoryMemo();
    const first = server.host();
    await memoNamed(first, memo);
    await first.dispose();
    const good = memo.values.get(memoKey('INBOX'))!;
    const damaged = [
      good.slice(0, good.length - 3),
      good.replace('"v":1', '"v":2'),
      good.replace('"mailbox":"INBOX"', '"mailbox":"Sent"'),
      good.replace(/"modseq":"(\d+)"/u, '"modseq":"-1"'),
      good.replace(/"messages":\[\[(\d+),/u, '"messages":[[0,'),
    ];
    for (const text of damaged) {
      memo.values.set(memoKey('INBOX'), text);
      const host = server.host();
      expect(await memoNamed(host, memo)).toEqual(await listed(host));
      // INBOX alone is fetched in full; the other mailboxes' memos are good.
      expect(host.namesListing.counters.full).toBe(1);
      // The full fetch wrote a good memo again.
      expect(memo.values.get(memoKey('INBOX'))).not.toBe(text);
      await host.dispose();
    }
    memo.failWrites = true;
    memo.values.clear();
    const host = server.host();
    expect(await memoNamed(host, memo)).toEqual(await listed(host));
    await host.dispose();
  });

  it('forgets the memo of a mailbox that is gone', async () => {
    const memo = new MemoryMemo();
    const other = await server.client();
    await other.mailboxCreate('Short-lived');
    await server.append('Short-lived', mail({ subject: 'Soon gone' }));
    const host = server.host();
    await memoNamed(host, memo);
    expect(memo.values.has(memoKey('Short-lived'))).toBe(true);
    await other.mailboxDelete('Short-lived');
    (await host.session.client()).close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await memoNamed(host, memo);
    expect([...after.keys()].some((path) => path.startsWith('Short-lived/'))).toBe(false);
    expect(memo.values.has(memoKey('Short-lived'))).toBe(false);
    expect(memo.values.has(memoKey('INBOX'))).toBe(true);
    await host.dispose();
  });

  it('the mailbox list is asked once a connection, and again after a reconnect', async () => {
    const host = server.host();
    await host.names();
    await host.names();
    await host.list();
    expect(host.session.listCommands).toBe(1);
    const other = await server.client();
    await other.mailboxCreate('Projects');
    // The connection drops; the next call opens another, which asks LIST again and sees the new mailbox.
    (await host.session.client()).close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.append('Projects', mail({ subject: 'Plans' }));
    const page = await host.names();
    expect(host.session.listCommands).toBe(2);
    expect(page.paths.some((path) => path.startsWith('Projects/'))).toBe(true);
    await host.dispose();
  });
});
