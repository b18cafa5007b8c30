/**
 * Embedding the catalog's text into the vector index, off the crawl's critical path: a crawl
 * writes its entries and their text and finishes; the platform then asks for a run here, which
 * embeds what the store reports pending (`store.vectors.pending`: new, changed, and failed ones
 * once their retry time has come) for the network's embedder, in batches.
 *
 * Why it is safe to stop at any point (a kill, a close, a change of model):
 * - Nothing here is remembered between runs: what is left to do is what the store says is
 *   pending, so a killed run resumes where the store stands, and an entry embedded before the kill
 *   is not embedded again.
 * - Each entry's chunks are written in one transaction that names the content key and catalog
 *   time its text was read at; if the catalog changed the entry since, the store refuses the write
 *   (`precondition_failed`) and the entry stays pending for the next run. The catalog's own write
 *   of new content drops the old vectors in its transaction (store/vector-types.ts), so an older
 *   vector is never served for changed text.
 * - A model is one vector space. A run embeds for the model the vector host names now; a change
 *   of model (a new config) makes later runs embed for the new one, and queries ask for the new
 *   one only, so results never mix two models' vectors; entries not yet re-embedded count as
 *   pending for it.
 *
 * Failures: an embedder error for a batch is retried one entry at a time; an entry that still
 * fails is recorded `failed` with the error's code and message (never its text), offered again
 * after `retryAfterMs`. An embedder that cannot start at all (a missing key, an unreachable
 * server) ends the run with that error and leaves every entry as it was: pending, not failed.
 */
import type { Embedder } from '@inseam/connector-vector';
import { hasErrorCode, isConnectorError } from '@neuralis/package-system/contracts';
import type { HostRecord, PendingEntry, Store } from '../store/index.js';

/** The vector package's helpers, imported with the first run: a process that never embeds never loads them. */
type VectorPackage = typeof import('@inseam/connector-vector');

export interface VectorIndexerOptions {
  readonly store: Pick<Store, 'networks' | 'hosts' | 'catalog' | 'vectors'>;
  /** The embedder a vector host's config names (HostKinds.embedder); its `model` is expectedModelId of that config. */
  readonly embedderOf: (host: HostRecord) => Promise<Embedder>;
  /** Entries read per page of pending ones. Default 32. */
  readonly batchEntries?: number;
  /** A failed entry is offered again this long after it failed. Default 10 minutes. */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

export interface IndexRunResult {
  readonly network: string;
  /** The model embedded for; null when the network has no vector host. */
  readonly model: string | null;
  /** Whether the embedder was started: only when something was pending for the model. */
  readonly loaded: boolean;
  /** Models no vector host names any more, dropped with their vectors once this model's re-embed was complete. */
  readonly dropped: readonly string[];
  readonly indexed: number;
  readonly failed: number;
  /** Entries whose text changed or went while being embedded: left pending for the next run. */
  readonly changed: number;
  readonly chunks: number;
  /** True when the run was stopped before it ran out of pending entries. */
  readonly stopped: boolean;
}

export interface IndexRunOptions {
  readonly signal?: AbortSignal;
  /** Called after each page of entries is written (tests stop a run there). */
  readonly onPage?: (done: { readonly indexed: number; readonly failed: number }) => void;
}

interface Prepared {
  readonly entry: PendingEntry;
  readonly spans: readonly { readonly start: number; readonly end: number }[];
  readonly texts: readonly string[];
}

/** The vector host of a network: the seeded one (slug `vector`), else the first of kind `vector` by slug. */
export async function vectorHostOf(store: Pick<Store, 'hosts'>, network: string): Promise<HostRecord | null> {
  const hosts = (await store.hosts.list(network)).filter((host) => host.kind === 'vector');
  return hosts.find((host) => host.slug === 'vector') ?? hosts.sort((a, b) => (a.slug < b.slug ? -1 : 1))[0] ?? null;
}

export class VectorIndexer {
  readonly #o: VectorIndexerOptions;
  /** Per network: the run going on, and whether another was asked for meanwhile. */
  readonly #runs = new Map<string, { promise: Promise<IndexRunResult>; again: boolean }>();
  readonly #stop = new AbortController();
  /** Per vector host id: the model its embedder answered for the config it had (expectedModelId until one was started). */
  readonly #models = new Map<number, { readonly config: string; readonly model: string }>();
  /** Errors of background runs, newest last (at most 20), for status and tests. */
  readonly errors: { readonly network: string; readonly code: string; readonly message: string }[] = [];

  constructor(options: VectorIndexerOptions) {
    this.#o = options;
  }

  /**
   * Asks for the network's pending entries to be embedded, in the background. Calls during a run
   * coalesce into one more run after it (so an entry a crawl wrote during the run is not missed).
   * Answers when the runs it started are over; never rejects (errors go to `errors`).
   */
  request(network: string): Promise<void> {
    // Closed: what is pending stays pending for the next process (nothing is lost, see above).
    if (this.#stop.signal.aborted) return Promise.resolve();
    const current = this.#runs.get(network);
    if (current !== undefined) {
      current.again = true;
      return current.promise.then(() => this.#runs.get(network)?.promise).then(() => undefined, () => undefined);
    }
    const state = { promise: undefined as unknown as Promise<IndexRunResult>, again: false };
    state.promise = (async () => {
      let result: IndexRunResult;
      do {
        state.again = false;
        try {
          result = await this.run(network, { signal: this.#stop.signal });
        } catch (error) {
          this.#record(network, error);
          throw error;
        }
      } while (state.again && !this.#stop.signal.aborted);
      return result;
    })().finally(() => this.#runs.delete(network));
    this.#runs.set(network, state);
    return state.promise.then(() => undefined, () => undefined);
  }

  /** Waits for every background run to end. */
  async idle(): Promise<void> {
    while (this.#runs.size > 0) await Promise.allSettled([...this.#runs.values()].map((run) => run.promise));
  }

  /** Stops background runs at their next page and waits for them. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.idle();
  }

  /**
   * Embeds the network's pending entries for its vector host's model, page by page, until none is
   * left or `signal` fires. Throws what the embedder throws when it cannot start, and the store's
   * errors; an entry's own embedding failure is recorded, not thrown.
   */
  async run(network: string, options: IndexRunOptions = {}): Promise<IndexRunResult> {
    const { store } = this.#o;
    const host = await vectorHostOf(store, network);
    const tally = { network, model: null as string | null, loaded: false, dropped: [] as string[], indexed: 0, failed: 0, changed: 0, chunks: 0, stopped: false };
    if (host === null) return tally;
    const vector = await import('@inseam/connector-vector');
    const settings = vector.parseVectorConfig(host.config);
    const hostIds = (await store.hosts.list(network)).filter((record) => record.kind !== 'vector').map((record) => record.id);
    // The embedder is started only when there is text to embed: a crawl that changed nothing, or
    // a network with no text, costs a store query, not a table load (or a conversion).
    const expected = this.#modelOf(vector, host);
    tally.model = expected;
    if (hostIds.length === 0 || !(await this.#anythingPending(expected, hostIds))) {
      tally.dropped = await this.#dropReplaced(vector, expected, hostIds);
      return tally;
    }
    const embedder = await untilAborted(this.#o.embedderOf(host), options.signal);
    if (embedder === undefined) return { ...tally, stopped: true };
    tally.loaded = true;
    tally.model = embedder.model;
    this.#models.set(host.id, { config: JSON.stringify(host.config), model: embedder.model });
    await store.vectors.ensureModel(embedder.model, embedder.dimension, this.#now());
    const chunking = { maxTokens: settings.chunkTokens, overlapTokens: settings.chunkOverlap, minTokens: Math.min(32, Math.floor(settings.chunkTokens / 4)) };
    let after = 0;
    for (;;) {
      if (options.signal?.aborted === true) return { ...tally, stopped: true };
      const page = await store.vectors.pending({
        model: embedder.model,
        hostIds,
        afterEntryId: after,
        limit: this.#o.batchEntries ?? 32,
        retryFailedBefore: this.#now() - (this.#o.retryAfterMs ?? 10 * 60_000),
      });
      if (page.length === 0) {
        tally.dropped = await this.#dropReplaced(vector, embedder.model, hostIds);
        return tally;
      }
      after = page[page.length - 1]!.entryId;
      const prepared: Prepared[] = [];
      for (const entry of page) {
        const text = await store.catalog.contentText(entry.hostId, entry.path);
        // Gone or no longer text since the page was read: the catalog's write dealt with its records.
        if (text === null) {
          tally.changed += 1;
          continue;
        }
        const chunks = vector.chunkText(text, chunking);
        prepared.push({ entry, spans: chunks.map(({ start, end }) => ({ start, end })), texts: chunks.map(({ start, end }) => text.slice(start, end)) });
      }
      const vectors = await this.#embedPage(vector, embedder, prepared, options.signal);
      for (let index = 0; index < prepared.length; index++) {
        const item = prepared[index]!;
        const outcome = vectors[index]!;
        await this.#write(vector, embedder.model, item, outcome, tally);
      }
      options.onPage?.({ indexed: tally.indexed, failed: tally.failed });
    }
  }

  /** One vector list per entry, or the error that entry's embedding failed with. */
  async #embedPage({ embedAll }: VectorPackage, embedder: Embedder, prepared: readonly Prepared[], signal: AbortSignal | undefined): Promise<unknown[]> {
    const options = signal === undefined ? {} : { signal };
    const texts = prepared.flatMap((item) => item.texts);
    try {
      const flat = await embedAll(embedder, texts, options);
      let at = 0;
      return prepared.map((item) => flat.slice(at, (at += item.texts.length)));
    } catch (error) {
      if (!isConnectorError(error) || prepared.length <= 1) return prepared.map(() => error);
      if (hasErrorCode(error, 'timeout') && signal?.aborted === true) throw error;
    }
    // One entry at a time, so one bad entry does not fail its neighbours.
    const outcomes: unknown[] = [];
    for (const item of prepared) {
      try {
        outcomes.push(await embedAll(embedder, item.texts, options));
      } catch (error) {
        if (signal?.aborted === true) throw error;
        outcomes.push(error);
      }
    }
    return outcomes;
  }

  async #write({ isZeroVector }: VectorPackage, model: string, item: Prepared, outcome: unknown, tally: { indexed: number; failed: number; changed: number; chunks: number }): Promise<void> {
    const { store } = this.#o;
    const expect = { contentKey: item.entry.contentKey, updatedAt: item.entry.updatedAt };
    try {
      if (Array.isArray(outcome)) {
        // A chunk the model found nothing in (no known word) has no vector to store; the entry is still indexed.
        const chunks = item.spans.flatMap((span, index) => (isZeroVector(outcome[index] as Float32Array) ? [] : [{ span, vector: outcome[index] as Float32Array }]));
        await store.vectors.upsert({ entryId: item.entry.entryId, model, expect, chunks, now: this.#now() });
        tally.indexed += 1;
        tally.chunks += chunks.length;
      } else {
        const error = isConnectorError(outcome) ? { code: outcome.code, message: outcome.message } : { code: 'internal', message: 'The embedder failed.' };
        await store.vectors.markFailed({ entryId: item.entry.entryId, model, expect, error, now: this.#now() });
        tally.failed += 1;
      }
    } catch (error) {
      // The entry changed or went after its text was read: its new content is pending already.
      if (hasErrorCode(error, 'precondition_failed') || hasErrorCode(error, 'not_found')) {
        tally.changed += 1;
        return;
      }
      throw error;
    }
  }

  /** The model the vector host's embedder answers: the one a start answered for its config, else the config's expected id. */
  #modelOf({ expectedModelId, parseVectorConfig }: VectorPackage, host: HostRecord): string {
    const known = this.#models.get(host.id);
    if (known !== undefined && known.config === JSON.stringify(host.config)) return known.model;
    return expectedModelId(parseVectorConfig(host.config).embedder);
  }

  /** Whether any entry of the hosts waits to be embedded for the model (new, changed, or failed and due again). */
  async #anythingPending(model: string, hostIds: readonly number[]): Promise<boolean> {
    const { vectors } = this.#o.store;
    try {
      return (await vectors.pending({ model, hostIds, limit: 1, retryFailedBefore: this.#now() - (this.#o.retryAfterMs ?? 10 * 60_000) })).length > 0;
    } catch (error) {
      if (!hasErrorCode(error, 'invalid_argument')) throw error;
      // Never registered: nothing was embedded for it, so every entry with text is pending for it.
      return (await vectors.counts(model, hostIds)).pending > 0;
    }
  }

  /**
   * The hosts are all embedded for `current` (nothing pending): every other model no vector host
   * of any network names now goes, with its vectors. Before this point a query never saw them
   * either (it names the current model); after it they would only take space. A vector host whose
   * config does not parse might name any model, so then nothing is dropped.
   */
  async #dropReplaced(vector: VectorPackage, current: string, hostIds: readonly number[]): Promise<string[]> {
    const { store } = this.#o;
    const models = await store.vectors.models();
    if (models.every((record) => record.model === current)) return [];
    if (hostIds.length > 0 && (await store.vectors.counts(current, hostIds)).pending > 0) return [];
    const named = new Set([current]);
    for (const network of await store.networks.list()) {
      for (const host of await store.hosts.list(network.slug)) {
        if (host.kind !== 'vector') continue;
        try {
          named.add(this.#modelOf(vector, host));
        } catch {
          return [];
        }
      }
    }
    const dropped: string[] = [];
    for (const { model } of models) {
      if (!named.has(model) && (await store.vectors.dropModel(model))) dropped.push(model);
    }
    return dropped;
  }

  #record(network: string, error: unknown): void {
    const code = isConnectorError(error) ? error.code : 'internal';
    const message = isConnectorError(error) ? error.message : 'Indexing failed.';
    this.errors.push({ network, code, message });
    if (this.errors.length > 20) this.errors.shift();
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }
}

/** `promise`'s value, or undefined as soon as `signal` fires (the default embedder's first start converts for seconds; a close does not wait for it). */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
