/**
 * A crawler process for the kill test: crawls a SyntheticHost into the store named on the command
 * line (a SQLite file, or a postgres:// URL), resuming whatever an earlier (killed) process left.
 * Prints `ready` once loaded and `done <state>` when the run ends.
 *
 * Usage: crawl-child.ts <db path | postgres URL> <count> <pageSize> <batchSize> <pageDelayMs>
 */
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { PostgresStore, SqliteStore } from '../../store/index.js';
import { isPostgresUrl } from '../../store/postgres/url.js';
import { Crawler } from '../index.js';
import { SyntheticHost, memoryDescription } from './hosts.js';
import { KILL_TEST_SCOPE } from './kill-scope.js';

const [path, count, pageSize, batchSize, pageDelayMs] = process.argv.slice(2);
process.stdout.write('ready\n');

async function ignoreExisting(work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!hasErrorCode(error, 'already_exists')) throw error;
  }
}

const store = isPostgresUrl(path!) ? await PostgresStore.open({ url: path! }) : SqliteStore.open({ path: path! });
await ignoreExisting(() => store.networks.create({ slug: 'home' }));
await ignoreExisting(() => store.hosts.create('home', { slug: 'synthetic', kind: 'memory' }));
const connector = new SyntheticHost({ count: Number(count), pageSize: Number(pageSize), pageDelayMs: Number(pageDelayMs) });
const crawler = new Crawler({ store: store.catalog, batchSize: Number(batchSize) });
const run = await crawler.sync({ ref: { network: 'home', host: 'synthetic' }, connector, description: memoryDescription, scope: KILL_TEST_SCOPE }).result;
process.stdout.write(`done ${run.state}\n`);
await store.close();
