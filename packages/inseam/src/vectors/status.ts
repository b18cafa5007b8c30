/**
 * What the vector index holds, for `inseam status`: the store's vector backend (sqlite-vec,
 * pgvector, or the exact scan on PostgreSQL without the extension) and, per network, its vector
 * host's model and how many of its hosts' entries are embedded, pending or failed for it.
 *
 * Read from the store alone: the model is the one the vector host's config names
 * (expectedModelId), so no embedder is started — a status is a few queries, whatever the model.
 */
import { isConnectorError } from '@neuralis/package-system/contracts';
import type { Store, VectorBackend } from '../store/index.js';
import { vectorHostOf } from './indexer.js';

export interface NetworkIndexStatus {
  readonly network: string;
  /** The vector host indexed for; null when the network has none (no semantic search). */
  readonly vectorHost: string | null;
  readonly model: string | null;
  /** Entries of the network's hosts embedded for the model, waiting for it (new or changed), and failed. */
  readonly indexed: number;
  readonly pending: number;
  readonly failed: number;
  readonly chunks: number;
  /** Why the model is not known: the vector host's config does not parse. */
  readonly error?: { readonly code: string; readonly message: string };
}

export interface VectorIndexStatus {
  readonly backend: VectorBackend;
  /** The sqlite-vec or pgvector version; null for the exact scan. */
  readonly version: string | null;
  readonly networks: readonly NetworkIndexStatus[];
}

/** The backend and every network's counts, networks by slug. Throws the store's errors. */
export async function vectorIndexStatus(store: Pick<Store, 'networks' | 'hosts' | 'vectors'>): Promise<VectorIndexStatus> {
  // Imported here: whatever loads this module (the platform, for every command) need not load the connector.
  const { expectedModelId, parseVectorConfig } = await import('@inseam/connector-vector');
  const { backend, version } = await store.vectors.backend();
  const networks: NetworkIndexStatus[] = [];
  for (const { slug } of await store.networks.list()) {
    const none = { network: slug, vectorHost: null, model: null, indexed: 0, pending: 0, failed: 0, chunks: 0 };
    const host = await vectorHostOf(store, slug);
    if (host === null) {
      networks.push(none);
      continue;
    }
    let model: string;
    try {
      model = expectedModelId(parseVectorConfig(host.config).embedder);
    } catch (error) {
      networks.push({ ...none, vectorHost: host.slug, error: isConnectorError(error) ? { code: error.code, message: error.message } : { code: 'internal', message: 'The vector host\'s config could not be read.' } });
      continue;
    }
    const hostIds = (await store.hosts.list(slug)).filter((record) => record.kind !== 'vector').map((record) => record.id);
    const counts = hostIds.length === 0 ? { indexed: 0, pending: 0, failed: 0, chunks: 0 } : await store.vectors.counts(model, hostIds);
    networks.push({ network: slug, vectorHost: host.slug, model, indexed: counts.indexed, pending: counts.pending, failed: counts.failed, chunks: counts.chunks });
  }
  return { backend, version, networks: networks.sort((a, b) => (a.network < b.network ? -1 : a.network > b.network ? 1 : 0)) };
}
