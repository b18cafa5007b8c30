/**
 * An imap host on the platform, against a private Dovecot: added like any host (credentials
 * stored encrypted, read only by default), crawled with envelopes and searchable text, kept equal
 * to the mailbox through changes during a crawl, a crawler killed mid-crawl, a move between
 * mailboxes, and malformed MIME.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import { createImapHost } from '@inseam/connector-imap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, Connector, HostListOptions } from '@inseam/connector';
import { startDovecot, type Dovecot } from '../../../../connectors/imap/src/__fixtures__/dovecot.mjs';
import { appendMessage, plainMessage } from './__fixtures__/imap-mail.js';
import { openTestPlatform, removeDir, sqliteOf, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const USER = { name: 'alice', password: `imap-${Math.random().toString(36).slice(2)}-secret` };
const CHILD = fileURLToPath(new URL('./__fixtures__/imap-crawl-child.ts', import.meta.url));
const HOOKS = new URL('../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

let dovecot: Dovecot;
let client: ImapFlow;
let dataDir: string;
let platform: Platform;


function append(mailbox: string, text: string): Promise<number> {
  return appendMessage(client, mailbox, text);
}

/** What the host has: every listed path, from a fresh listing. */
async function hostPaths(connector: Connector): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.list(cursor === undefined ? {} : { cursor });
    out.push(...page.entries.map((entry) => entry.path));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out.sort();
}

function catalogPaths(platformOrDb: Platform | string, slug: string): string[] {
  const db = typeof platformOrDb === 'string' ? new Database(platformOrDb, { readonly: true }) : sqliteOf(platformOrDb);
  try {
    const rows = db.prepare('SELECT e.path FROM catalog_entries e JOIN hosts h ON h.id = e.host_id WHERE h.slug = ? ORDER BY e.path').all(slug) as { path: string }[];
    return rows.map((row) => row.path);
  } finally {
    if (typeof platformOrDb === 'string') db.close();
  }
}

beforeAll(async () => {
  dovecot = await startDovecot({ users: [USER] });
  client = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: true, tls: { ca: dovecot.ca }, auth: { user: USER.name, pass: USER.password }, logger: false });
  client.on('error', () => undefined);
  await client.connect();
  await append('INBOX', plainMessage('Quarterly lighthouse plan', { headers: ['Authentication-Results: mx.example.com; dkim=pass; spf=pass; dmarc=pass'], body: 'The keeper repaints the lantern room in spring.' }));
  await append('INBOX', plainMessage('Forged results', { headers: ['Authentication-Results: evil.example.net; dkim=pass; spf=pass; dmarc=pass'] }));
  await append('Sent', plainMessage('My answer', { from: 'Alice <alice@example.com>' }));
  await append('Trash', plainMessage('Thrown away'));
  dataDir = await tempDir('platform-imap');
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({
    network: 'home',
    slug: 'mail',
    kind: 'imap',
    config: { host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca, authservId: 'mx.example.com', ownAddresses: ['alice@example.com'] },
    credentials: { username: USER.name, password: USER.password },
  });
});

afterAll(async () => {
  await platform?.close();
  await client?.logout().catch(() => undefined);
  await dovecot?.stop();
  await removeDir(dataDir);
});

describe('an imap host on the platform', () => {
  it('is added read only, its password stored and never shown', async () => {
    const view = await platform.networks.showHost({ network: 'home', host: 'mail' });
    expect(view).toMatchObject({ kind: 'imap', permissions: { default: { read: true, write: false, exec: false } }, credentials: { acquire: 'static', fields: ['username', 'password'] } });
    expect(JSON.stringify(view)).not.toContain(USER.password);
    expect(platform.kinds.get('imap')).toMatchObject({ kind: 'imap', category: 'mail', providerPackageId: '@inseam/connector-imap', sandboxed: false });
  });

  it('crawls the mailbox with envelopes, leaving Trash out, and searches the body, subject and parties', async () => {
    const run = await (await platform.sync({ network: 'home', host: 'mail' })).result;
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed' });
    const paths = catalogPaths(platform, 'mail');
    expect(paths.filter((path) => path.startsWith('INBOX/'))).toHaveLength(2);
    expect(paths.filter((path) => path.startsWith('Sent/'))).toHaveLength(1);
    expect(paths.filter((path) => path.startsWith('Trash/'))).toEqual([]);
    const entries = (await platform.catalog.list({ network: 'home', host: 'mail' }, { prefix: 'INBOX/' })).entries;
    const plan = entries.find((entry) => entry.extra?.['subject'] === 'Quarterly lighthouse plan')!;
    expect(plan.envelope).toEqual({
      direction: 'received',
      parties: [
        { identity: 'mailto:bob@example.org', role: 'from' },
        { identity: 'mailto:alice@example.com', role: 'to' },
      ],
      auth: { dkim: true, spf: true, dmarc: true },
    });
    expect(entries.find((entry) => entry.extra?.['subject'] === 'Forged results')!.envelope?.auth).toBeUndefined();
    const hits = async (query: string): Promise<string[]> => (await platform.search.search(query, { network: 'home' })).hits.map((hit) => hit.address);
    expect(await hits('lantern')).toEqual([`inseam://home/mail/${plan.path}`]);
    expect(await hits('bob@example.org')).toContain(`inseam://home/mail/${plan.path}`);
  });

  it('reads a message through its port as message/rfc822 with its etag; the OS path is unresolvable', async () => {
    const record = await platform.networks.hostRecord({ network: 'home', host: 'mail' });
    const port = await platform.kinds.openPort(record);
    const inbox = await port.list('mail://INBOX');
    const first = inbox.entries.find((entry) => entry.type === 'file')!;
    const read = await port.read(first.uri);
    expect(read).toMatchObject({ mime: 'message/rfc822', etag: first.etag });
    expect(read.text).toContain('From: Bob <bob@example.org>');
    await expect(port.resolveOsUri!(first.uri)).rejects.toMatchObject({ code: 'os_uri_unresolvable' });
    expect(await port.probeConnection!()).toEqual({ connected: true });
  });

  it('a mailbox changed during a crawl: the catalog equals the mailbox when the crawl ends', async () => {
    const target = await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'mail' }));
    // Small pages, so the crawl has a behind and an ahead.
    const inner = createImapHost(
      { host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca, authservId: 'mx.example.com' },
      { pageSize: 2, credentials: { login: async () => ({ user: USER.name, pass: USER.password }) } },
    );
    const later: number[] = [];
    for (let i = 0; i < 6; i += 1) later.push(await append('INBOX', plainMessage(`batch ${i}`)));
    let pages = 0;
    const changing: Connector = {
      describe: () => inner.describe(),
      stat: (path) => inner.stat(path),
      read: (path, opts) => inner.read(path, opts),
      list: async (opts: HostListOptions) => {
        const page = await inner.list(opts);
        pages += 1;
        if (pages === 1) {
          // Behind the cursor: a new message (a higher UID, so still ahead) and an expunge of one not listed yet.
          await append('INBOX', plainMessage('arrived mid-crawl'));
          await client.mailboxOpen('INBOX');
          await client.messageDelete(String(later[later.length - 1]), { uid: true });
        }
        return page;
      },
    };
    const run = await platform.crawler.sync({ ...target, connector: changing }, { mode: 'full' }).result;
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed' });
    expect(pages).toBeGreaterThan(1);
    const host = (await hostPaths(inner)).filter((path) => !path.startsWith('Trash/'));
    expect(catalogPaths(platform, 'mail')).toEqual(host);
    expect(host.some((path) => path.endsWith(`-${later[later.length - 1]}.eml`))).toBe(false);
    await inner.dispose();
  });

  it('a message moved between mailboxes is a move in the catalog, not a delete and an add', async () => {
    await platform.networks.setPermissions({ network: 'home', host: 'mail' }, { writable: true });
    const record = await platform.networks.hostRecord({ network: 'home', host: 'mail' });
    const target = await platform.kinds.crawlTarget(record);
    expect((await (await platform.sync({ network: 'home', host: 'mail' })).result).state).toBe('completed');
    const events: ChangeEvent[] = [];
    const unsubscribe = await target.connector.watch!((event) => events.push(event));
    try {
      const entries = (await platform.catalog.list({ network: 'home', host: 'mail' }, { prefix: 'INBOX/' })).entries;
      const plan = entries.find((entry) => entry.extra?.['subject'] === 'Quarterly lighthouse plan')!;
      const port = await platform.kinds.openPort(record);
      const moved = await port.write!(`mail://${plan.path}`, JSON.stringify({ move: 'Archive' }), { ifMatch: plan.etag! });
      const move = events.find((event) => event.type === 'move')!;
      expect(move).toMatchObject({ from: plan.path, path: moved.uri.slice('mail://'.length) });
      const outcome = await platform.crawler.applyEvents(target, [move]);
      expect(outcome).toMatchObject({ moved: 1, deleted: 0 });
      const paths = catalogPaths(platform, 'mail');
      expect(paths).not.toContain(plan.path);
      expect(paths).toContain(move.path);
      expect((await platform.search.search('lantern', { network: 'home' })).hits.map((hit) => hit.address)).toEqual([`inseam://home/mail/${move.path}`]);
    } finally {
      unsubscribe();
    }
  });

  it('malformed MIME is crawled without inventing anything: a broken multipart, bad base64, garbage headers, no From', async () => {
    const broken = [
      'From: "Unclosed <nobody@',
      'To: ,,,;;; <>',
      'Subject: =?utf-8?B?not-base64!!?=',
      'Authentication-Results: ;;;; dkim',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="never-closed"',
      '',
      '--never-closed',
      'Content-Type: application/pdf; name="broken.pdf"',
      'Content-Transfer-Encoding: base64',
      'Content-Disposition: attachment; filename="broken.pdf"',
      '',
      '@@@@ this is not base64 ####',
      '',
    ].join('\r\n');
    const latin1 = Buffer.concat([Buffer.from('To: alice@example.com\r\nSubject: caf'), Buffer.from([0xe9]), Buffer.from('\r\n\r\nbody \xff\xfe\r\n', 'latin1')]);
    await client.append('INBOX', broken);
    await client.append('INBOX', latin1);
    const run = await (await platform.sync({ network: 'home', host: 'mail' }, { mode: 'full' })).result;
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed' });
    const entries = (await platform.catalog.list({ network: 'home', host: 'mail' }, { prefix: 'INBOX/', limit: 1000 })).entries;
    const noFrom = entries.filter((entry) => entry.extra?.['kind'] === 'message' && entry.envelope?.parties.every((party) => party.role !== 'from'));
    expect(noFrom.length).toBeGreaterThanOrEqual(2);
    for (const entry of noFrom) {
      expect(entry.envelope?.auth).toBeUndefined();
      expect(entry.envelope?.parties.every((party) => /^mailto:[^@\s]+@[^@\s]+$/.test(party.identity))).toBe(true);
    }
    const record = await platform.networks.hostRecord({ network: 'home', host: 'mail' });
    const host = await platform.kinds.openHost(record);
    const attachment = entries.find((entry) => entry.path.endsWith('/1-broken.pdf'));
    expect(attachment).toBeDefined();
    // Whatever the server decodes from the broken base64 comes back as bytes; the read does not fail.
    const stream = await host.read(attachment!.path);
    expect(stream).toBeInstanceOf(ReadableStream);
  });
});

describe('a crawler killed mid-crawl', () => {
  it('resumes with nothing lost or duplicated', async () => {
    for (let i = 0; i < 60; i += 1) await append('Archive', plainMessage(`kill test ${i}`));
    const db = join(dataDir, 'kill.db');
    const clean = join(dataDir, 'clean.db');
    const caFile = dovecot.caPath;
    const run = (file: string, killAfterMs?: number): Promise<{ killed: boolean; output: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, CHILD, file, String(dovecot.port), caFile, USER.name, USER.password, '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        let errors = '';
        let timer: NodeJS.Timeout | undefined;
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (killAfterMs !== undefined && timer === undefined && output.includes('ready')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        });
        child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        child.on('exit', (code, signal) => {
          clearTimeout(timer);
          if (signal === 'SIGKILL') resolve({ killed: true, output });
          else if (code === 0) resolve({ killed: false, output });
          else reject(new Error(`crawler child exited ${code}: ${errors.slice(0, 2000)}`));
        });
      });
    expect((await run(clean)).output).toContain('done completed');
    let kills = 0;
    for (let delay = 20; kills < 2 && delay < 20_000; delay += 400) {
      const outcome = await run(db, delay);
      if (!outcome.killed) break;
      if (!outcome.output.includes('done')) kills += 1;
    }
    expect(kills).toBeGreaterThan(0);
    expect((await run(db)).output).toContain('done completed');
    const paths = catalogPaths(db, 'mail');
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(catalogPaths(clean, 'mail'));
    expect(paths.filter((path) => path.startsWith('Archive/')).length).toBeGreaterThanOrEqual(60);

    // Each sync is a new process. A walk (a resumed crawl) writes no names memo, so the first
    // incremental sync after one fetches each mailbox in full and leaves its memo in the store
    // (after a completed incremental sync, the memos are there already); from then on, each
    // process continues from the memos, asking only CHANGEDSINCE, and still sees a message
    // appended between.
    const counters = (output: string): { full: number; fromMemo: number; changedSince: number } => JSON.parse(output.slice(output.indexOf('done completed ') + 'done completed '.length));
    const first = counters((await run(db)).output);
    const mailboxes = first.full + first.fromMemo;
    expect(mailboxes).toBeGreaterThan(0);
    await append('Archive', plainMessage('after the kill test'));
    const next = counters((await run(db)).output);
    expect(next.full).toBe(0);
    expect(next.fromMemo).toBe(mailboxes);
    expect(next.changedSince).toBe(next.fromMemo);
    expect(catalogPaths(db, 'mail').length).toBeGreaterThan(paths.length);
  }, 180_000);
});
