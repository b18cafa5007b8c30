// imap: a mailbox of N messages (default 10,000) on a private Dovecot, synced by inseam (the
// platform's crawl of an `imap` host into the embedded SQLite store, envelopes and search text
// included) and by `mbsync` (Debian's isync) into a Maildir — the same server, the same mailbox,
// side by side in one run.
//
// 1. First sync: an empty catalog / an empty Maildir, every message fetched.
// 2. Sync after 10 changes another client made (4 added, 2 marked seen, 2 flagged, 1 deleted,
//    1 moved INBOX → Archive): each tool's copy is first brought up to date (untimed), the 10
//    changes are made, and then the tool's next sync is timed; afterwards the run counts how many
//    of the 10 its copy shows.
//
//   node bench/imap.mjs [--rounds N] [--count N] [--only first|changes]
//
// The messages are written as Maildir files straight into Dovecot's mail location (owned by
// `nobody`, as the fixture's users are), which takes a second rather than 10,000 APPENDs. Peak
// RSS: inseam's is its process's; mbsync's is measured by GNU time around mbsync itself, since
// mbsync runs from a small Node case (the case removes the Maildir untimed first).
//
// Run as `node bench/imap.mjs --case <id> ...` it is one case's child process.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { maildirFolder, startDovecot } from '../connectors/imap/src/__fixtures__/dovecot.mjs';
import { recordExtras, resetExtras, roundExtras } from './lib/case-extras.mjs';
import { benchRoot } from './lib/fixtures.mjs';
import { busyWarning, childCase, ensureBuiltEntries, machineFacts, median, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, wholeNumberOption } from './lib/measure.mjs';
import { documentText } from './lib/text-corpus.mjs';

const script = fileURLToPath(import.meta.url);
const REF = { network: 'bench', host: 'mail' };
const USER = { name: 'alice', password: `bench-${process.pid}-${Date.now().toString(36)}` };
const NOBODY = 65534;
const MiB = 1024 * 1024;
const GNU_TIME = '/usr/bin/time';

// ---- the mailbox ----

/** Message `index` as RFC 5322 text with CRLF line ends, about 1–3 KiB of prose. */
function messageText(index) {
  const body = documentText(index, 800 + ((index * 7919) % 2000)).replace(/\r?\n/gu, '\r\n');
  return [
    `From: Sender ${index % 97} <sender${index % 97}@example.org>`,
    'To: Alice <alice@example.com>',
    ...(index % 5 === 0 ? ['Cc: Carol <carol@example.net>'] : []),
    `Subject: Bench message ${index}: ${body.slice(0, 40).replace(/\s+/gu, ' ')}`,
    `Date: ${new Date(Date.UTC(2025, 0, 1) + index * 60_000).toUTCString()}`,
    `Message-ID: <bench-${index}@example.org>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');
}

/** Writes `count` messages into the user's INBOX as Maildir files, arrival dates a minute apart. */
function seedMaildir(maildir, count) {
  const cur = join(maildirFolder(maildir, 'INBOX'), 'cur');
  maildirFolder(maildir, 'Archive');
  let bytes = 0;
  for (let index = 0; index < count; index += 1) {
    const text = messageText(index);
    const name = `${1735689600 + index}.M${index}P1.bench,S=${Buffer.byteLength(text)}:2,`;
    const path = join(cur, name);
    writeFileSync(path, text);
    chownSync(path, NOBODY, NOBODY);
    // Maildir's INTERNALDATE is the file's mtime.
    const at = new Date(Date.UTC(2025, 0, 1) + index * 60_000);
    utimesSync(path, at, at);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

async function imapClient(port, caPath) {
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({ host: '127.0.0.1', port: Number(port), secure: true, tls: { ca: readFileSync(caPath, 'utf8') }, auth: { user: USER.name, pass: process.env.BENCH_IMAP_PASSWORD }, logger: false });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Another client's 10 changes: 4 appends, \Seen on 2 messages, \Flagged on 2, 1 expunged, 1 moved
 * to Archive — the older messages picked spread over the mailbox. What changed, by UID.
 */
async function makeTenChanges(port, caPath) {
  const client = await imapClient(port, caPath);
  try {
    const lock = await client.getMailboxLock('INBOX');
    try {
      const uidValidity = client.mailbox.uidValidity.toString();
      const plain = await client.search({ seen: false, flagged: false }, { uid: true });
      const pick = (k) => plain[Math.floor(((k + 1) * plain.length) / 8)];
      const [seen1, seen2, flagged1, flagged2, deleted, moved] = [0, 1, 2, 3, 4, 5].map(pick);
      await client.messageFlagsAdd(`${seen1},${seen2}`, ['\\Seen'], { uid: true });
      await client.messageFlagsAdd(`${flagged1},${flagged2}`, ['\\Flagged'], { uid: true });
      await client.messageDelete(String(deleted), { uid: true });
      const result = await client.messageMove(String(moved), 'Archive', { uid: true });
      const movedTo = result === false ? undefined : result.uidMap?.get(moved);
      if (movedTo === undefined) throw new Error('The move returned no COPYUID.');
      const added = [];
      for (let k = 0; k < 4; k += 1) {
        const appended = await client.append('INBOX', messageText(1_000_000 + Date.now() + k));
        if (appended === false || appended.uid === undefined) throw new Error('append failed');
        added.push(appended.uid);
      }
      const archive = await client.status('Archive', { uidValidity: true });
      return { uidValidity, archiveValidity: archive.uidValidity.toString(), added, seen: [seen1, seen2], flagged: [flagged1, flagged2], deleted, moved: { from: moved, to: movedTo } };
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** How many of the 10 changes a copy shows, given `flagsOf(mailbox, uidValidity, uid)`: a flag list, or null when absent. */
function changesSeen(changes, flagsOf) {
  const missed = [];
  const check = (what, ok) => {
    if (!ok) missed.push(what);
  };
  for (const uid of changes.added) check(`added ${uid}`, flagsOf('INBOX', changes.uidValidity, uid) !== null);
  for (const uid of changes.seen) check(`seen ${uid}`, flagsOf('INBOX', changes.uidValidity, uid)?.includes('\\Seen') === true);
  for (const uid of changes.flagged) check(`flagged ${uid}`, flagsOf('INBOX', changes.uidValidity, uid)?.includes('\\Flagged') === true);
  check(`deleted ${changes.deleted}`, flagsOf('INBOX', changes.uidValidity, changes.deleted) === null);
  check(`moved ${changes.moved.from}`, flagsOf('INBOX', changes.uidValidity, changes.moved.from) === null && flagsOf('Archive', changes.archiveValidity, changes.moved.to) !== null);
  return { seen: 10 - missed.length, missed };
}

/**
 * Waits past the current second before a timed sync: mbsync sleeps up to a second when its Maildir
 * changed within the current second (its untimed catch-up just wrote it), and inseam's watermark
 * is by time too. Both cases wait the same.
 */
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 1100));
}

// ---- inseam ----

async function openBench(dataDir) {
  const { openPlatform } = await import('inseam/platform');
  return openPlatform({ dataDir, env: {} });
}

async function addMailHost(platform, port, caPath) {
  await platform.networks.init(REF.network);
  await platform.networks.addHost({
    network: REF.network,
    slug: REF.host,
    kind: 'imap',
    config: { host: '127.0.0.1', port: Number(port), ca: readFileSync(caPath, 'utf8'), authservId: 'mx.example.com', ownAddresses: ['alice@example.com'] },
    credentials: { username: USER.name, password: process.env.BENCH_IMAP_PASSWORD },
  });
}

async function syncOnce(platform) {
  const ended = await (await platform.sync(REF)).result;
  if (ended.state !== 'completed') throw new Error(`The sync ended ${ended.state}: ${JSON.stringify(ended.error)}`);
  return ended;
}

/** Messages in the catalog (attachments and mailbox folders left out). */
async function catalogMessages(dataDir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'inseam.db'), { readonly: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM catalog_entries WHERE path LIKE '%.eml'").get().n;
  } finally {
    db.close();
  }
}

function runSummary(run) {
  return { mode: run.mode, state: run.state, since: run.since, counters: run.counters, elapsedMs: run.elapsedMs };
}

// ---- mbsync ----

function mbsyncConfig(port, caPath, maildir, stateDir) {
  return `IMAPAccount bench
Host localhost
Port ${port}
User ${USER.name}
PassCmd "printenv BENCH_IMAP_PASSWORD"
SSLType IMAPS
CertificateFile ${caPath}

IMAPStore remote
Account bench

MaildirStore local
Path ${maildir}/
Inbox ${maildir}/INBOX
SubFolders Verbatim

Channel bench
Far :remote:
Near :local:
Patterns *
Create Near
Sync Pull
Expunge Near
SyncState ${stateDir}/
`;
}

/** Runs mbsync under GNU time; resolves its peak RSS in MiB. */
function runMbsync(configFile) {
  const rssFile = `${configFile}.rss`;
  const result = spawnSync(GNU_TIME, ['-f', '%M', '-o', rssFile, 'mbsync', '-q', '-c', configFile, '-a'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`mbsync exited ${result.status}: ${result.stderr.slice(-800)}`);
  return Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
}

/**
 * The Maildir mbsync wrote: per mailbox, the far side's (the server's) UID → flags. A file's
 * `,U=` is mbsync's own near-side UID; its sync state maps far UIDs to those, a line a message.
 */
function maildirIndex(dir) {
  const index = new Map();
  const letters = { S: '\\Seen', F: '\\Flagged', R: '\\Answered', D: '\\Draft', T: '\\Deleted' };
  for (const box of ['INBOX', 'Archive']) {
    const flagsByNear = new Map();
    for (const sub of ['cur', 'new']) {
      const folder = join(dir, 'mail', box, sub);
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder)) {
        const match = /,U=(\d+)(?::2,([A-Za-z]*))?$/u.exec(name);
        if (match !== null) flagsByNear.set(Number(match[1]), [...(match[2] ?? '')].map((c) => letters[c]).filter(Boolean));
      }
    }
    const byFar = new Map();
    const state = join(dir, 'state', box);
    const lines = existsSync(state) ? readFileSync(state, 'utf8').split('\n') : [];
    for (const line of lines.slice(lines.indexOf('') + 1)) {
      const [far, near] = line.split(' ').map(Number);
      if (far > 0 && flagsByNear.has(near)) byFar.set(far, flagsByNear.get(near));
    }
    index.set(box, { byFar, files: flagsByNear.size });
  }
  return index;
}

function maildirMessages(dir) {
  let n = 0;
  for (const box of maildirIndex(dir).values()) n += box.files;
  return n;
}

// ---- the cases ----

const CASES = {
  /** inseam's first sync: a new data directory, an imap host, platform.sync() to the end. */
  async 'inseam-first'(port, caPath, dataDir, extras) {
    await rm(dataDir, { recursive: true, force: true });
    const platform = await openBench(dataDir);
    await addMailHost(platform, port, caPath);
    let run;
    let ms;
    await childCase(async () => {
      const started = performance.now();
      run = await syncOnce(platform);
      ms = performance.now() - started;
      return 0;
    });
    await platform.close();
    recordExtras(extras, { ms, run: runSummary(run), messages: await catalogMessages(dataDir), maxRssMiB: process.resourceUsage().maxRSS / 1024 });
  },
  /** mbsync's first sync: an empty Maildir and sync state (removed untimed), mbsync -a to the end. */
  async 'mbsync-first'(port, caPath, dir, extras) {
    await rm(dir, { recursive: true, force: true });
    for (const sub of ['state', 'mail']) await mkdir(join(dir, sub), { recursive: true });
    const config = join(dir, 'mbsyncrc');
    await writeFile(config, mbsyncConfig(port, caPath, join(dir, 'mail'), join(dir, 'state')), { mode: 0o600 });
    let rss;
    let ms;
    await childCase(async () => {
      const started = performance.now();
      rss = runMbsync(config);
      ms = performance.now() - started;
      return 0;
    });
    recordExtras(extras, { ms, messages: maildirMessages(dir), maxRssMiB: rss });
  },
  /** inseam after 10 changes: its catalog brought up to date (untimed), the changes made, the next sync timed. */
  async 'inseam-changes'(port, caPath, dataDir, extras) {
    const fresh = !existsSync(join(dataDir, 'inseam.db'));
    const platform = await openBench(dataDir);
    if (fresh) await addMailHost(platform, port, caPath);
    await syncOnce(platform);
    const changes = await makeTenChanges(port, caPath);
    await settle();
    let run;
    let ms;
    await childCase(async () => {
      const started = performance.now();
      run = await syncOnce(platform);
      ms = performance.now() - started;
      return 0;
    });
    const entries = new Map();
    for (const box of ['INBOX', 'Archive']) {
      const uids = [...changes.added, ...changes.seen, ...changes.flagged, changes.deleted, changes.moved.from, changes.moved.to];
      for (const uid of uids) {
        const validity = box === 'INBOX' ? changes.uidValidity : changes.archiveValidity;
        const entry = await platform.catalog.entry(REF, `${box}/${validity}-${uid}.eml`);
        if (entry !== null) entries.set(`${box}/${validity}/${uid}`, entry.extra?.flags ?? entry.dimensions?.flags ?? []);
      }
    }
    await platform.close();
    const { seen, missed } = changesSeen(changes, (box, validity, uid) => entries.get(`${box}/${validity}/${uid}`) ?? null);
    recordExtras(extras, { ms, run: runSummary(run), seen, missed, changes, messages: await catalogMessages(dataDir), maxRssMiB: process.resourceUsage().maxRSS / 1024 });
  },
  /** mbsync after 10 changes: its Maildir brought up to date (untimed), the changes made, the next mbsync timed. */
  async 'mbsync-changes'(port, caPath, dir, extras) {
    const config = join(dir, 'mbsyncrc');
    if (!existsSync(config)) {
      for (const sub of ['state', 'mail']) await mkdir(join(dir, sub), { recursive: true });
      await writeFile(config, mbsyncConfig(port, caPath, join(dir, 'mail'), join(dir, 'state')), { mode: 0o600 });
    }
    runMbsync(config);
    const changes = await makeTenChanges(port, caPath);
    await settle();
    let rss;
    let ms;
    await childCase(async () => {
      const started = performance.now();
      rss = runMbsync(config);
      ms = performance.now() - started;
      return 0;
    });
    const index = maildirIndex(dir);
    const { seen, missed } = changesSeen(changes, (box, _validity, uid) => index.get(box)?.byFar.get(uid) ?? null);
    recordExtras(extras, { ms, seen, missed, changes, messages: maildirMessages(dir), maxRssMiB: rss });
  },
};

// ---- the parent ----

const format = {
  count: (n) => n.toLocaleString('en-US'),
  ms: (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`),
  ratio: (a, b) => `${(a / b).toFixed(2)}×`,
};

function markdown(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** One section: the two cases in interleaved rounds, their medians, spread, peak RSS and ratio. */
async function section(label, cases, rounds, describeWork) {
  for (const definition of cases) await resetExtras(definition.extrasFile);
  const rows = await runCases(cases, { rounds, onProgress: progress(label) });
  const out = [];
  for (const definition of cases) {
    const row = rows.find((r) => r.name === definition.name);
    const runs = await roundExtras(definition.extrasFile);
    const times = runs.map((run) => run.ms);
    out.push({ name: definition.name, row, runs, ms: median(times), min: Math.min(...times), max: Math.max(...times), rss: Math.max(...runs.map((run) => run.maxRssMiB)) });
  }
  const base = out[1].ms;
  const lines = out.map((c) => [c.name, format.ms(c.ms), `${format.ms(c.min)}–${format.ms(c.max)}`, format.ms(c.row.wallMs), `${c.rss.toFixed(0)} MiB`, describeWork(c.runs.at(-1)), format.ratio(c.ms, base)]);
  console.log(`\n### ${label}\n`);
  console.log(markdown(['case', 'sync (median)', 'sync min–max', 'case wall (median)', 'peak RSS', 'work', `÷ ${out[1].name}`], lines));
  return out.map(({ name, runs, ms, rss, row }) => ({ name, ms, rss, wallMs: row.wallMs, runs }));
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 3);
  const count = wholeNumberOption(argv, '--count', 10_000);
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt < 0 ? undefined : argv[onlyAt + 1];
  if (only !== undefined && only !== 'first' && only !== 'changes') throw new Error('--only takes first or changes');
  if (spawnSync('mbsync', ['--version']).status !== 0) throw new Error("mbsync is not installed: install Debian's isync.");
  ensureBuiltEntries('packages/inseam', ['platform/index.js']);
  const machine = machineFacts();
  machine.mbsync = spawnSync('mbsync', ['--version'], { encoding: 'utf8' }).stdout.trim();
  machine.dovecot = spawnSync('/usr/sbin/dovecot', ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`imap — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, ${machine.mbsync}, Dovecot ${machine.dovecot}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  const root = join(benchRoot, 'imap');
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const dovecot = await startDovecot({ users: [USER] });
  process.env.BENCH_IMAP_PASSWORD = USER.password;
  const results = { benchmark: 'imap', machine, rounds, count };
  try {
    const seeded = performance.now();
    const bytes = seedMaildir(dovecot.maildir(USER.name), count);
    console.log(`\n${format.count(count)} messages (${(bytes / MiB).toFixed(1)} MiB) written as Maildir files in ${format.ms(performance.now() - seeded)}`);
    const args = [String(dovecot.port), dovecot.caPath];
    const extrasFile = (id) => join(root, 'extras', `${id}.jsonl`);
    const withExtras = (name, id, place, options = {}) => ({ ...nodeCase(name, script, id, [...args, join(root, place), extrasFile(id)], options), extrasFile: extrasFile(id) });
    if (only !== 'changes') results.first = await section(
      `first sync, ${format.count(count)} messages`,
      [withExtras('inseam platform.sync(): imap host → SQLite catalog', 'inseam-first', 'inseam-first'), withExtras('mbsync -a → Maildir', 'mbsync-first', 'mbsync-first')],
      rounds,
      (run) => `${format.count(run.messages)} messages${run.run === undefined ? '' : `; ${format.count(run.run.counters.indexed)} read, mode ${run.run.mode}`}`,
    );
    if (only !== 'first') results.changes = await section(
      `sync after 10 changes (4 added, 2 seen, 2 flagged, 1 deleted, 1 moved), ${format.count(count)} messages`,
      [withExtras('inseam platform.sync() after 10 changes', 'inseam-changes', 'inseam-changes'), withExtras('mbsync -a after 10 changes', 'mbsync-changes', 'mbsync-changes')],
      rounds,
      (run) => `${run.seen}/10 changes in the copy${run.missed.length === 0 ? '' : ` (not: ${run.missed.join(', ')})`}; ${format.count(run.messages)} messages${run.run === undefined ? '' : `; mode ${run.run.mode}, ${format.count(run.run.counters.entries)} written, ${format.count(run.run.counters.deleted)} deleted, ${format.count(run.run.counters.moved)} moved`}`,
    );
  } finally {
    await dovecot.stop();
  }
  results.machine.loadAverageAtEnd = (await import('node:os')).loadavg().map((v) => v.toFixed(2)).join(' ');
  console.log(`\nload average at the end: ${results.machine.loadAverageAtEnd}`);
  console.log(`raw results: ${await saveResults('imap', results)}`);
}

await runScript(CASES, main);
