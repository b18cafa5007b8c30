/**
 * A crawler process for the imap kill test: crawls an imap host on a Dovecot into the SQLite
 * file named on the command line, resuming whatever an earlier (killed) process left, with the
 * host's memos in the same store (so a later process's names listing continues from this one's).
 * Prints `ready` once loaded, then `done <state> <names counters as JSON>` when the run ends.
 *
 * Usage: imap-crawl-child.ts <db> <port> <ca file> <user> <password> <pageSize>
 */
import { readFileSync } from 'node:fs';
import { createImapHost } from '@inseam/connector-imap';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { Crawler } from '../../crawl/index.js';
import { SqliteStore } from '../../store/index.js';

const [path, port, caFile, user, pass, pageSize] = process.argv.slice(2);
process.stdout.write('ready\n');

async function ignoreExisting(work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!hasErrorCode(error, 'already_exists')) throw error;
  }
}

const store = SqliteStore.open({ path: path! });
await ignoreExisting(() => store.networks.create({ slug: 'home' }));
await ignoreExisting(() => store.hosts.create('home', { slug: 'mail', kind: 'imap' }));
const connector = createImapHost({ host: '127.0.0.1', port: Number(port), ca: readFileSync(caFile!, 'utf8') }, { pageSize: Number(pageSize), credentials: { login: async () => ({ user: user!, pass: pass! }) } });
const crawler = new Crawler({ store: store.catalog, memos: store.hostMemos, batchSize: 20 });
const run = await crawler.sync({ ref: { network: 'home', host: 'mail' }, connector, description: connector.describe() }).result;
process.stdout.write(`done ${run.state} ${JSON.stringify(connector.namesListing.counters)}\n`);
await connector.dispose();
await store.close();
