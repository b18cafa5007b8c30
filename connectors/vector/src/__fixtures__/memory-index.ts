/**
 * A VectorIndex in memory for the kind's own tests: the platform's is over its store (tested in
 * packages/inseam), and these tests check what the port makes of an index, not the index.
 */
import type { IndexHit, IndexRecord, IndexSearch, IndexedEntry, VectorIndex } from '../vector-index.js';

export interface MemoryEntry {
  readonly host: string;
  readonly path: string;
  readonly record: Omit<IndexRecord, 'chunks'> & { readonly chunks?: IndexRecord['chunks'] };
  /** One vector per chunk, for search. */
  readonly vectors?: readonly Float32Array[];
}

export class MemoryIndex implements VectorIndex {
  readonly #entries = new Map<string, MemoryEntry[]>();
  searches = 0;

  add(entry: MemoryEntry): this {
    const key = `${entry.host}\0${entry.path}`;
    this.#entries.set(key, [...(this.#entries.get(key) ?? []), entry]);
    return this;
  }

  async hosts(): Promise<readonly string[]> {
    return [...new Set([...this.#entries.values()].map(([entry]) => entry!.host))].sort();
  }

  async paths(host: string, options: { readonly prefix: string; readonly after?: string; readonly limit: number }): Promise<readonly string[]> {
    return [...this.#entries.values()]
      .map(([entry]) => entry!)
      .filter((entry) => entry.host === host && entry.path.startsWith(options.prefix) && (options.after === undefined || entry.path > options.after))
      .map((entry) => entry.path)
      .sort()
      .slice(0, options.limit);
  }

  async entry(host: string, path: string): Promise<IndexedEntry | null> {
    const entries = this.#entries.get(`${host}\0${path}`);
    if (entries === undefined) return null;
    return { host, path, records: entries.map((entry) => ({ ...entry.record, chunks: entry.record.chunks ?? [] })) };
  }

  async search(request: IndexSearch): Promise<readonly IndexHit[]> {
    this.searches += 1;
    const hits: IndexHit[] = [];
    for (const [entry] of this.#entries.values()) {
      for (const candidate of this.#entries.get(`${entry!.host}\0${entry!.path}`)!) {
        if (candidate.record.model !== request.model || (request.hosts !== undefined && !request.hosts.includes(candidate.host))) continue;
        (candidate.vectors ?? []).forEach((vector, index) => {
          const span = candidate.record.chunks?.[index] ?? { start: 0, end: 1 };
          hits.push({ host: candidate.host, path: candidate.path, span, score: dot(vector, request.vector), contentKey: candidate.record.contentKey });
        });
      }
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, request.k);
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += a[index]! * (b[index] ?? 0);
  return sum;
}

export function record(model: string, fields: Partial<IndexRecord> = {}): Omit<IndexRecord, 'chunks'> & { chunks?: IndexRecord['chunks'] } {
  return { model, state: 'indexed', contentKey: 'k1', attempts: 0, error: null, indexedAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, ...fields };
}
