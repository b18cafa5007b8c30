/**
 * Turning listed (or event) entries into catalog writes: what is stored already, whether a new
 * path is a known object moved (by nativeId), and whether content must be read — only for
 * `include` entries whose validator changed. Reads run a few at a time.
 */
import type { Connector, Entry } from '@inseam/connector';
import { EntryEncoder, contentKey } from '../catalog/index.js';
import type { DocumentExtractor } from '../extract/index.js';
import type { CatalogStore, ContentUpdate, EntryDecision, EntryPut, EntryState } from '../store/index.js';
import { contentFromListing, readContent } from './content.js';

export interface WriteItem {
  readonly entry: Entry;
  readonly decision: EntryDecision;
  /** A move event's old path. */
  readonly movedFrom?: string;
}

export interface Prepared {
  readonly puts: EntryPut[];
  readonly indexed: number;
  readonly contentBytes: number;
  /** Entries that could not be encoded, and reads that failed. */
  readonly errors: number;
  /** Characters of text the puts carry (what a batch holds in memory). */
  readonly textLength: number;
  /** Puts of stored entries (not moved) whose size or validator changed. */
  readonly changed: number;
}

export interface PrepareOptions {
  readonly readConcurrency: number;
  readonly maxContentBytes: number;
  readonly readTimeoutMs: number;
  readonly extractor?: DocumentExtractor | undefined;
}

export class EntryPreparer {
  readonly #store: CatalogStore;
  readonly #connector: Connector;
  readonly #encoder: EntryEncoder;
  readonly #options: PrepareOptions;

  constructor(store: CatalogStore, connector: Connector, encoder: EntryEncoder, options: PrepareOptions) {
    this.#store = store;
    this.#connector = connector;
    this.#encoder = encoder;
    this.#options = options;
  }

  /**
   * `marker` is the run stamping the entries (null for events): content that failed to read in
   * this very run is not tried again until the next one.
   */
  async prepare(hostId: number, items: readonly WriteItem[], marker: number | null): Promise<Prepared> {
    const byPath = new Map<string, WriteItem>();
    for (const item of items) byPath.set(item.entry.path, item);
    const unique = [...byPath.values()];
    const wanted = new Set<string>(byPath.keys());
    for (const item of unique) if (item.movedFrom !== undefined) wanted.add(item.movedFrom);
    const states = await this.#store.lookup(hostId, [...wanted]);
    const nativeIds = unique.filter((item) => item.movedFrom === undefined && !states.has(item.entry.path) && item.entry.nativeId !== undefined).map((item) => item.entry.nativeId!);
    const natives = nativeIds.length === 0 ? new Map<string, EntryState>() : await this.#store.lookupNativeIds(hostId, nativeIds);

    const puts: EntryPut[] = [];
    const reads: { index: number; entry: Entry; key: string | null }[] = [];
    const sources = new Set<string>();
    let errors = 0;
    let changed = 0;
    for (const item of unique) {
      const { entry, decision } = item;
      let existing = states.get(entry.path);
      let movedFrom: string | undefined;
      const source = item.movedFrom !== undefined ? states.get(item.movedFrom) : existing === undefined && entry.nativeId !== undefined ? natives.get(entry.nativeId) : undefined;
      // A source listed in this same batch still exists at its own path: that is no move.
      if (source !== undefined && source.path !== entry.path && !byPath.has(source.path) && !sources.has(source.path)) {
        sources.add(source.path);
        movedFrom = source.path;
        existing = source;
      }
      let row;
      try {
        row = this.#encoder.row(entry, decision);
      } catch {
        errors += 1;
        continue;
      }
      if (existing !== undefined && movedFrom === undefined && (existing.etag !== row.etag || existing.nativeHash !== row.nativeHash || existing.size !== row.size)) changed += 1;
      let content: ContentUpdate | undefined;
      if (decision === 'index') {
        if (existing !== undefined && existing.contentState !== 'none') content = { state: 'none', key: null };
      } else {
        const key = contentKey(entry);
        if (!this.#unchanged(existing, key, entry, marker)) {
          // What the listing settles (a binary type, a size over the limit) is never read.
          content = contentFromListing(entry, this.#options.maxContentBytes, key);
          if (content === undefined) reads.push({ index: puts.length, entry, key });
        }
      }
      puts.push({ row, ...(movedFrom === undefined ? {} : { movedFrom }), ...(content === undefined ? {} : { content }) });
    }

    let indexed = 0;
    let contentBytes = 0;
    let textLength = 0;
    await runPool(reads, this.#options.readConcurrency, async ({ index, entry, key }) => {
      const { update, failed } = await readContent(this.#connector, entry, {
        maxBytes: this.#options.maxContentBytes,
        timeoutMs: this.#options.readTimeoutMs,
        key,
        ...(this.#options.extractor === undefined ? {} : { extractor: this.#options.extractor }),
      });
      puts[index] = { ...puts[index]!, content: update };
      if (failed) errors += 1;
      if (update.state === 'indexed') {
        indexed += 1;
        contentBytes += update.bytes;
        textLength += update.text.length;
      }
    });
    return { puts, indexed, contentBytes, errors, textLength, changed };
  }

  #unchanged(existing: EntryState | undefined, key: string | null, entry: Entry, marker: number | null): boolean {
    if (existing === undefined) return false;
    switch (existing.contentState) {
      case 'indexed':
      case 'binary':
        return key !== null && existing.contentKey === key;
      case 'too_large':
        return key !== null && existing.contentKey === key && (entry.size === undefined || entry.size > this.#options.maxContentBytes);
      case 'error':
        return marker !== null && existing.seenRun === marker;
      case 'none':
        return false;
    }
  }
}

async function runPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
