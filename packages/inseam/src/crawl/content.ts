/**
 * Reading one entry's content for the index: never for a type that cannot be indexed (the type
 * alone says so: catalog/text.ts), otherwise once, streamed, stopped as soon as it passes the
 * limit or its first chunk shows a NUL, bounded in time, and reduced to UTF-8 text or a reason why there is none. A document (PDF,
 * DOCX, XLSX, PPTX, HTML) is indexed by the text an extraction worker finds in it; one that
 * cannot be read counts as an error of the run and is kept as `binary`, not retried until it
 * changes.
 */
import type { Connector, Entry } from '@inseam/connector';
import { decodeText, isBinaryMime, sniffedBinary } from '../catalog/index.js';
import { documentKind, sharedExtractor, type DocumentExtractor, type DocumentKind } from '../extract/index.js';
import type { ContentUpdate } from '../store/index.js';

export interface ContentReadOptions {
  /** Content larger than this is not indexed (`too_large`). */
  readonly maxBytes: number;
  /** The whole read (open and every chunk) must finish within this time. */
  readonly timeoutMs: number;
  /** The validator to record with the content. */
  readonly key: string | null;
  /** Where documents get their text. Default the process's shared pool. */
  readonly extractor?: DocumentExtractor;
}

export interface ContentRead {
  readonly update: ContentUpdate;
  /** True when the connector failed or broke the interface (the run counts an error). */
  readonly failed: boolean;
}

/**
 * What a built-in connector may offer beside the host interface: the text a search should match
 * for an entry whose bytes are not that text (a mail message: subject, parties, body as text,
 * attachment names, where the raw bytes are MIME). Null: index the bytes as usual. Sandboxed
 * connectors cannot offer it; their adapters expose the host interface only.
 */
export interface IndexTextSource {
  searchText(path: string, maxBytes: number): Promise<string | null>;
}

function indexTextSource(connector: Connector): IndexTextSource | undefined {
  const candidate = connector as Connector & Partial<IndexTextSource>;
  return typeof candidate.searchText === 'function' ? (candidate as IndexTextSource) : undefined;
}

/**
 * The content state an entry's listing alone settles, without reading anything: `binary` for a
 * type no worker can turn into text, `too_large` for a declared size over the limit; undefined
 * when only its bytes can tell. Synchronous, so a batch of such entries costs no async hop each.
 */
export function contentFromListing(entry: Entry, maxBytes: number, key: string | null): ContentUpdate | undefined {
  if (isBinaryMime(entry.mime) && documentKind(entry.mime, entry.path) === null) return { state: 'binary', key };
  if (entry.size !== undefined && entry.size > maxBytes) return { state: 'too_large', key };
  return undefined;
}

/** Never rejects: a failed read becomes `{ state: 'error' }`. */
export async function readContent(connector: Connector, entry: Entry, options: ContentReadOptions): Promise<ContentRead> {
  const { key } = options;
  const settled = contentFromListing(entry, options.maxBytes, key);
  if (settled !== undefined) return { update: settled, failed: false };
  const kind = documentKind(entry.mime, entry.path);
  const deadline = new Deadline(options.timeoutMs);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    const source = indexTextSource(connector);
    const offered = source === undefined ? null : await deadline.race(source.searchText(entry.path, options.maxBytes));
    if (offered !== null) {
      const bytes = Buffer.byteLength(offered);
      if (bytes > options.maxBytes) return { update: { state: 'too_large', key }, failed: false };
      return { update: { state: 'indexed', key, text: offered, bytes }, failed: false };
    }
    const stream = await deadline.race(connector.read(entry.path));
    if (typeof (stream as Partial<ReadableStream<Uint8Array>> | null)?.getReader !== 'function') return { update: { state: 'error', key: null }, failed: true };
    reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await deadline.race(reader.read());
      if (done) break;
      if (!(value instanceof Uint8Array)) {
        void reader.cancel().catch(() => undefined);
        return { update: { state: 'error', key: null }, failed: true };
      }
      total += value.byteLength;
      if (total > options.maxBytes) {
        void reader.cancel().catch(() => undefined);
        return { update: { state: 'too_large', key }, failed: false };
      }
      // A file of unknown type is read once, and only as far as the NUL that shows it is not
      // text: the first chunk (a whole small file, the first 64 KiB of a large one) settles it.
      if (kind === null && chunks.length === 0 && sniffedBinary(value)) {
        void reader.cancel().catch(() => undefined);
        return { update: { state: 'binary', key }, failed: false };
      }
      chunks.push(value);
    }
    if (kind !== null) return await documentContent(kind, concat(chunks, total), options.extractor ?? sharedExtractor(), key, deadline);
    const text = decodeText(concat(chunks, total));
    return { update: text === null ? { state: 'binary', key } : { state: 'indexed', key, text, bytes: total }, failed: false };
  } catch {
    if (reader !== undefined) void reader.cancel().catch(() => undefined);
    return { update: { state: 'error', key: null }, failed: true };
  } finally {
    deadline.clear();
  }
}

async function documentContent(kind: DocumentKind, bytes: Uint8Array, extractor: DocumentExtractor, key: string | null, deadline: Deadline): Promise<ContentRead> {
  const stop = new AbortController();
  try {
    const { text } = await deadline.race(extractor.extract(kind, bytes, { signal: stop.signal }));
    return { update: { state: 'indexed', key, text, bytes: bytes.byteLength }, failed: false };
  } catch (error) {
    // Out of time may pass (a busy machine); a document that cannot be read stays so until it changes.
    const code = (error as { code?: unknown }).code;
    if (code === 'document_unreadable' || code === 'too_large') return { update: { state: 'binary', key }, failed: true };
    throw error;
  } finally {
    stop.abort();
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

class Deadline {
  readonly #expired: Promise<never>;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.#expired = new Promise<never>((_, reject) => {
      this.#timer = setTimeout(() => reject(new Error('content read timed out')), ms);
    });
    // Nobody may be racing when it fires; that is not an unhandled rejection.
    this.#expired.catch(() => undefined);
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#expired]);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}
