/**
 * Synthetic hosts behind the host `Connector` interface, for crawler tests.
 *
 * - `MemoryHost`: a mutable host held in a Map. Its cursor is the last key listed (not an
 *   offset), as real APIs page, so entries inserted before or after the cursor mid-crawl behave as
 *   they would on a real host. It can order newest first, honour `since` (inclusive), watch, take
 *   webhooks, fail on cue, and run a hook before each page so a test can change it mid-crawl. It
 *   offers the names-only listing (`names()`) the folder kinds offer, so syncs diff it.
 * - `SyntheticHost`: a large, immutable host generated page by page from the entry index, so a
 *   million entries cost no memory in the test itself.
 */
import { validateDescription, type ChangeEvent, type Connector, type Description, type Entry, type HostListOptions, type HostListPage, type HostReadOptions } from '@inseam/connector';

const encoder = new TextEncoder();

export const memoryDescription: Description = validateDescription({
  kind: 'memory',
  capabilities: ['list', 'stat', 'read', 'watch'],
  auth: { acquire: { type: 'none' }, present: [], origins: ['https://memory.example'] },
  dimensions: {
    path: { type: 'path', from: 'path', description: 'The path.' },
    modified: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last modified.' },
    size: { type: 'bytes', from: 'size', description: 'Size in bytes.' },
    folder: { type: 'string', from: 'extra.folder', description: 'The top folder.' },
  },
  listing: 'free',
});

export interface StoredObject {
  readonly entry: Entry;
  readonly content: Uint8Array;
}

/** An entry and its bytes; size, etag and the folder in extra follow from the content. */
export function object(path: string, text: string | Uint8Array, options: { mtime?: string; nativeId?: string; mime?: string; etag?: string; envelope?: Entry['envelope'] } = {}): StoredObject {
  const content = typeof text === 'string' ? encoder.encode(text) : text;
  const entry: Entry = {
    path,
    size: content.byteLength,
    mtime: options.mtime ?? '2024-01-01T00:00:00.000Z',
    etag: options.etag ?? `"${hash(content)}"`,
    ...(options.mime === undefined ? {} : { mime: options.mime }),
    ...(options.nativeId === undefined ? {} : { nativeId: options.nativeId }),
    ...(options.envelope === undefined ? {} : { envelope: options.envelope }),
    extra: { folder: path.split('/')[0]! },
  };
  return { entry, content };
}

function hash(bytes: Uint8Array): string {
  let h = 2166136261;
  for (const byte of bytes) h = Math.imul(h ^ byte, 16777619) >>> 0;
  return h.toString(16);
}

export interface MemoryHostOptions {
  readonly pageSize?: number;
  /** Honour `order: "newest"` (by mtime, then path); otherwise list by path whatever is asked. */
  readonly ordered?: boolean;
  /** How `since` is read: mtime >= since, mtime > since, or not at all. */
  readonly since?: 'inclusive' | 'exclusive' | 'ignored';
  /** Bytes per chunk of a read stream. */
  readonly chunkSize?: number;
}

export class MemoryHost implements Connector {
  readonly objects = new Map<string, StoredObject>();
  readonly calls = { list: [] as HostListOptions[], read: [] as string[], stat: [] as string[], names: [] as (string | undefined)[] };
  /** Runs before each page is answered, with the page's number (0-based) for this listing. */
  beforePage: ((page: number, options: HostListOptions) => void | Promise<void>) | undefined;
  /** Errors to throw from the next list calls, in order. */
  readonly listFailures: unknown[] = [];
  readonly #options: Required<MemoryHostOptions>;
  readonly #watchers = new Set<(event: ChangeEvent) => void>();
  #pages = 0;

  constructor(objects: readonly StoredObject[] = [], options: MemoryHostOptions = {}) {
    this.#options = { pageSize: 10, ordered: true, since: 'inclusive', chunkSize: 4096, ...options };
    for (const item of objects) this.objects.set(item.entry.path, item);
  }

  describe(): Description {
    return memoryDescription;
  }

  put(item: StoredObject, notify = false): void {
    this.objects.set(item.entry.path, item);
    if (notify) this.emit({ type: 'put', path: item.entry.path, entry: item.entry });
  }

  remove(path: string, notify = false): void {
    this.objects.delete(path);
    if (notify) this.emit({ type: 'delete', path });
  }

  /** Renames an object, keeping its nativeId and bytes. */
  rename(from: string, to: string, notify = false): void {
    const item = this.objects.get(from)!;
    this.objects.delete(from);
    const entry: Entry = { ...item.entry, path: to, extra: { folder: to.split('/')[0]! } };
    this.objects.set(to, { entry, content: item.content });
    if (notify) this.emit({ type: 'move', path: to, from, entry });
  }

  emit(event: ChangeEvent): void {
    for (const watcher of this.#watchers) watcher(event);
  }

  get watching(): number {
    return this.#watchers.size;
  }

  async list(options: HostListOptions): Promise<HostListPage> {
    this.calls.list.push(options);
    const failure = this.listFailures.shift();
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- tests queue whatever value a misbehaving connector might throw
    if (failure !== undefined) throw failure;
    if (options.cursor === undefined) this.#pages = 0;
    await this.beforePage?.(this.#pages++, options);
    const newest = this.#options.ordered && options.order === 'newest';
    let items = [...this.objects.values()].map((item) => item.entry);
    const since = options.since === undefined ? undefined : Date.parse(options.since);
    if (since !== undefined && this.#options.since === 'inclusive') items = items.filter((entry) => Date.parse(entry.mtime!) >= since);
    if (since !== undefined && this.#options.since === 'exclusive') items = items.filter((entry) => Date.parse(entry.mtime!) > since);
    const key = (entry: Entry): string => (newest ? `${invert(entry.mtime!)}\u0000${entry.path}` : entry.path);
    items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const after = options.cursor === undefined ? undefined : Buffer.from(options.cursor, 'base64url').toString('utf8');
    const start = after === undefined ? 0 : items.findIndex((entry) => key(entry) > after);
    const page = start < 0 ? [] : items.slice(start, start + this.#options.pageSize);
    const more = start >= 0 && start + this.#options.pageSize < items.length;
    const last = page[page.length - 1];
    return more && last !== undefined ? { entries: page, cursor: Buffer.from(key(last)).toString('base64url') } : { entries: page };
  }

  async stat(path: string): Promise<Entry | null> {
    this.calls.stat.push(path);
    return this.objects.get(path)?.entry ?? null;
  }

  /** The names-only listing the crawler's sync diff uses (crawl/target.ts HostNames): paths in code-unit order. */
  async names(options: { readonly cursor?: string } = {}): Promise<{ paths: string[]; cursor?: string }> {
    this.calls.names.push(options.cursor);
    const paths = [...this.objects.keys()].sort();
    const start = options.cursor === undefined ? 0 : paths.findIndex((path) => path > options.cursor!);
    const page = start < 0 ? [] : paths.slice(start, start + this.#options.pageSize);
    return start >= 0 && start + this.#options.pageSize < paths.length ? { paths: page, cursor: page[page.length - 1]! } : { paths: page };
  }

  async read(path: string, options: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    this.calls.read.push(path);
    const item = this.objects.get(path);
    if (item === undefined) throw new Error(`no object at ${path}`);
    const [start, end] = options.range ?? [0, item.content.byteLength];
    const bytes = item.content.subarray(start, end);
    const chunk = this.#options.chunkSize;
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) controller.close();
        else {
          controller.enqueue(bytes.slice(offset, offset + chunk));
          offset += chunk;
        }
      },
    });
  }

  async watch(emit: (event: ChangeEvent) => void): Promise<() => void> {
    this.#watchers.add(emit);
    return () => this.#watchers.delete(emit);
  }

  async webhook(request: Request): Promise<ChangeEvent[]> {
    const body = (await request.json()) as { events: ChangeEvent[] };
    return body.events;
  }
}

/** Sorts later times first under a plain string sort. */
function invert(mtime: string): string {
  return String(8_000_000_000_000 - Date.parse(mtime)).padStart(13, '0');
}

export interface SyntheticHostOptions {
  readonly count: number;
  readonly pageSize?: number;
  /** Delay before each page (ms), so a crawl takes long enough to be interrupted. */
  readonly pageDelayMs?: number;
  /** Every n-th entry is recent (modified in July 2024, the rest in March). Default 10. */
  readonly recentEvery?: number;
}

/**
 * Entry `i` is `d{i/100}/f{i}.txt` (or `.bin` every 7th, `.big` every 50th) with a deterministic
 * mtime, etag and nativeId; every `recentEvery`-th is "recent" (inside a window from 2024-06-01).
 */
export class SyntheticHost implements Connector {
  readonly #count: number;
  readonly #pageSize: number;
  readonly #pageDelayMs: number;
  readonly #recentEvery: number;
  #sorted: string[] | undefined;

  constructor(options: SyntheticHostOptions) {
    this.#count = options.count;
    this.#pageSize = options.pageSize ?? 1000;
    this.#pageDelayMs = options.pageDelayMs ?? 0;
    this.#recentEvery = options.recentEvery ?? 10;
  }

  describe(): Description {
    return memoryDescription;
  }

  static entry(i: number, recentEvery = 10): Entry {
    const kind = i % 50 === 0 ? 'big' : i % 7 === 0 ? 'bin' : 'txt';
    const month = i % recentEvery === 0 ? '07' : '03';
    const day = 1 + (i % 28);
    return {
      path: `d${Math.floor(i / 100)}/f${i}.${kind}`,
      size: SyntheticHost.bytes(i).byteLength,
      mtime: `2024-${month}-${String(day).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00.000Z`,
      etag: `"e${i}"`,
      nativeId: `n${i}`,
      ...(kind === 'bin' ? { mime: 'application/octet-stream' } : {}),
      extra: { folder: `d${Math.floor(i / 100)}` },
    };
  }

  static bytes(i: number): Uint8Array {
    if (i % 50 === 0) return encoder.encode(`big ${i} `.repeat(400));
    if (i % 7 === 0) return Uint8Array.from([0, 1, 2, 3, i & 0xff, 0, 255]);
    return encoder.encode(`document ${i} about topic${i % 13} and word${i % 101}\n`);
  }

  async list(options: HostListOptions): Promise<HostListPage> {
    if (this.#pageDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#pageDelayMs));
    const start = options.cursor === undefined ? 0 : Number(options.cursor);
    const end = Math.min(this.#count, start + this.#pageSize);
    const entries: Entry[] = [];
    for (let i = start; i < end; i++) entries.push(SyntheticHost.entry(i, this.#recentEvery));
    return end < this.#count ? { entries, cursor: String(end) } : { entries };
  }

  /** The names-only listing (crawl/target.ts HostNames), sorted once on first use. */
  async names(options: { readonly cursor?: string } = {}): Promise<{ paths: string[]; cursor?: string }> {
    this.#sorted ??= Array.from({ length: this.#count }, (_, i) => SyntheticHost.entry(i, this.#recentEvery).path).sort();
    const start = options.cursor === undefined ? 0 : Number(options.cursor);
    const end = Math.min(this.#count, start + 5000);
    const paths = this.#sorted.slice(start, end);
    return end < this.#count ? { paths, cursor: String(end) } : { paths };
  }

  async stat(path: string): Promise<Entry | null> {
    const i = Number(/f(\d+)\./.exec(path)?.[1] ?? NaN);
    return Number.isInteger(i) && i < this.#count ? SyntheticHost.entry(i, this.#recentEvery) : null;
  }

  async read(path: string): Promise<ReadableStream<Uint8Array>> {
    const i = Number(/f(\d+)\./.exec(path)?.[1] ?? NaN);
    const bytes = SyntheticHost.bytes(i);
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
  }
}
