/**
 * Full-text search across the hosts of a network (or of every network), over the catalog's
 * content index, returning global addresses with snippets.
 *
 * Filters, all applied inside the store's query, before the page is cut (store/search-scope.ts):
 * - hosts: only the named hosts of the network;
 * - dimensions: scope-grammar predicates (docs/scope.md), all of which must hold, evaluated on
 *   the entry as stored. A host whose kind does not declare a dimension a predicate names (or
 *   declares it with another type) has no hits; when that is true of every searched host the
 *   search is refused with the scope validation's `scope_invalid`;
 * - permissions: never a hit the caller may not read. Each host's permission tree (see
 *   HostKinds.permissionsOf) must allow `read` on the hit's path, and so must the caller's own
 *   tree for the host, when `access` gives one (the HTTP, MCP and CLI surfaces pass the
 *   authenticated caller's); a host `access` answers null for is not searched.
 *
 * Paging: `next` is the offset into the filtered, ranked hits; it is given only when more hits
 * follow, so a page is empty only when nothing matches from its offset on. Each hit is checked
 * again against the trees and the catalog after the query (a path the catalog holds in a
 * spelling that is not canonical, or an entry deleted meanwhile, is dropped), and the page is
 * filled from further hits when one is.
 */
import type { Description, Dimension, ScopePredicate } from '@inseam/connector';
import { InvalidArgumentError, NotFoundError, isConnectorError, type ConnectorError, type PermissionTree } from '@neuralis/package-system/contracts';
import { addressFromHostPath, checkHostSlug, checkNetworkSlug, formatAddress, type Address } from '../address/index.js';
import { pathOfSegments } from '../address/path.js';
import type { Catalog } from '../catalog/index.js';
import { compilePermissions, type CompiledPermissions } from '../fs/permissions.js';
import type { HostKinds } from '../platform/host-kinds.js';
import { compileScope } from '../scope/index.js';
import { toComparable } from '../scope/values.js';
import type { EntryCondition, EntryField, HostRecord, HostRef, HostSearchScope, ReadablePaths, SearchHit, SearchHitEntry, Store, ValueType } from '../store/index.js';
import { parseWhere, typeWhere } from './where.js';
import { MAX_RANKED_DEPTH, SEARCH_MODES, fuse, semanticRanking, type IndexCoverage, type SearchMode, type SemanticCandidate } from './semantic.js';
import { resolveOsPath, type OsPathOn } from './os-path.js';

export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 20;

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
  /**
   * The caller's own permission tree for a host, on top of the host's; null: the caller may read
   * nothing of it. Absent: only the hosts' trees apply.
   */
  readonly access?: (host: HostRecord) => Promise<PermissionTree | null>;
  /**
   * `keyword` (default of this in-process API, for its existing callers; every surface — CLI,
   * /v1, MCP, web — defaults to DEFAULT_SEARCH_MODE, hybrid): every term must match (BM25). `semantic`: by meaning, the
   * network's embedder's nearest passages. `hybrid`: both, fused by reciprocal rank (semantic.ts).
   */
  readonly mode?: SearchMode;
  /** Look up each hit's real OS path (`osPath`); default true. */
  readonly osPaths?: boolean;
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
  /** The entry's etag as catalogued (what a read or write checks against), or null. */
  readonly etag: string | null;
  /** The rankings the hit came from. */
  readonly matched: readonly ('keyword' | 'semantic')[];
  /** The chunk that matched by meaning: its `[start, end)` in the entry's indexed text, and that text. */
  readonly passage: { readonly start: number; readonly end: number; readonly text: string } | null;
  /**
   * The entry's real OS path, from its connector's resolveOsUri now; null when it has none, and
   * then `osPathError` says why (`os_uri_unresolvable` for kinds without OS paths).
   */
  readonly osPath: string | null;
  /** With an `osPath`: on which machine that path is (see OsPathOn). */
  readonly osPathOn?: OsPathOn;
  readonly osPathError?: { readonly code: string; readonly message: string };
}

export interface SearchPage {
  readonly hits: readonly SearchResult[];
  /** Pass as `cursor` for more; absent when no more hits match. */
  readonly next?: string;
  /** Semantic and hybrid: per network, the model that answered and what of the searched hosts it has embedded (pending and failed entries have no semantic hits). */
  readonly index?: readonly IndexCoverage[];
}

export interface SearchServiceOptions {
  readonly store: Store;
  readonly catalog: Catalog;
  readonly kinds: HostKinds;
}

interface HostFilter {
  readonly record: HostRecord;
  /** The host's tree and the caller's: both must allow `read`. */
  readonly permissions: readonly CompiledPermissions[];
  readonly scope: HostSearchScope;
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
    const mode = options.mode ?? 'keyword';
    if (!SEARCH_MODES.includes(mode)) throw new InvalidArgumentError(`mode must be one of ${SEARCH_MODES.join(', ')}; it is ${JSON.stringify(mode)}.`, { details: { argument: 'mode' } });
    const start = decodeCursor(options.cursor);
    const where = [...(options.where ?? []), ...(options.whereText ?? []).map(parseWhere)];
    const records = await this.#hosts(options);
    const filters = await this.#filters(records, where, options.access);
    if (mode !== 'keyword') return this.#ranked(text, mode, filters, start, limit, options.osPaths !== false);
    const scopes = [...filters.values()].map((filter) => filter.scope);
    const hits: SearchResult[] = [];
    const network = options.network === undefined ? {} : { network: options.network };
    let offset = start;
    for (;;) {
      // One more than the page needs says whether another page follows.
      const want = Math.min(limit - hits.length + 1, MAX_SEARCH_LIMIT);
      const batch = scopes.length === 0 ? [] : await this.#o.catalog.search(text, { ...network, scopes, limit: want, offset });
      for (let index = 0; index < batch.length; index++) {
        if (hits.length === limit) return this.#osPaths({ hits, next: encodeCursor(offset + index) }, filters, options.osPaths !== false);
        const result = await this.#accept(batch[index]!, filters);
        if (result !== null) hits.push(result);
      }
      offset += batch.length;
      if (batch.length < want) return this.#osPaths({ hits }, filters, options.osPaths !== false);
    }
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

  async #filters(records: readonly HostRecord[], where: readonly ScopePredicate[], access: SearchOptions['access']): Promise<Map<string, HostFilter>> {
    const filters = new Map<string, HostFilter>();
    let refusal: ConnectorError | undefined;
    let anyUsable = false;
    for (const record of records) {
      let condition: EntryCondition | undefined;
      let usable = true;
      if (where.length > 0) {
        try {
          condition = whereCondition(where, await this.#o.kinds.describe(record));
          anyUsable = true;
        } catch (error) {
          if (!isConnectorError(error)) throw error;
          refusal ??= error;
          usable = false;
        }
      }
      if (!usable) continue;
      const own = this.#o.kinds.permissionsOf(record);
      const callers = access === undefined ? undefined : await access(record);
      if (callers === null) continue;
      const permissions = callers === undefined ? [own] : [own, compilePermissions(callers)];
      const scope: HostSearchScope = { hostId: record.id, readable: permissions.map((tree) => readablePaths(tree.tree)), ...(condition === undefined ? {} : { where: condition }) };
      filters.set(refKey({ network: record.network, host: record.slug }), { record, permissions, scope });
    }
    if (where.length > 0 && !anyUsable && refusal !== undefined) throw refusal;
    return filters;
  }

  /**
   * Semantic or hybrid: each ranking to a fixed depth (so pages of one query agree), fused, then
   * cut into the page. The scopes are in both rankings' queries; each hit is still checked again
   * as keyword hits are.
   */
  async #ranked(text: string, mode: Exclude<SearchMode, 'keyword'>, filters: ReadonlyMap<string, HostFilter>, start: number, limit: number, osPaths: boolean): Promise<SearchPage> {
    if (typeof text !== 'string' || text.trim() === '') throw new InvalidArgumentError('The search query is empty.', { details: { argument: 'query' } });
    const depth = Math.min(MAX_RANKED_DEPTH, Math.ceil((start + limit + 1) / 100) * 100);
    const byNetwork = new Map<string, HostSearchScope[]>();
    for (const filter of filters.values()) byNetwork.set(filter.record.network, [...(byNetwork.get(filter.record.network) ?? []), filter.scope]);
    const index: IndexCoverage[] = [];
    const semantic = new Map<string, SemanticCandidate>();
    const rankings: string[][] = [];
    for (const [network, scopes] of [...byNetwork].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const ranking = await semanticRanking({ store: this.#o.store, embedderOf: (host) => this.#o.kinds.embedder(host), network, text, scopes, depth });
      index.push(ranking.coverage);
      const keys = ranking.candidates.map((candidate) => entryKey({ network: candidate.network, host: candidate.host }, candidate.path));
      ranking.candidates.forEach((candidate, at) => semantic.set(keys[at]!, candidate));
      rankings.push(keys);
    }
    const keyword = new Map<string, SearchHit>();
    if (mode === 'hybrid') {
      const scopes = [...filters.values()].map((filter) => filter.scope);
      const keys: string[] = [];
      try {
        while (scopes.length > 0 && keys.length < depth) {
          const batch = await this.#o.catalog.search(text, { scopes, limit: MAX_SEARCH_LIMIT, offset: keys.length });
          for (const hit of batch) {
            const key = entryKey(hit.host, hit.path);
            keyword.set(key, hit);
            keys.push(key);
          }
          if (batch.length < MAX_SEARCH_LIMIT) break;
        }
      } catch (error) {
        // A question with no searchable term (only punctuation, say) still has its meaning.
        if (!isConnectorError(error) || error.code !== 'invalid_argument') throw error;
      }
      rankings.push(keys);
    }
    const scores = mode === 'hybrid' ? fuse(rankings) : new Map([...semantic].map(([key, candidate]) => [key, candidate.score]));
    const order = [...scores].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    const hits: SearchResult[] = [];
    for (let at = start; at < order.length; at++) {
      if (hits.length === limit) return this.#osPaths({ hits, next: encodeCursor(at), index }, filters, osPaths);
      const [key, score] = order[at]!;
      const result = await this.#acceptRanked(keyword.get(key), semantic.get(key), score, filters);
      if (result !== null) hits.push(result);
    }
    return this.#osPaths({ hits, index }, filters, osPaths);
  }

  /** A fused hit, checked as #accept checks, with its passage sliced from the catalog's current text. */
  async #acceptRanked(keyword: SearchHit | undefined, semantic: SemanticCandidate | undefined, score: number, filters: ReadonlyMap<string, HostFilter>): Promise<SearchResult | null> {
    const ref = keyword?.host ?? { network: semantic!.network, host: semantic!.host };
    const path = keyword?.path ?? semantic!.path;
    const base = await this.#accept(
      { entryId: keyword?.entryId ?? semantic!.entryId, host: ref, path, score, snippet: keyword?.snippet ?? '', highlights: keyword?.highlights ?? [], ...(keyword === undefined ? {} : { entry: keyword.entry }) },
      filters,
    );
    if (base === null || semantic === undefined) return base === null ? null : { ...base, matched: ['keyword'] };
    const hostId = filters.get(refKey(ref))!.record.id;
    const stored = await this.#o.store.catalog.getEntry(hostId, path);
    // A vector of other content than the catalog's now is never served (the store's invariants make this not happen).
    if (stored === null || stored.contentKey !== semantic.contentKey || stored.contentState !== 'indexed') return keyword === undefined ? null : { ...base, matched: ['keyword'] };
    const text = (await this.#o.store.catalog.contentText(hostId, path)) ?? '';
    const passage = { start: semantic.span.start, end: semantic.span.end, text: text.slice(semantic.span.start, semantic.span.end) };
    return {
      ...base,
      snippet: keyword === undefined ? shorten(passage.text) : base.snippet,
      matched: keyword === undefined ? ['semantic'] : ['keyword', 'semantic'],
      passage,
    };
  }

  /** A hit the caller may read, with its entry's fields: the keyword search's own, else looked up (a semantic candidate's). */
  async #accept(hit: Omit<SearchHit, 'entry'> & { readonly entry?: SearchHitEntry }, filters: ReadonlyMap<string, HostFilter>): Promise<SearchResult | null> {
    const filter = filters.get(refKey(hit.host));
    if (filter === undefined) return null;
    let address: Address;
    try {
      address = addressFromHostPath(hit.path, { network: hit.host.network, host: hit.host.host });
    } catch {
      return null;
    }
    if (!filter.permissions.every((tree) => tree.allows(address.segments, 'read'))) return null;
    const entry = hit.entry ?? (await this.#o.catalog.entry(hit.host, hit.path));
    if (entry === null) return null;
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
      etag: entry.etag,
      matched: ['keyword'],
      passage: null,
      osPath: null,
      osPathError: NOT_RESOLVED,
    };
  }

  /** The page's OS paths, asked of the hosts at once (a slow host costs the page one timeout, not one per hit). */
  async #osPaths(page: SearchPage, filters: ReadonlyMap<string, HostFilter>, wanted: boolean): Promise<SearchPage> {
    if (!wanted) return page;
    const hits = await Promise.all(
      page.hits.map(async (hit) => {
        const record = filters.get(refKey(hit))!.record;
        return { ...hit, ...(await resolveOsPath(this.#o.kinds, record, addressFromHostPath(hit.path, { network: hit.network, host: hit.host }))) };
      }),
    );
    return { ...page, hits };
  }
}

/**
 * The predicates as one condition on the entry's fields, typed by the host's dimensions. Throws
 * `scope_invalid` as the scope validation does (an undeclared dimension, a wrong type, an
 * operator the type does not take, a bad glob).
 */
function whereCondition(where: readonly ScopePredicate[], description: Description): EntryCondition {
  const typed = where.map((predicate) => typeWhere(predicate, description));
  const all: ScopePredicate = typed.length === 1 ? typed[0]! : { all: typed };
  compileScope({ rules: [{ exclude: { not: all } }] }, description);
  return toCondition(all, description);
}

function toCondition(predicate: ScopePredicate, description: Description): EntryCondition {
  if ('all' in predicate) return { all: predicate.all.map((item) => toCondition(item, description)) };
  if ('any' in predicate) return { any: predicate.any.map((item) => toCondition(item, description)) };
  if ('not' in predicate) return { not: toCondition(predicate.not, description) };
  const dimension = description.dimensions[predicate.dim]!;
  const field: EntryField = dimension.from.startsWith('extra.') ? { extra: dimension.from.split('.').slice(1) } : (dimension.from as EntryField);
  const type: ValueType = VALUE_TYPES[dimension.type];
  const value = (item: unknown): string | number | boolean => toComparable(item, dimension);
  switch (predicate.op) {
    case 'in':
      return { field, type, op: 'in', value: (predicate.value as unknown[]).map(value) };
    case 'prefix':
      return { field, type: 'text', op: 'prefix', value: predicate.value as string };
    case 'glob':
      return { field, type: 'text', op: 'glob', value: predicate.value as string, mode: dimension.type === 'path' ? 'path' : 'text' };
    default:
      return { field, type, op: predicate.op, value: value(predicate.value) };
  }
}

const VALUE_TYPES: Readonly<Record<Dimension['type'], ValueType>> = { string: 'text', path: 'text', enum: 'text', bytes: 'number', integer: 'number', datetime: 'datetime', boolean: 'boolean' };

/** Where a tree allows `read`, as catalog paths: its keys that set `read`, deepest first. */
function readablePaths(tree: PermissionTree): ReadablePaths {
  const rules = Object.entries(tree.paths ?? {})
    .filter(([, rights]) => rights.read !== undefined)
    .map(([key, rights]) => ({ segments: key.split('/'), read: rights.read! }))
    .sort((a, b) => b.segments.length - a.segments.length)
    .map(({ segments, read }) => ({ path: pathOfSegments(segments).path, read }));
  return { default: tree.default.read, rules };
}

function refKey(ref: HostRef): string {
  return `${ref.network}/${ref.host}`;
}

const NOT_RESOLVED = Object.freeze({ code: 'not_requested', message: 'OS paths were not asked for.' });

function entryKey(ref: HostRef, path: string): string {
  return `${ref.network}/${ref.host}\u0000${path}`;
}

/** A passage as a snippet: its first 300 characters, whitespace folded. */
function shorten(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length <= 300 ? folded : `${folded.slice(0, 299)}…`;
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
