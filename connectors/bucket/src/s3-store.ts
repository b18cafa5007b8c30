/**
 * S3 and R2 over an EgressPort. This module builds plain, unsigned requests — the egress side
 * signs them and holds the credential (see signing-egress.ts for the interim implementation).
 *
 * Conditional writes. `ifMatch` and `createOnly` become `If-Match` / `If-None-Match: *` on the
 * PUT. Endpoints that ignore those headers would silently write unconditionally, so the store
 * probes once — when a host is created (learnConditionalWrites), else before the first
 * conditional write — with a zero-byte PUT to a scratch key under the prefix with an `If-Match`
 * that can never hold. A service that enforces conditions answers 412 (or 404); one that does
 * not either answers 501/400 or writes the scratch object (which is deleted at once). On such an
 * endpoint every conditional write is refused with `unsupported` naming the argument — never
 * emulated with a racy HEAD-then-PUT — and the host declares `writes.replace: false`.
 */
import { randomBytes } from 'node:crypto';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  isConnectorError,
  PreconditionFailedError,
  UnsupportedOperationError,
} from '@neuralis/package-system/contracts';
import type { ConnectorError, ProbeResult } from '@neuralis/package-system/contracts';
import type { EgressMethod, EgressPort, EgressResponse } from '@inseam/connector';
import { discard, emptyStream, spoolBody, spooledBytes } from './body.js';
import type { SpooledBody } from './body.js';
import type { RemoteBucketConfig } from './config.js';
import { compareKeys, isAddressableKey } from './keys.js';
import { mimeFromKey } from './mime.js';
import { Reachability } from '@inseam/connector/reachability';
import { errorFromEgressFailure, errorFromResponse, mapS3Error, missingBucket } from './s3-errors.js';
import type { MappedError, S3ErrorContext } from './s3-errors.js';
import { childElements, childText, parseXml } from './s3-xml.js';
import type { XmlElement } from './s3-xml.js';
import type { ByteWindow, GetResult, ListItem, ListRequest, ListResult, ObjectInfo, ObjectStore, PutRequest } from './store.js';

export interface S3StoreOptions {
  readonly egress: EgressPort;
  /** Where unknown-length uploads larger than `memorySpoolBytes` are staged. Default: the OS temp dir. */
  readonly spoolDir?: string;
  /** Unknown-length uploads up to this size are staged in memory. Default 8 MiB. */
  readonly memorySpoolBytes?: number;
  /** How long a reachability outcome stays current. Default 30 s. */
  readonly probeFreshMs?: number;
}

/** The largest object one PUT may carry (S3 and R2 both stop just short of 5 GiB). */
export const MAX_PUT_BYTES = 5_000_000_000;

/** How long a "the bucket exists" answer is trusted before a HEAD 404 is double-checked. */
const BUCKET_CHECK_MS = 60_000;

/** Whether the endpoint enforces If-Match / If-None-Match on PUT, as far as its answers have shown. */
export type ConditionalSupport = 'unknown' | 'supported' | 'unsupported';

export class S3Store implements ObjectStore {
  readonly provider: 's3' | 'r2';
  private readonly reachability: Reachability;
  private conditional: ConditionalSupport = 'unknown';
  private conditionalProbe: Promise<ConditionalSupport> | undefined;
  private bucketConfirmedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly config: RemoteBucketConfig,
    private readonly options: S3StoreOptions,
  ) {
    this.provider = config.provider;
    this.reachability = new Reachability(() => this.checkBucket(), {
      freshMs: options.probeFreshMs ?? 30_000,
      firstCheckTimeoutMs: 5_000,
      reason: 'store_unreachable',
    });
  }

  async list(request: ListRequest): Promise<ListResult> {
    const query: [string, string][] = [['list-type', '2'], ['max-keys', String(request.limit)]];
    const fullPrefix = this.config.prefix + request.prefix;
    if (fullPrefix !== '') query.push(['prefix', fullPrefix]);
    if (request.folders) query.push(['delimiter', '/']);
    if (request.cursor !== undefined) query.push(['continuation-token', request.cursor]);
    const response = await this.send('GET', this.bucketUrl(query), {}, undefined, request.signal);
    if (response.status !== 200) {
      const mapped = await errorFromResponse(response, this.context('list objects'));
      if (request.cursor !== undefined && mapped.error.details['s3Code'] === 'InvalidArgument') {
        throw new InvalidArgumentError('The listing cursor is no longer valid; start the listing again.', { details: { argument: 'cursor' } });
      }
      throw this.fail(mapped);
    }
    const root = parseXml(await new Response(response.body).text());
    const items: ListItem[] = [];
    for (const contents of childElements(root, 'Contents')) {
      const info = this.infoFromListing(contents);
      if (info !== undefined) items.push({ type: 'object', info });
    }
    for (const common of childElements(root, 'CommonPrefixes')) {
      const key = this.relativeKey(childText(common, 'Prefix') ?? '');
      if (key === undefined || !key.endsWith('/')) continue;
      const folder = key.slice(0, -1);
      if (isAddressableKey(folder)) items.push({ type: 'folder', key: folder });
    }
    items.sort((a, b) => compareKeys(itemSortKey(a), itemSortKey(b)));
    const truncated = childText(root, 'IsTruncated')?.trim() === 'true';
    const next = childText(root, 'NextContinuationToken');
    return truncated && next !== undefined && next !== '' ? { items, cursor: next } : { items };
  }

  async head(key: string, signal?: AbortSignal): Promise<ObjectInfo | null> {
    const context = this.context('read', key);
    const response = await this.send('HEAD', this.objectUrl(key), {}, undefined, signal);
    if (response.status === 200) return this.infoFromHeaders(key, response.headers);
    await discard(response.body);
    if (response.status === 404) {
      // A HEAD answer has no body: a missing key and a missing bucket look alike.
      await this.confirmBucket(signal);
      return null;
    }
    throw this.fail(mapS3Error(response.status, undefined, response.headers, context));
  }

  async get(key: string, window?: ByteWindow, signal?: AbortSignal): Promise<GetResult> {
    const context = this.context('read', key);
    const headers: Record<string, string> = {};
    if (window !== undefined) headers['range'] = `bytes=${window.start}-${window.end === undefined ? '' : window.end - 1}`;
    const response = await this.send('GET', this.objectUrl(key), headers, undefined, signal);
    if (response.status === 416 && window !== undefined) {
      await discard(response.body);
      const info = await this.head(key, signal);
      if (info === null) throw this.fail(mapS3Error(404, 'NoSuchKey', {}, context));
      return { info, body: emptyStream(), range: { offset: window.start, length: 0 } };
    }
    if (response.status !== 200 && response.status !== 206) {
      if (response.status === 404) {
        const mapped = await errorFromResponse(response, context);
        // Ask about the bucket only when the answer did not already say which is missing.
        if (mapped.error.details['s3Code'] === null) await this.confirmBucket(signal);
        throw this.fail(mapped.error.details['s3Code'] === null ? mapS3Error(404, 'NoSuchKey', {}, context) : mapped);
      }
      throw this.fail(await errorFromResponse(response, context));
    }
    const info = this.infoFromHeaders(key, response.headers, response.status === 206);
    const contentType = response.headers['content-type'];
    const body = response.body ?? emptyStream();
    if (window === undefined) return { info, body, ...(contentType === undefined ? {} : { contentType }) };
    const asked = Math.max(0, (window.end ?? info.size) - window.start);
    if (response.status === 206) {
      if (window.start >= info.size) {
        // A 206 for bytes past the end (s3rver answers ranges on empty objects so) has nothing to send.
        await discard(body);
        return { info, body: emptyStream(), range: { offset: window.start, length: 0 }, ...(contentType === undefined ? {} : { contentType }) };
      }
      const length = Math.min(asked, info.size - window.start);
      return { info, body, range: { offset: window.start, length }, ...(contentType === undefined ? {} : { contentType }) };
    }
    // The service ignored the Range header and sent everything: cut the window out ourselves.
    const length = Math.min(asked, Math.max(0, info.size - window.start));
    return {
      info,
      body: sliceStream(body, window.start, length),
      range: { offset: window.start, length },
      ...(contentType === undefined ? {} : { contentType }),
    };
  }

  async put(request: PutRequest): Promise<ObjectInfo> {
    const { key } = request;
    const context = this.context('write', key);
    if (request.ifMatch !== undefined || request.createOnly === true) {
      await this.requireConditionalWrites(request.ifMatch !== undefined ? 'ifMatch' : 'createOnly', request.signal);
    }
    const spooled: SpooledBody =
      request.body instanceof Uint8Array
        ? spooledBytes(request.body, MAX_PUT_BYTES)
        : await spoolBody(request.body, {
            memoryLimit: this.options.memorySpoolBytes ?? 8 * 1024 * 1024,
            maxBytes: MAX_PUT_BYTES,
            ...(this.options.spoolDir === undefined ? {} : { spoolDir: this.options.spoolDir }),
          });
    try {
      const headers: Record<string, string> = {
        'content-length': String(spooled.size),
        'content-type': request.mime ?? mimeFromKey(key),
        'content-md5': spooled.md5.toString('base64'),
      };
      if (request.ifMatch !== undefined) headers['if-match'] = quoteEtag(request.ifMatch);
      if (request.createOnly === true) headers['if-none-match'] = '*';
      const body = spooled.kind === 'memory' ? spooled.bytes : await spooled.open();
      let response: EgressResponse;
      try {
        response = await this.send('PUT', this.objectUrl(key), headers, body, request.signal);
      } catch (error) {
        // Close the staged file's handle when the request never took the stream.
        if (body instanceof ReadableStream && !body.locked) await body.cancel().catch(() => {});
        throw error;
      }
      if (response.status !== 200) throw this.fail(await this.putFailure(response, request, context));
      await discard(response.body);
      const etag = unquoteEtag(response.headers['etag'] ?? '');
      const written = await this.head(key, request.signal);
      if (written !== null && written.etag === etag) return written;
      // Someone replaced it already; report what we wrote.
      return {
        key,
        size: spooled.size,
        mtime: new Date().toISOString(),
        etag,
        mime: mimeFromKey(key),
        storageClass: 'STANDARD',
        ...(isMd5(etag) ? { md5: etag.toLowerCase() } : {}),
      };
    } finally {
      await spooled.dispose();
    }
  }

  async delete(key: string, options: { readonly ifMatch?: string; readonly signal?: AbortSignal } = {}): Promise<void> {
    if (options.ifMatch !== undefined) throw new UnsupportedOperationError('bucket', 'delete', 'ifMatch');
    const context = this.context('delete', key);
    const response = await this.send('DELETE', this.objectUrl(key), {}, undefined, options.signal);
    if (response.status !== 204 && response.status !== 200) throw this.fail(await errorFromResponse(response, context));
    await discard(response.body);
  }

  async hasObjectsUnder(prefix: string, signal?: AbortSignal): Promise<boolean> {
    const query: [string, string][] = [['list-type', '2'], ['max-keys', '1'], ['prefix', this.config.prefix + prefix]];
    const response = await this.send('GET', this.bucketUrl(query), {}, undefined, signal);
    if (response.status !== 200) throw this.fail(await errorFromResponse(response, this.context('list objects')));
    const root = parseXml(await new Response(response.body).text());
    return childElements(root, 'Contents').length > 0 || childElements(root, 'CommonPrefixes').length > 0;
  }

  probe(): Promise<ProbeResult> {
    return this.reachability.probe();
  }

  async close(): Promise<void> {}

  private async putFailure(response: EgressResponse, request: PutRequest, context: S3ErrorContext): Promise<MappedError> {
    const mapped = await errorFromResponse(response, context);
    const s3Code = mapped.error.details['s3Code'];
    if (response.status === 501 || s3Code === 'NotImplemented') {
      this.conditional = 'unsupported';
      const argument = request.ifMatch !== undefined ? 'ifMatch' : request.createOnly === true ? 'createOnly' : undefined;
      return { error: new UnsupportedOperationError('bucket', 'write', argument, { details: { reason: 'endpoint_not_implemented' } }), storeLevel: false };
    }
    if (mapped.error.code === 'precondition_failed' && request.createOnly === true) {
      return { error: new AlreadyExistsError(`An object already exists at "${request.key}"; nothing was written.`), storeLevel: false };
    }
    if (mapped.error.code === 'not_found' && s3Code === 'NoSuchKey' && request.ifMatch !== undefined) {
      return {
        error: new PreconditionFailedError(`No object exists at "${request.key}", so ifMatch cannot hold; nothing was written.`),
        storeLevel: false,
      };
    }
    return mapped;
  }

  /** What is known of the endpoint's conditional writes: `unknown` until a probe has been answered. */
  get conditionalWrites(): ConditionalSupport {
    return this.conditional;
  }

  /**
   * Runs the conditional-write probe now if it has not been answered yet (createBucketHost does,
   * so the host's description can say whether it replaces safely). Never throws: when the probe
   * cannot be sent or answered (no egress bound yet, no credential, endpoint down), support stays
   * `unknown` and the first conditional write probes again.
   */
  async learnConditionalWrites(): Promise<ConditionalSupport> {
    try {
      await this.settleConditionalWrites();
    } catch {
      // Left unknown: see above.
    }
    return this.conditional;
  }

  private async settleConditionalWrites(signal?: AbortSignal): Promise<void> {
    if (this.conditional !== 'unknown') return;
    this.conditionalProbe ??= this.probeConditionalWrites(signal).finally(() => {
      this.conditionalProbe = undefined;
    });
    this.conditional = await this.conditionalProbe;
  }

  /** Resolves when conditional writes are enforced here; throws `unsupported` naming `argument` when not. */
  private async requireConditionalWrites(argument: 'ifMatch' | 'createOnly', signal?: AbortSignal): Promise<void> {
    await this.settleConditionalWrites(signal);
    if (this.conditional === 'unsupported') {
      throw new UnsupportedOperationError('bucket', 'write', argument, {
        details: { reason: 'endpoint_ignores_conditional_writes' },
      });
    }
  }

  private async probeConditionalWrites(signal?: AbortSignal): Promise<ConditionalSupport> {
    const scratch = `.inseam-conditional-probe-${randomBytes(8).toString('hex')}`;
    const context = this.context('write', scratch);
    const headers = { 'content-length': '0', 'if-match': '"00000000000000000000000000000000"' };
    const response = await this.send('PUT', this.objectUrl(scratch), headers, new Uint8Array(0), signal);
    if (response.status === 412) {
      await discard(response.body);
      return 'supported';
    }
    if (response.status === 200) {
      await discard(response.body);
      await this.delete(scratch, signal === undefined ? {} : { signal });
      return 'unsupported';
    }
    const mapped = await errorFromResponse(response, context);
    const s3Code = mapped.error.details['s3Code'];
    // A service that checked the condition against the (missing) object answers NoSuchKey.
    if (s3Code === 'NoSuchKey') return 'supported';
    if (response.status === 501 || s3Code === 'NotImplemented' || s3Code === 'InvalidArgument' || s3Code === 'InvalidRequest') {
      return 'unsupported';
    }
    throw this.fail(mapped);
  }

  /** The reachability check: the bucket answers a HEAD. */
  private async checkBucket(signal?: AbortSignal): Promise<void> {
    const context = this.context('reach the bucket');
    const response = await this.send('HEAD', this.bucketUrl([]), {}, undefined, signal);
    await discard(response.body);
    if (response.status === 200) {
      this.bucketConfirmedAt = Date.now();
      return;
    }
    if (response.status === 404) {
      this.reachability.unreachable('not_found');
      throw missingBucket(this.config.bucket);
    }
    throw this.fail(mapS3Error(response.status, undefined, response.headers, context));
  }

  /** After a bodiless 404: throws the missing-bucket error when it is the bucket that is missing. */
  private async confirmBucket(signal?: AbortSignal): Promise<void> {
    if (Date.now() - this.bucketConfirmedAt < BUCKET_CHECK_MS) return;
    await this.checkBucket(signal);
  }

  private async send(
    method: EgressMethod,
    url: string,
    headers: Record<string, string>,
    body: Uint8Array | ReadableStream<Uint8Array> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<EgressResponse> {
    let response: EgressResponse;
    try {
      response = await this.options.egress.fetch({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (isConnectorError(error)) throw error;
      throw this.fail(errorFromEgressFailure(error));
    }
    this.reachability.reachable();
    return response;
  }

  /** Records a store-level failure for the probe and returns the error to throw. */
  private fail(mapped: MappedError): ConnectorError {
    if (mapped.storeLevel) this.reachability.unreachable(mapped.error.code);
    return mapped.error;
  }

  private context(operation: string, key?: string): S3ErrorContext {
    return key === undefined ? { operation, bucket: this.config.bucket } : { operation, bucket: this.config.bucket, key };
  }

  private bucketUrl(query: readonly (readonly [string, string])[]): string {
    const path = this.config.pathStyle ? `${this.config.basePath}/${encodeStrict(this.config.bucket)}` : `${this.config.basePath}/`;
    const search = query.map(([name, value]) => `${encodeStrict(name)}=${encodeStrict(value)}`).join('&');
    return `${this.config.origin}${path}${search === '' ? '' : `?${search}`}`;
  }

  private objectUrl(key: string): string {
    const encodedKey = (this.config.prefix + key).split('/').map(encodeStrict).join('/');
    const bucketPart = this.config.pathStyle ? `/${encodeStrict(this.config.bucket)}` : '';
    return `${this.config.origin}${this.config.basePath}${bucketPart}/${encodedKey}`;
  }

  private relativeKey(fullKey: string): string | undefined {
    return fullKey.startsWith(this.config.prefix) ? fullKey.slice(this.config.prefix.length) : undefined;
  }

  private infoFromListing(contents: XmlElement): ObjectInfo | undefined {
    const key = this.relativeKey(childText(contents, 'Key') ?? '');
    if (key === undefined || !isAddressableKey(key)) return undefined;
    const etag = unquoteEtag(childText(contents, 'ETag') ?? '');
    const size = Number(childText(contents, 'Size') ?? '0');
    return {
      key,
      size: Number.isSafeInteger(size) && size >= 0 ? size : 0,
      mtime: isoTime(childText(contents, 'LastModified')),
      etag,
      mime: mimeFromKey(key),
      storageClass: childText(contents, 'StorageClass')?.trim() || 'STANDARD',
      ...(isMd5(etag) ? { md5: etag.toLowerCase() } : {}),
    };
  }

  private infoFromHeaders(key: string, headers: Readonly<Record<string, string>>, partial = false): ObjectInfo {
    const etag = unquoteEtag(headers['etag'] ?? '');
    const size = partial ? totalFromContentRange(headers['content-range']) : Number(headers['content-length'] ?? '0');
    // SSE-KMS and SSE-C objects have etags that are not the content's MD5.
    const encrypted = headers['x-amz-server-side-encryption'] === 'aws:kms' || headers['x-amz-server-side-encryption-customer-algorithm'] !== undefined;
    return {
      key,
      size: Number.isSafeInteger(size) && size >= 0 ? size : 0,
      mtime: isoTime(headers['last-modified']),
      etag,
      mime: mimeFromKey(key),
      storageClass: headers['x-amz-storage-class'] ?? 'STANDARD',
      ...(isMd5(etag) && !encrypted ? { md5: etag.toLowerCase() } : {}),
    };
  }
}

/** Percent-encodes everything but RFC 3986 unreserved characters (S3's URI encoding). */
export function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function itemSortKey(item: ListItem): string {
  return item.type === 'object' ? item.info.key : `${item.key}/`;
}

function quoteEtag(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}

function unquoteEtag(etag: string): string {
  const trimmed = etag.trim().replace(/^W\//, '');
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/** A single-part upload's etag is the content MD5; a multipart one ends in `-<parts>`. */
function isMd5(etag: string): boolean {
  return /^[0-9a-fA-F]{32}$/.test(etag);
}

function isoTime(value: string | undefined): string {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return new Date(Number.isNaN(time) ? 0 : time).toISOString();
}

function totalFromContentRange(value: string | undefined): number {
  const match = value === undefined ? null : /\/(\d+)\s*$/.exec(value);
  return match === null ? Number.NaN : Number(match[1]);
}

/** Skips `skip` bytes of `source` and passes on the next `length`, then cancels the rest. */
function sliceStream(source: ReadableStream<Uint8Array>, skip: number, length: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let toSkip = skip;
  let remaining = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (remaining > 0) {
        const { done, value } = await reader.read();
        if (done) break;
        let chunk = value;
        if (toSkip > 0) {
          const dropped = Math.min(toSkip, chunk.byteLength);
          toSkip -= dropped;
          chunk = chunk.subarray(dropped);
        }
        if (chunk.byteLength === 0) continue;
        const kept = chunk.subarray(0, Math.min(remaining, chunk.byteLength));
        remaining -= kept.byteLength;
        controller.enqueue(kept);
        return;
      }
      await reader.cancel().catch(() => {});
      controller.close();
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
    },
  });
}
