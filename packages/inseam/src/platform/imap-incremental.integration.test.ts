/**
 * Incremental sync of an imap host against a private Dovecot: after 10 changes another client
 * made, the sync asks the server only CHANGEDSINCE its MODSEQ watermark (QRESYNC's VANISHED for
 * the expunge), fetches headers of the new messages alone, stats only the changed paths, and
 * leaves the catalog equal to the server; a mailbox whose UIDVALIDITY changed is listed in full.
 */
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import type { FetchQueryObject } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Connector } from '@inseam/connector';
import { startDovecot, type Dovecot } from '../../../../connectors/imap/src/__fixtures__/dovecot.mjs';
import { appendMessage, plainMessage } from './__fixtures__/imap-mail.js';
import { openTestPlatform, removeDir, sqliteOf, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const USER = { name: 'alice', password: `imap-${Math.random().toString(36).slice(2)}-secret` };
const REF = { network: 'home', host: 'mail' } as const;
const SIZE = 120;

let dovecot: Dovecot;
let client: ImapFlow;
let dataDir: string;
let platform: Platform;


function append(mailbox: string, text: string): Promise<number> {
  return appendMessage(client, mailbox, text);
}

/** path → etag of what a fresh listing of the host shows (Trash left out, as the default scope does). */
async function hostState(connector: Connector): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  let cursor: string | undefined;
  do {
    const page = await connector.list(cursor === undefined ? {} : { cursor });
    for (const entry of page.entries) if (!entry.path.startsWith('Trash/')) out.set(entry.path, entry.etag);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function catalogState(): Map<string, string | undefined> {
  const db: Database.Database = sqliteOf(platform);
  const rows = db.prepare('SELECT e.path, e.etag FROM catalog_entries e JOIN hosts h ON h.id = e.host_id WHERE h.slug = ? ORDER BY e.path').all('mail') as { path: string; etag: string | null }[];
  return new Map(rows.map((row) => [row.path, row.etag ?? undefined]));
}

/** What the platform's imap sessions ask the server while `work` runs: FETCH commands and rows, SEARCHes. */
async function recorded<T>(work: () => Promise<T>): Promise<{ value: T; fetches: { range: string; changedSince: boolean; heavy: boolean; rows: number }[]; searches: number }> {
  const fetches: { range: string; changedSince: boolean; heavy: boolean; rows: number }[] = [];
  let searches = 0;
  const fetch = ImapFlow.prototype.fetch;
  const search = ImapFlow.prototype.search;
  vi.spyOn(ImapFlow.prototype, 'fetch').mockImplementation(function (this: ImapFlow, range, query: FetchQueryObject, options) {
    if (this === client) return fetch.call(this, range, query, options);
    const record = {
      range: typeof range === 'string' ? range : JSON.stringify(range),
      changedSince: options?.changedSince !== undefined,
      heavy: query.headers !== undefined || query.bodyStructure === true || query.source !== undefined,
      rows: 0,
    };
    fetches.push(record);
    const inner = fetch.call(this, range, query, options);
    return (async function* () {
      for await (const row of inner) {
        record.rows += 1;
        yield row;
      }
    })();
  });
  vi.spyOn(ImapFlow.prototype, 'search').mockImplementation(function (this: ImapFlow, query, options) {
    if (this !== client) searches += 1;
    return search.call(this, query, options);
  });
  try {
    return { value: await work(), fetches, searches };
  } finally {
    vi.restoreAllMocks();
  }
}

beforeAll(async () => {
  dovecot = await startDovecot({ users: [USER] });
  client = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: true, tls: { ca: dovecot.ca }, auth: { user: USER.name, pass: USER.password }, logger: false });
  client.on('error', () => undefined);
  await client.connect();
  for (let i = 0; i < SIZE; i += 1) await append('INBOX', plainMessage(`Message ${i}`));
  await client.mailboxCreate('Lists');
  for (let i = 0; i < 3; i += 1) await append('Lists', plainMessage(`List post ${i}`));
  dataDir = await tempDir('platform-imap-incremental');
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'mail', kind: 'imap', config: { host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca }, credentials: { username: USER.name, password: USER.password } });
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await platform?.close();
  await client?.logout().catch(() => undefined);
  await dovecot?.stop();
  await removeDir(dataDir);
});

describe('incremental sync of an imap host', () => {
  it('after 10 changes asks only CHANGEDSINCE, fetches headers of the new messages alone, and the catalog equals the server', async () => {
    const first = await (await platform.sync(REF)).result;
    expect(first, JSON.stringify(first.error)).toMatchObject({ state: 'completed', mode: 'full' });
    // The first incremental sync of a process learns each mailbox's MODSEQ (a full state fetch).
    expect(await (await platform.sync(REF)).result).toMatchObject({ state: 'completed', mode: 'incremental' });

    await client.mailboxOpen('INBOX');
    const uids = (await client.search({ all: true }, { uid: true })) as number[];
    await client.messageFlagsAdd(`${uids[3]},${uids[4]}`, ['\\Seen'], { uid: true });
    await client.messageFlagsAdd(`${uids[10]},${uids[11]}`, ['\\Flagged'], { uid: true });
    await client.messageDelete(String(uids[20]), { uid: true });
    const moved = await client.messageMove(String(uids[30]), 'Archive', { uid: true });
    expect(moved).not.toBe(false);
    const added: number[] = [];
    for (let i = 0; i < 4; i += 1) added.push(await append('INBOX', plainMessage(`New ${i}`)));

    const { value: run, fetches, searches } = await recorded(async () => (await platform.sync(REF)).result);
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed', mode: 'incremental' });

    // Every mailbox was asked CHANGEDSINCE its watermark, and nothing walked a mailbox in full.
    const changedSince = fetches.filter((f) => f.changedSince);
    expect(changedSince.length).toBeGreaterThanOrEqual(2);
    expect(fetches.filter((f) => !f.changedSince && f.range === '1:*')).toEqual([]);
    // The rows answered: 4 flag changes, 4 new messages, the moved one in Archive (the expunge came as VANISHED).
    expect(changedSince.reduce((n, f) => n + f.rows, 0)).toBe(9);
    expect(searches).toBe(0);
    // Headers and structure only of the 5 new messages; the other fetches are the diff's stats of the 10 changed paths.
    expect(fetches.filter((f) => f.heavy).reduce((n, f) => n + f.rows, 0)).toBe(5);
    const rows = fetches.reduce((n, f) => n + f.rows, 0);
    expect(rows).toBeLessThan(40);
    expect(rows).toBeLessThan(SIZE / 3);

    const record = await platform.networks.hostRecord(REF);
    const target = await platform.kinds.crawlTarget(record);
    expect(catalogState()).toEqual(await hostState(target.connector));
    const entry = await platform.catalog.entry(REF, [...catalogState().keys()].find((path) => path.endsWith(`-${uids[10]}.eml`))!);
    expect(entry?.extra?.['flagged']).toBe(true);
    expect([...catalogState().keys()].some((path) => path.endsWith(`-${uids[20]}.eml`))).toBe(false);
    expect([...catalogState().keys()].filter((path) => path.startsWith('Archive/'))).toHaveLength(1);
  }, 60_000);

  it('a mailbox whose UIDVALIDITY changed is listed in full, and its old paths leave the catalog', async () => {
    const before = [...catalogState().keys()].filter((path) => path.startsWith('Lists/'));
    expect(before).toHaveLength(3);
    await client.mailboxDelete('Lists');
    await client.mailboxCreate('Lists');
    for (let i = 0; i < 4; i += 1) await append('Lists', plainMessage(`Re-made list post ${i}`));
    const status = await client.status('Lists', { uidValidity: true });
    if (status === false) throw new Error('Dovecot answered no STATUS for Lists.');
    expect(before.every((path) => !path.startsWith(`Lists/${status.uidValidity}-`))).toBe(true);

    const { value: run, fetches } = await recorded(async () => (await platform.sync(REF)).result);
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed', mode: 'incremental' });
    // The re-made mailbox: one full fetch of its state and of its 4 messages' headers.
    expect(fetches.filter((f) => !f.changedSince && f.range === '1:*')).toHaveLength(1);
    expect(fetches.filter((f) => f.heavy).reduce((n, f) => n + f.rows, 0)).toBe(4);

    const target = await platform.kinds.crawlTarget(await platform.networks.hostRecord(REF));
    const after = catalogState();
    expect(after).toEqual(await hostState(target.connector));
    expect([...after.keys()].filter((path) => path.startsWith('Lists/'))).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^Lists/${status.uidValidity}-\\d+\\.eml$`))]));
    expect(before.some((path) => after.has(path))).toBe(false);
  }, 60_000);
});
