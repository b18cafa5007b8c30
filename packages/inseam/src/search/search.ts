/**
 * Full-text search across the hosts of a network (or of every network), over the catalog's
 * content index, returning global addresses with snippets.
 *
 * Filters, applied to each hit of the content index in rank order:
 * - hosts: only the named hosts of the network;
 * - dimensions: scope-grammar predicates (docs/scope.md), all of which must hold, evaluated on
 *   the entry as stored. A host whose kind does not declare a dimension a predicate names (or
 *   declares it with another type) has no hits; when that is true of every searched host the
 *   search is refused with the scope validation's `scope_invalid`;
 * - permissions: never a hit the caller may not read. Each host's permission tree (see
 *   HostKinds.permissionsOf) must allow `read` on the hit's path, and `canRead`, when given (the
 *   HTTP and MCP surfaces pass the authenticated caller's check), must answer true.
 *
 * Paging: one call scans at most MAX_SCAN hits of the index; `next` continues where the scan
 * stopped, so a filter that rejects most hits costs more calls, never unbounded work in one.
 */
import type { Description, Entry, ScopePredicate } from '@inseam/connector';
import { InvalidArgumentError, NotFoundError, isConnectorError, type ConnectorError } from '@neuralis/package-system/contracts';
import { addressFromHostPath, checkHostSlug, checkNetworkSlug, formatAddress, type Address } from '../address/index.js';
import type { Catalog, CatalogEntry } from '../catalog/index.js';
import type { CompiledPermissions } from '../fs/permissions.js';
import type { HostKinds } from '../platform/host-kinds.js';
import { compileScope, type CompiledScope } from '../scope/index.js';
import type { HostRecord, HostRef, SearchHit, Store } from '../store/index.js';
import { parseWhere, typeWhere } from './where.js';

export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 20;
/** Index hits looked at per call, at most. */
export const MAX_SCAN = 1000;
const PAGE = 100;

export interface SearchOptions {
  /** Absent: every network. */
  readonly network?: string;
  /** Host slugs of `network` (which is then required); absent: every host. */
  readonly hosts?: readonly string[];
  /** Typed predicates; every one must hold. */
  readonly where?: readonly ScopePredicate[];
  /** `dim<op>value` filters (see where.ts), typed by each host's dimensions; every one must hold. */
  readonly whereText?: readonly string[];
  /** 1–100; default 20. */
  readonly limit?: number;
  /** `next` of the previous page. */
  readonly cursor?: string;
  /** The caller's own read check, on top of the hosts' permission trees. */
  readonly canRead?: (address: Address) => boolean | Promise<boolean>;
}

export interface SearchResult {
  /** `inseam://{network}/{host}/{path}`. */
  readonly address: string;
  readonly network: string;
  readonly host: string;
  readonly path: string;
  /** Plain text around the best match. */
  readonly snippet: string;
  /** `[start, end)` offsets of the matched terms in `snippet`. */
  readonly highlights: readonly (readonly [number, number])[];
  /** Lower is better; comparable within one search only. */
  readonly score: number;
  readonly size: number | null;
  readonly mtime: string | null;
  readonly mime: string | null;
}

export interface SearchPage {
  readonly hits: readonly SearchResult[];
  /** Pass as `cursor` for more; absent when the index has no more hits. */
  readonly next?: string;
}

export interface SearchServiceOptions {
  readonly store: Store;
  readonly catalog: Catalog;
  readonly kinds: HostKinds;
}

interface HostFilter {
  readonly record: HostRecord;
  readonly permissions: CompiledPermissions;
  /** null: no dimension filter; 'none': the host cannot satisfy it. */
  readonly where: CompiledScope | null | 'none';
}

export class SearchService {
  readonly #o: SearchServiceOptions;

  constructor(options: SearchServiceOptions) {
    this.#o = options;
  }

  /**
   * One page of hits for `text` (words, "phrases", prefix* terms; see SearchQuery). Throws
   * `invalid_argument` (empty query, bad limit, cursor or filter, hosts without a network),
   * `invalid_uri` (bad slugs), `not_found` (unknown network or host), `scope_invalid` (a filter no
   * searched host can evaluate).
   */
  async search(text: string, options: SearchOptions = {}): Promise<SearchPage> {
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
      throw new InvalidArgumentError(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}; it is ${String(limit)}.`, { details: { argument: 'limit' } });
    }
    const start = decodeCursor(options.cursor);
    const where = [...(options.where ?? []), ...(options.whereText ?? []).map(parseWhere)];
    const records = await this.#hosts(options);
    const filters = await this.#filters(records, where);
    const hosts = options.hosts === undefined ? undefined : records.map((record) => ({ network: record.network, host: record.slug }));
    const hits: SearchResult[] = [];
    let offset = start;
    let exhausted = false;
    while (hits.length < limit && offset - start < MAX_SCAN && !exhausted) {
      const batch = await this.#o.catalog.search(text, {
        ...(options.network === undefined ? {} : { network: options.network }),
        ...(hosts === undefined ? {} : { hosts }),
        limit: PAGE,
        offset,
      });
      let consumed = 0;
      for (const hit of batch) {
        consumed += 1;
        const result = await this.#accept(hit, filters, options.canRead);
        if (result !== null) hits.push(result);
        if (hits.length === limit) break;
      }
      offset += consumed;
      exhausted = batch.length < PAGE && consumed === batch.length;
    }
    return exhausted ? { hits } : { hits, next: encodeCursor(offset) };
  }

  async #hosts(options: SearchOptions): Promise<HostRecord[]> {
    if (options.network === undefined) {
      if (options.hosts !== undefined) throw new InvalidArgumentError('Filtering by host needs the network the hosts are in.', { details: { argument: 'network' } });
      const networks = await this.#o.store.networks.list();
      return (await Promise.all(networks.map((network) => this.#o.store.hosts.list(network.slug)))).flat();
    }
    const network = checkNetworkSlug(options.network);
    if ((await this.#o.store.networks.get(network)) === null) throw new NotFoundError(`There is no network "${network}".`, { details: { network } });
    const all = await this.#o.store.hosts.list(network);
    if (options.hosts === undefined) return all;
    return options.hosts.map((slug) => {
      const host = checkHostSlug(slug);
      const record = all.find((item) => item.slug === host);
      if (record === undefined) throw new NotFoundError(`Network "${network}" has no host "${host}".`, { details: { network, host } });
      return record;
    });
  }

  async #filters(records: readonly HostRecord[], where: readonly ScopePredicate[]): Promise<Map<string, HostFilter>> {
    const filters = new Map<string, HostFilter>();
    let refusal: ConnectorError | undefined;
    let anyUsable = false;
    for (const record of records) {
      let compiled: HostFilter['where'] = null;
      if (where.length > 0) {
        try {
          compiled = whereScope(where, await this.#o.kinds.describe(record));
          anyUsable = true;
        } catch (error) {
          if (!isConnectorError(error)) throw error;
          refusal ??= error;
          compiled = 'none';
        }
      }
      filters.set(refKey({ network: record.network, host: record.slug }), { record, permissions: this.#o.kinds.permissionsOf(record), where: compiled });
    }
    if (where.length > 0 && !anyUsable && refusal !== undefined) throw refusal;
    return filters;
  }

  async #accept(hit: SearchHit, filters: ReadonlyMap<string, HostFilter>, canRead: SearchOptions['canRead']): Promise<SearchResult | null> {
    const filter = filters.get(refKey(hit.host));
    if (filter === undefined || filter.where === 'none') return null;
    let address: Address;
    try {
      address = addressFromHostPath(hit.path, { network: hit.host.network, host: hit.host.host });
    } catch {
      return null;
    }
    if (!filter.permissions.allows(address.segments, 'read')) return null;
    if (canRead !== undefined && (await canRead(address)) !== true) return null;
    const entry = await this.#o.catalog.entry(hit.host, hit.path);
    if (entry === null) return null;
    if (filter.where !== null && filter.where.decide(toEntry(entry)) === 'skip') return null;
    return {
      address: formatAddress(address),
      network: hit.host.network,
      host: hit.host.host,
      path: hit.path,
      snippet: hit.snippet,
      highlights: hit.highlights,
      score: hit.score,
      size: entry.size,
      mtime: entry.mtime,
      mime: entry.mime,
    };
  }
}

/** The predicates as a scope that skips every entry failing one of them. Throws `scope_invalid`. */
function whereScope(where: readonly ScopePredicate[], description: Description): CompiledScope {
  const typed = where.map((predicate) => typeWhere(predicate, description));
  const all: ScopePredicate = typed.length === 1 ? typed[0]! : { all: typed };
  return compileScope({ rules: [{ exclude: { not: all } }] }, description);
}

function toEntry(entry: CatalogEntry): Entry {
  return {
    path: entry.path,
    ...(entry.size === null ? {} : { size: entry.size }),
    ...(entry.mtime === null ? {} : { mtime: entry.mtime }),
    ...(entry.etag === null ? {} : { etag: entry.etag }),
    ...(entry.mime === null ? {} : { mime: entry.mime }),
    ...(entry.extra === null ? {} : { extra: { ...entry.extra } }),
  };
}

function refKey(ref: HostRef): string {
  return `${ref.network}/${ref.host}`;
}

function encodeCursor(offset: number): string {
  return `s1.${offset}`;
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^s1\.(\d{1,9})$/.exec(cursor);
  if (match === null) throw new InvalidArgumentError('The search cursor is not one this search returned.', { details: { argument: 'cursor' } });
  return Number(match[1]);
}
