/**
 * The vector kind's seams (`@inseam/connector-vector`'s VectorIndex and VectorAccess) over the
 * platform's store, for one network:
 * - the index reads `store.vectors` (records, spans, nearest chunks) of the network's hosts;
 * - access is each entry's own host's permission tree, `read` at the entry's path, as search
 *   hits apply it (HostKinds.permissionsOf).
 *
 * Which hosts show. Only hosts owned by the whole network (`project`) and not themselves of kind
 * `vector`: a host owned by one user or agent is theirs alone, and a vector port's calls carry no
 * caller to tell who asks. Until the fs service routes a vector address through the checks of the
 * entry's own host for the calling session (the integration round, docs/search.md), such hosts
 * are left out rather than shown to everyone who may read the vector source.
 */
import type { IndexHit, IndexSearch, IndexedEntry, VectorAccess, VectorIndex } from '@inseam/connector-vector';
import { addressFromHostPath } from '../address/index.js';
import type { CompiledPermissions } from '../fs/permissions.js';
import type { HostRecord, Store } from '../store/index.js';

export interface StoreVectorSeamsOptions {
  readonly store: Pick<Store, 'hosts' | 'catalog' | 'vectors'>;
  readonly network: string;
  readonly permissionsOf: (record: HostRecord) => CompiledPermissions;
}

/** The network's index and access rule. */
export function storeVectorSeams(options: StoreVectorSeamsOptions): { readonly index: VectorIndex; readonly access: VectorAccess } {
  const { store, network } = options;
  const visible = async (): Promise<Map<string, HostRecord>> =>
    new Map((await store.hosts.list(network)).filter((record) => record.ownership === 'project' && record.kind !== 'vector').map((record) => [record.slug, record]));
  const visibleHost = async (slug: string): Promise<HostRecord | undefined> => (await visible()).get(slug);

  const index: VectorIndex = {
    async hosts() {
      const hosts = await visible();
      return (await store.vectors.hosts(network)).map(({ host }) => host.host).filter((slug) => hosts.has(slug));
    },
    async paths(host, { prefix, after, limit }) {
      const record = await visibleHost(host);
      if (record === undefined) return [];
      const records = await store.vectors.entries(record.id, { prefix, ...(after === undefined ? {} : { after }), limit: Math.min(limit, 1000) });
      return [...new Set(records.map((entry) => entry.path))];
    },
    async entry(host, path): Promise<IndexedEntry | null> {
      const record = await visibleHost(host);
      if (record === undefined) return null;
      // The path sorts first among the paths it prefixes, so the first page under it starts with its own records.
      const records = (await store.vectors.entries(record.id, { prefix: path, limit: 1 })).filter((entry) => entry.path === path);
      if (records.length === 0) return null;
      return {
        host,
        path,
        records: await Promise.all(
          records.map(async (entry) => ({
            model: entry.model,
            state: entry.state,
            contentKey: entry.contentKey,
            attempts: entry.attempts,
            error: entry.error,
            indexedAt: entry.indexedAt,
            updatedAt: entry.updatedAt,
            chunks: (await store.vectors.chunks(entry.entryId, entry.model)).map((chunk) => chunk.span),
          })),
        ),
      };
    },
    async search(request: IndexSearch): Promise<readonly IndexHit[]> {
      const hosts = await visible();
      const hostIds = [...hosts.values()].filter((record) => request.hosts === undefined || request.hosts.includes(record.slug)).map((record) => record.id);
      const hits = await store.vectors.query({ model: request.model, vector: request.vector, k: request.k, hostIds });
      return hits.map((hit) => ({ host: hit.host.host, path: hit.path, span: hit.span, score: hit.score, contentKey: hit.contentKey }));
    },
  };

  const access: VectorAccess = {
    async readable(host, path) {
      const record = await visibleHost(host);
      if (record === undefined) return false;
      let segments: readonly string[];
      try {
        segments = addressFromHostPath(path, { network, host }).segments;
      } catch {
        return false;
      }
      return options.permissionsOf(record).allows(segments, 'read');
    },
  };

  return { index, access };
}
