/**
 * The platform's own changes in the catalog, in the same operation: after the fs service wrote or
 * removed an object on a host, the change is applied to the catalog (and so to search) as the
 * host's own change events would be — a write as a `put` (stat'ed through the host, its content
 * read and indexed, the host's scope and sync excludes applied), a removal as `delete`s of the
 * path and, for a recursive one, of every entry below it, a move within a host as a `move` (the
 * entry keeps its identity). An agent's new file is searchable when
 * its write answers; a removed one is gone from search when its delete answers.
 *
 * The host has changed by then, so a catalog that cannot be updated (the store failing) does not
 * fail the operation: a sync of the host is asked for instead, which brings the catalog back.
 */
import type { ChangeEvent } from '@inseam/connector';
import type { Crawler } from '../crawl/index.js';
import type { HostKinds } from '../platform/host-kinds.js';
import type { CatalogStore, HostRecord, HostRef } from '../store/index.js';

export interface CatalogSyncParts {
  readonly crawler: Pick<Crawler, 'applyEvents'>;
  readonly kinds: Pick<HostKinds, 'crawlTarget'>;
  readonly catalog: Pick<CatalogStore, 'resolveHost' | 'listEntries'>;
  /** Asked for when the catalog could not be updated. */
  readonly resync: (ref: HostRef) => Promise<unknown>;
}

const PAGE = 500;

export class CatalogSync {
  readonly #p: CatalogSyncParts;

  constructor(parts: CatalogSyncParts) {
    this.#p = parts;
  }

  /** The object at `path` (a host path) was written. */
  written(record: HostRecord, path: string): Promise<void> {
    return this.#apply(record, async (apply) => apply([{ type: 'put', path }]));
  }

  /** The object at `from` was moved to `to` on the same host: its entry keeps its identity. */
  moved(record: HostRecord, from: string, to: string): Promise<void> {
    return this.#apply(record, async (apply) => apply([{ type: 'move', path: to, from }]));
  }

  /** The object at `path` was removed; with `recursive`, everything below it too. */
  removed(record: HostRecord, path: string, recursive: boolean): Promise<void> {
    return this.#apply(record, async (apply) => {
      await apply([{ type: 'delete', path }]);
      if (!recursive) return;
      const hostId = await this.#p.catalog.resolveHost(refOf(record));
      if (hostId === null) return;
      const prefix = path === '' ? '' : `${path}/`;
      let after: string | undefined;
      for (;;) {
        const page = await this.#p.catalog.listEntries(hostId, { prefix, limit: PAGE, ...(after === undefined ? {} : { after }) });
        if (page.length === 0) return;
        await apply(page.map((entry) => ({ type: 'delete', path: entry.path })));
        after = page[page.length - 1]!.path;
      }
    });
  }

  async #apply(record: HostRecord, work: (apply: (events: ChangeEvent[]) => Promise<void>) => Promise<void>): Promise<void> {
    try {
      const target = await this.#p.kinds.crawlTarget(record);
      await work(async (events) => {
        await this.#p.crawler.applyEvents(target, events);
      });
    } catch {
      await this.#p.resync(refOf(record)).catch(() => undefined);
    }
  }
}

function refOf(record: HostRecord): HostRef {
  return { network: record.network, host: record.slug };
}
