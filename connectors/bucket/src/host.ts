/**
 * The bucket kind as the skill document's host `Connector`, for the crawler and the conformance
 * trial. Paths are object keys relative to the configured prefix, exactly as stored (no
 * encoding); the listing is flat and in key order.
 *
 * Ordering. The one `ordering: true` dimension is `path`: S3's ListObjectsV2 lists in key order
 * and cannot list by time, so a scope window runs along keys. `list({ order: "newest" })` is
 * therefore refused with `unsupported` naming the argument `order` (kind `bucket`, operation
 * `list`) on every provider — the pad keeps the same contract — rather than silently returning
 * key order.
 *
 * Credentials. For S3 and R2 the connector declares what it needs in `describe().auth` and never
 * reads it: requests go through the EgressPort, whose gate side signs them (SigV4) with the
 * host's stored accessKeyId/secretAccessKey.
 *
 * Replacing. `writes.replace` is claimed only where a replace can be made safe: on an S3/R2
 * endpoint found to ignore If-Match (s3rver, some S3-compatible servers; see S3Store), `ifMatch`
 * is refused with `unsupported`, so the host declares `replace: false`. `open` probes the endpoint
 * once before the host is handed out; when that probe cannot be answered (no egress bound yet, no
 * credential) support is unknown and `replace` stays claimed — the first write with ifMatch probes
 * again and is refused, never sent unconditionally, if the endpoint turns out not to enforce it.
 */
import { InvalidArgumentError, NotFoundError, UnsupportedOperationError } from '@neuralis/package-system/contracts';
import type { AuthSpec, Connector, Description, Dimension, Entry, HostListOptions, HostListPage, HostReadOptions, Scope } from '@inseam/connector';
import { emptyStream } from './body.js';
import type { BucketConfig } from './config.js';
import { unwrapCursor, wrapCursor } from './cursor.js';
import { checkObjectPath, hostPathOfKey, keyOfHostPath, keyPrefixOfHostPrefix } from './keys.js';
import { MAX_PUT_BYTES, S3Store } from './s3-store.js';
import type { ObjectInfo, ObjectStore } from './store.js';

const MAX_PAGE = 1000;

const COMMON_DIMENSIONS: Readonly<Record<string, Dimension>> = {
  path: { type: 'path', from: 'path', ordering: true, description: 'The object key under the configured prefix, percent-encoded per segment; listings run in key order.' },
  size: { type: 'bytes', from: 'size', description: 'Object size in bytes.' },
  mtime: { type: 'datetime', from: 'mtime', description: 'When the object was last written (UTC).' },
  mime: { type: 'string', from: 'mime', description: "The MIME type the key's extension implies (application/octet-stream when unknown)." },
};

const STORAGE_CLASS: Dimension = {
  type: 'string',
  from: 'extra.storageClass',
  description: 'The S3/R2 storage class (STANDARD, STANDARD_IA, GLACIER, DEEP_ARCHIVE, …).',
};

/** OS litter nobody means to crawl. */
const JUNK_EXCLUDE = {
  exclude: {
    any: [
      { dim: 'path', op: 'in', value: ['.DS_Store', 'Thumbs.db', 'desktop.ini'] },
      { dim: 'path', op: 'glob', value: '**/.DS_Store' },
      { dim: 'path', op: 'glob', value: '**/Thumbs.db' },
      { dim: 'path', op: 'glob', value: '**/desktop.ini' },
    ],
  },
} as const;

/** Archived objects cannot be read without a restore request, so crawling them only fails. */
const ARCHIVE_EXCLUDE = { exclude: { dim: 'storageClass', op: 'in', value: ['GLACIER', 'DEEP_ARCHIVE'] } } as const;

export class BucketHost implements Connector {
  private readonly pageSize: number;

  constructor(
    private readonly store: ObjectStore,
    private readonly config: BucketConfig,
    /** Entries per list page, 1–1000 (default 1000). */
    pageSize = MAX_PAGE,
  ) {
    this.pageSize = Number.isSafeInteger(pageSize) ? Math.min(Math.max(pageSize, 1), MAX_PAGE) : MAX_PAGE;
  }

  /**
   * A host over `store`. For S3/R2 it first learns whether the endpoint enforces conditional writes
   * (one probe; never throws), so that `describe().writes.replace` is accurate from the start.
   */
  static async open(store: ObjectStore, config: BucketConfig, pageSize?: number): Promise<BucketHost> {
    if (store instanceof S3Store) await store.learnConditionalWrites();
    return new BucketHost(store, config, pageSize);
  }

  describe(): Description {
    const remote = this.config.provider !== 'pad';
    const defaultScope: Scope = { rules: remote ? [ARCHIVE_EXCLUDE, JUNK_EXCLUDE] : [JUNK_EXCLUDE] };
    return {
      kind: 'bucket',
      capabilities: ['list', 'stat', 'read', 'write', 'delete'],
      auth: this.authSpec(),
      dimensions: remote ? { ...COMMON_DIMENSIONS, storageClass: STORAGE_CLASS } : { ...COMMON_DIMENSIONS },
      listing: remote ? 'metered' : 'free',
      defaultScope,
      writes: { mimes: '*', create: true, replace: this.replacesSafely(), delete: true, ...(remote ? { maxBytes: MAX_PUT_BYTES } : {}) },
    };
  }

  /**
   * One page (up to 1000) of objects in key order. `prefix` is a string prefix of canonical
   * host paths (not necessarily a folder), e.g. `reports/20` or `a%20b/`. `since` is a value of
   * the ordering dimension, `path` (authoring.md's rule for every host): objects whose key sorts at
   * or after that path's key are kept, in the listing's own key order. The pages before it are
   * still read (S3 has no inclusive start), and may come back empty with a cursor.
   * Throws: invalid_argument (bad cursor, prefix or since), unsupported (`order`), not_found
   * (missing bucket), permission_denied, unavailable, timeout, rate_limited.
   */
  async list(options: HostListOptions = {}): Promise<HostListPage> {
    if (options.order !== undefined) {
      if (options.order !== 'newest') throw new InvalidArgumentError('order must be "newest" or left out.', { details: { argument: 'order' } });
      throw new UnsupportedOperationError('bucket', 'list', 'order', { details: { reason: 'key_ordered_listing' } });
    }
    const hostPrefix = options.prefix ?? '';
    if (typeof hostPrefix !== 'string' || hostPrefix.includes('\0')) {
      throw new InvalidArgumentError('prefix must be a string without NUL bytes.', { details: { argument: 'prefix' } });
    }
    const prefix = keyPrefixOfHostPrefix(hostPrefix);
    const since = this.sinceKeyOf(options.since);
    const listing = `host:${prefix}`;
    const cursor = options.cursor === undefined ? undefined : unwrapCursor(options.cursor, listing);
    const page = await this.store.list({ prefix, folders: false, limit: this.pageSize, ...(cursor === undefined ? {} : { cursor }) });
    const entries: Entry[] = [];
    for (const item of page.items) {
      if (item.type !== 'object') continue;
      if (since !== undefined && Buffer.compare(Buffer.from(item.info.key), since) < 0) continue;
      entries.push(this.entryOf(item.info));
    }
    return page.cursor === undefined ? { entries } : { entries, cursor: wrapCursor(listing, page.cursor) };
  }

  /** The object's entry, or null when no object has this key. Throws invalid_path. */
  async stat(path: string): Promise<Entry | null> {
    const info = await this.store.head(this.keyOf(path));
    return info === null ? null : this.entryOf(info);
  }

  /**
   * Streams the object, or `range` = [start, end) of it (end exclusive, clipped to the object; a
   * start at or past the end gives an empty stream).
   * Throws: invalid_path, invalid_argument (a malformed range), not_found, plus the store's codes.
   */
  async read(path: string, options: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const key = this.keyOf(path);
    const range = options.range;
    if (range === undefined) return (await this.store.get(key)).body;
    const [start, end] = range;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
      throw new InvalidArgumentError('range must be [start, end) with whole numbers 0 <= start <= end.', { details: { argument: 'range' } });
    }
    if (start === end) {
      if ((await this.store.head(key)) === null) throw new NotFoundError(`No object exists at "${key}".`);
      return emptyStream();
    }
    return (await this.store.get(key, { start, end })).body;
  }

  /**
   * Creates or replaces the object from a stream. `ifMatch` replaces only the version with that
   * etag (`precondition_failed` otherwise, nothing written); on an S3 endpoint that cannot enforce
   * it, `unsupported` naming `ifMatch`.
   */
  async write(path: string, body: ReadableStream<Uint8Array>, options: { readonly ifMatch?: string } = {}): Promise<Entry> {
    const info = await this.store.put({ key: this.keyOf(path), body, ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }) });
    return this.entryOf(info);
  }

  /** Removes the object. Throws not_found when there is none. */
  async delete(path: string): Promise<void> {
    const key = this.keyOf(path);
    if ((await this.store.head(key)) === null) throw new NotFoundError(`No object exists at "${key}".`);
    await this.store.delete(key);
  }

  /** False once the endpoint is known to ignore If-Match (see the header). */
  private replacesSafely(): boolean {
    return !(this.store instanceof S3Store && this.store.conditionalWrites === 'unsupported');
  }

  /** The key `since` names, as UTF-8 bytes (S3's key order); invalid_argument unless it is a host path. */
  private sinceKeyOf(since: unknown): Buffer | undefined {
    if (since === undefined) return undefined;
    try {
      if (typeof since !== 'string' || since === '') throw new Error('not a path');
      return Buffer.from(this.keyOf(since));
    } catch {
      throw new InvalidArgumentError('since must be a host path (the ordering dimension of a bucket is path), such as "logs/2024-05-01.txt".', { details: { argument: 'since' } });
    }
  }

  private keyOf(path: string): string {
    const prefix = this.config.provider === 'pad' ? '' : this.config.prefix;
    return checkObjectPath(keyOfHostPath(path), prefix);
  }

  private entryOf(info: ObjectInfo): Entry {
    const remote = this.config.provider !== 'pad';
    return {
      path: hostPathOfKey(info.key),
      size: info.size,
      mtime: info.mtime,
      etag: info.etag,
      mime: info.mime,
      // Metered hosts report the content hash so a crawler can skip unchanged bytes.
      ...(remote && info.md5 !== undefined ? { nativeHash: `md5:${info.md5}` } : {}),
      ...(remote ? { extra: { storageClass: info.storageClass ?? 'STANDARD' } } : {}),
    };
  }

  private authSpec(): AuthSpec {
    if (this.config.provider === 'pad') return { acquire: { type: 'none' }, present: [], origins: [] };
    return {
      fields: [
        { name: 'accessKeyId', label: 'Access key ID', secret: false, pattern: '^\\S+$' },
        { name: 'secretAccessKey', label: 'Secret access key', secret: true },
      ],
      instructions:
        this.config.provider === 'r2'
          ? 'Create an R2 API token with Object Read & Write on this bucket (Cloudflare dashboard → R2 → Manage API tokens) and paste its Access Key ID and Secret Access Key.'
          : 'Create an access key for an IAM user or role allowed s3:ListBucket, s3:GetObject, s3:PutObject and s3:DeleteObject on this bucket, and paste its access key ID and secret access key.',
      acquire: { type: 'static' },
      present: [
        { in: 'aws_sigv4', accessKeyId: '{{accessKeyId}}', secretAccessKey: '{{secretAccessKey}}', region: this.config.region, service: 's3' },
      ],
      origins: [this.config.origin],
    };
  }
}

