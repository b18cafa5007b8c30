/**
 * The two rankings behind `mode: semantic` and `mode: hybrid`, and their fusion.
 *
 * - Semantic: the query's vector under the network's embedder (its vector host's model), the
 *   nearest chunks of that model only, inside the same per-host scopes as keyword search (the
 *   host's and the caller's readable paths and the dimension filters, applied in the store's
 *   query before the k are cut), best chunk per entry, at least the vector host's `minScore`.
 *   An entry not embedded yet for the model (pending, failed) has no vectors of it, so it is not
 *   a semantic hit — never one from an older vector or another model.
 * - Hybrid: reciprocal-rank fusion of the keyword (BM25) ranking and the semantic ranking,
 *   score = Σ 1 / (60 + rank) over the rankings an entry appears in (Cormack et al. 2009's k).
 */
import type { Embedder } from '@inseam/connector-vector';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import type { HostRecord, HostSearchScope, Store, VectorCounts } from '../store/index.js';
import { vectorHostOf } from '../vectors/index.js';

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The mode of a search that names none, on every surface (CLI, /v1, MCP, web): words and meaning. */
export const DEFAULT_SEARCH_MODE: SearchMode = 'hybrid';

/** Reciprocal-rank fusion's constant. */
export const RRF_K = 60;

/** How far down each ranking a semantic or hybrid search looks: paging stops there. */
export const MAX_RANKED_DEPTH = 1000;

export interface SemanticCandidate {
  readonly entryId: number;
  readonly hostId: number;
  readonly network: string;
  readonly host: string;
  readonly path: string;
  /** The best chunk's `[start, end)` in the entry's indexed text. */
  readonly span: { readonly start: number; readonly end: number };
  /** Cosine similarity of the best chunk. */
  readonly score: number;
  readonly contentKey: string | null;
}

/** What a network's index could answer for: its model and how much of the searched hosts it covers. */
export interface IndexCoverage {
  readonly network: string;
  /** The vector host answering, or null when the network has none. */
  readonly vectorHost: string | null;
  readonly model: string | null;
  /** Entries of the searched hosts embedded for the model, still to embed, and failed. */
  readonly indexed: number;
  readonly pending: number;
  readonly failed: number;
  /** Why semantic hits could not be had, when they could not (`unavailable` of the embedder, …). */
  readonly error?: { readonly code: string; readonly message: string };
}

export interface SemanticRanking {
  readonly candidates: readonly SemanticCandidate[];
  readonly coverage: IndexCoverage;
}

export interface SemanticRequest {
  readonly store: Pick<Store, 'hosts' | 'vectors'>;
  readonly embedderOf: (host: HostRecord) => Promise<Embedder>;
  readonly network: string;
  readonly text: string;
  /** The searched hosts' scopes, all of this network. */
  readonly scopes: readonly HostSearchScope[];
  /** Distinct entries wanted, at most MAX_RANKED_DEPTH. */
  readonly depth: number;
  readonly signal?: AbortSignal;
}

/** The network's semantic ranking, best first, one candidate per entry. Throws the store's errors; an embedder's become `coverage.error`. */
export async function semanticRanking(request: SemanticRequest): Promise<SemanticRanking> {
  const { store, network, scopes } = request;
  const hostIds = scopes.map((scope) => scope.hostId);
  const vectorHost = await vectorHostOf(store, network);
  const none = { network, vectorHost: vectorHost?.slug ?? null, model: null, indexed: 0, pending: 0, failed: 0 };
  if (vectorHost === null || scopes.length === 0) return { candidates: [], coverage: none };
  let embedder: Embedder;
  let vector: Float32Array | undefined;
  try {
    embedder = await request.embedderOf(vectorHost);
    [vector] = await embedder.embed([request.text], request.signal === undefined ? {} : { signal: request.signal });
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { candidates: [], coverage: { ...none, error: { code: typeof code === 'string' ? code : 'internal', message: typeof message === 'string' ? message : 'The embedder failed.' } } };
  }
  const coverage = { ...none, model: embedder.model, ...(await countsOf(store, embedder.model, hostIds)) };
  // Loaded here, not at the top: a process that never searches by meaning never loads the vector package.
  const { isZeroVector, parseVectorConfig } = await import('@inseam/connector-vector');
  if (vector === undefined || isZeroVector(vector)) return { candidates: [], coverage };
  const minScore = parseVectorConfig(vectorHost.config).minScore;
  const depth = Math.min(request.depth, MAX_RANKED_DEPTH);
  const best = new Map<number, SemanticCandidate>();
  // Chunks, not entries, are ranked: ask for more until enough distinct entries clear the floor.
  for (let k = Math.min(MAX_RANKED_DEPTH, depth * 3); ; k = Math.min(MAX_RANKED_DEPTH, k * 4)) {
    let hits;
    try {
      hits = await store.vectors.query({ model: embedder.model, vector, k, scopes });
    } catch (error) {
      // Nothing was ever embedded for this model: it is not registered yet.
      if (hasErrorCode(error, 'invalid_argument')) return { candidates: [], coverage };
      throw error;
    }
    best.clear();
    let belowFloor = false;
    for (const hit of hits) {
      if (hit.score < minScore) {
        belowFloor = true;
        break;
      }
      if (!best.has(hit.entryId)) {
        best.set(hit.entryId, { entryId: hit.entryId, hostId: hit.hostId, network: hit.host.network, host: hit.host.host, path: hit.path, span: hit.span, score: hit.score, contentKey: hit.contentKey });
      }
    }
    if (best.size >= depth || belowFloor || hits.length < k || k === MAX_RANKED_DEPTH) break;
  }
  return { candidates: [...best.values()].slice(0, depth), coverage };
}

async function countsOf(store: Pick<Store, 'vectors'>, model: string, hostIds: readonly number[]): Promise<Pick<VectorCounts, 'indexed' | 'pending' | 'failed'>> {
  try {
    const counts = await store.vectors.counts(model, hostIds);
    return { indexed: counts.indexed, pending: counts.pending, failed: counts.failed };
  } catch (error) {
    if (hasErrorCode(error, 'invalid_argument')) return { indexed: 0, pending: 0, failed: 0 };
    throw error;
  }
}

/** Reciprocal-rank fusion of rankings (keys best first): key → fused score. */
export function fuse(rankings: readonly (readonly string[])[]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((key, index) => scores.set(key, (scores.get(key) ?? 0) + 1 / (RRF_K + index + 1)));
  }
  return scores;
}
