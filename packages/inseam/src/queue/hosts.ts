/**
 * State changes that cause crawl work, committed with their jobs: a host added with sync trigger
 * `auto` and its first crawl are one transaction on the shared store, so there is never a host
 * that waits for a crawl nobody queued, nor a crawl of a host that was never added.
 */
import type { HostInput, HostRecord, HostStore } from '../store/index.js';
import type { SqlExecutor } from './database.js';
import type { HostQueue } from './queue.js';

/** A store that runs several operations, and statements of the caller's, in one transaction (PostgresStore is one). */
export interface TransactionalHostStore {
  transaction<T>(work: (tx: { readonly hosts: HostStore } & SqlExecutor) => Promise<T>): Promise<T>;
}

/**
 * Adds a host; when its sync trigger is `auto`, queues its first crawl in the same transaction.
 * Rejects as `HostStore.create` does (`not_found`, `already_exists`) with nothing queued, and with
 * `unavailable` when the database fails (nothing stored, nothing queued).
 */
export async function addHostWithFirstCrawl(store: TransactionalHostStore, queue: HostQueue, network: string, input: HostInput, now?: number): Promise<HostRecord> {
  return store.transaction(async (tx) => {
    const host = await tx.hosts.create(network, input, now);
    if (host.sync?.trigger === 'auto') await queue.requestSync({ network, host: host.slug }, { reason: 'added' }, { db: tx });
    return host;
  });
}
