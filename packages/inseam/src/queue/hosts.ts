/**
 * State changes that cause crawl work, committed with their jobs: a host added with sync trigger
 * `auto` and its first crawl are one transaction on the shared store, so there is never a host
 * that waits for a crawl nobody queued, nor a crawl of a host that was never added.
 */
import type { HostInput, HostRecord, HostStore } from '../store/index.js';
import type { SqlExecutor } from './database.js';
import { hostPlacement } from './jobs.js';
import type { HostQueue } from './queue.js';

/** A store that runs several operations, and statements of the caller's, in one transaction (PostgresStore is one). */
export interface TransactionalHostStore {
  transaction<T>(work: (tx: { readonly hosts: HostStore } & SqlExecutor) => Promise<T>): Promise<T>;
}

/**
 * Adds a host; when its sync trigger is `auto`, queues its first crawl (to the queue its placement
 * needs) in the same transaction. `prepare` runs inside it, after the host row is written and
 * before the commit — the platform stores the host's credentials and makes its folders there — so
 * no worker can take the first crawl of a host that is not ready; when it throws, nothing is
 * stored and nothing queued. Rejects as `HostStore.create` does (`not_found`, `already_exists`)
 * with nothing queued, with what `prepare` threw, and with `unavailable` when the database fails.
 */
export async function addHostWithFirstCrawl(
  store: TransactionalHostStore,
  queue: HostQueue,
  network: string,
  input: HostInput,
  now?: number,
  prepare?: (host: HostRecord) => Promise<void>,
): Promise<HostRecord> {
  return store.transaction(async (tx) => {
    const host = await tx.hosts.create(network, input, now);
    await prepare?.(host);
    if (host.sync?.trigger === 'auto') await queue.requestSync({ network, host: host.slug }, { reason: 'added', placement: hostPlacement(host) }, { db: tx });
    return host;
  });
}
