/**
 * The catalog as the surfaces read it (CLI, HTTP, MCP, web page): hosts named by their slugs,
 * JSON fields parsed, progress with rate and ETA. It reads through the store interface only.
 */
import { InvalidArgumentError, NotFoundError } from '@neuralis/package-system/contracts';
import type { Envelope } from '@inseam/connector';
import type { CatalogStore, ContentState, CrawlRunRecord, EntryDecision, EntryRecord, HostRef, HostSearchScope, SearchHit } from '../store/index.js';
import { progressOf, type CrawlProgress } from './progress.js';

export interface CatalogEntry {
  readonly network: string;
  readonly host: string;
  readonly path: string;
  readonly size: number | null;
  readonly mtime: string | null;
  readonly etag: string | null;
  readonly mime: string | null;
  readonly nativeHash: string | null;
  readonly nativeId: string | null;
  readonly decision: EntryDecision;
  readonly dimensions: Readonly<Record<string, unknown>>;
  readonly extra: Readonly<Record<string, unknown>> | null;
  readonly envelope: Envelope | null;
  readonly content: { readonly state: ContentState; readonly bytes: number };
  /** When a stored field last changed (ms since the epoch). */
  readonly updatedAt: number;
}

export interface CatalogPage {
  readonly entries: readonly CatalogEntry[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly next?: string;
}

export interface CatalogSearchOptions {
  readonly network?: string;
  /** Only these hosts; unknown hosts match nothing. */
  readonly hosts?: readonly HostRef[];
  /** Per host, what may be returned, applied before the page is cut (see SearchQuery.scopes). */
  readonly scopes?: readonly HostSearchScope[];
  readonly limit?: number;
  readonly offset?: number;
}

export class Catalog {
  readonly #store: CatalogStore;

  constructor(store: CatalogStore) {
    this.#store = store;
  }

  /** The stored entry, or null. Rejects with `not_found` when the host does not exist. */
  async entry(ref: HostRef, path: string): Promise<CatalogEntry | null> {
    const hostId = await this.#hostId(ref);
    const record = await this.#store.getEntry(hostId, path);
    return record === null ? null : toCatalogEntry(ref, record);
  }

  /**
   * A page of the host's entries by path, optionally under `prefix` (a plain string prefix, so
   * `docs/` lists everything below `docs`). Rejects with `not_found` for an unknown host and
   * `invalid_argument` for a limit outside 1–1000.
   */
  async list(ref: HostRef, options: { readonly prefix?: string; readonly after?: string; readonly limit?: number } = {}): Promise<CatalogPage> {
    const hostId = await this.#hostId(ref);
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidArgumentError(`limit must be a whole number from 1 to 1000; it is ${String(limit)}.`);
    const records = await this.#store.listEntries(hostId, { ...options, limit: limit + 1 });
    const page = records.slice(0, limit).map((record) => toCatalogEntry(ref, record));
    const last = page[page.length - 1];
    return records.length > limit && last !== undefined ? { entries: page, next: last.path } : { entries: page };
  }

  /** The indexed text of an entry, or null when it has none. Rejects with `not_found` for an unknown host. */
  async content(ref: HostRef, path: string): Promise<string | null> {
    return this.#store.contentText(await this.#hostId(ref), path);
  }

  /** Full-text search, best first (see `SearchQuery` for the query text). Rejects with `invalid_argument` for an empty query. */
  async search(text: string, options: CatalogSearchOptions = {}): Promise<SearchHit[]> {
    let hostIds: number[] | undefined;
    if (options.hosts !== undefined) {
      const ids = await Promise.all(options.hosts.map((ref) => this.#store.resolveHost(ref)));
      hostIds = ids.filter((id): id is number => id !== null);
      if (hostIds.length === 0) return [];
    }
    return this.#store.search({
      text,
      ...(hostIds === undefined ? {} : { hostIds }),
      ...(options.network === undefined ? {} : { network: options.network }),
      ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.offset === undefined ? {} : { offset: options.offset }),
    });
  }

  /** Progress of one run, or null when there is no such run. */
  async progress(runId: number): Promise<CrawlProgress | null> {
    const run = await this.#store.getRun(runId);
    return run === null ? null : progressOf(run);
  }

  /** The host's runs, newest first. Rejects with `not_found` for an unknown host. */
  async runs(ref: HostRef, limit = 20): Promise<CrawlRunRecord[]> {
    return this.#store.listRuns(await this.#hostId(ref), limit);
  }

  async #hostId(ref: HostRef): Promise<number> {
    const id = await this.#store.resolveHost(ref);
    if (id === null) throw new NotFoundError(`Network "${ref.network}" has no host "${ref.host}".`, { details: { network: ref.network, host: ref.host } });
    return id;
  }
}

function toCatalogEntry(ref: HostRef, record: EntryRecord): CatalogEntry {
  return {
    network: ref.network,
    host: ref.host,
    path: record.path,
    size: record.size,
    mtime: record.mtime,
    etag: record.etag,
    mime: record.mime,
    nativeHash: record.nativeHash,
    nativeId: record.nativeId,
    decision: record.decision,
    dimensions: JSON.parse(record.dimensions) as Record<string, unknown>,
    extra: record.extra === null ? null : (JSON.parse(record.extra) as Record<string, unknown>),
    envelope: record.envelope === null ? null : (JSON.parse(record.envelope) as Envelope),
    content: { state: record.contentState, bytes: record.contentBytes },
    updatedAt: record.updatedAt,
  };
}
