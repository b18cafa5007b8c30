/**
 * The object store under both faces of the kind (the ConnectorPort in port.ts and the host
 * Connector in host.ts). Two implementations: the pad (pad-store.ts, local disk) and S3/R2
 * (s3-store.ts, over an EgressPort). Keys here are relative to the configured prefix and always
 * addressable (see keys.ts); stores leave unaddressable keys out of listings.
 */
import type { ProbeResult } from '@neuralis/package-system/contracts';
import type { BucketProvider } from './config.js';

export interface ObjectInfo {
  readonly key: string;
  readonly size: number;
  /** Last modification, RFC 3339 UTC. */
  readonly mtime: string;
  /** The store's version tag, unquoted: an MD5 hex for the pad and for single-part S3 uploads. */
  readonly etag: string;
  /** From the key's extension on S3/R2; as written on the pad. */
  readonly mime: string;
  /** S3/R2 storage class (STANDARD when the service leaves it out). */
  readonly storageClass?: string;
  /** Hex MD5 of the content, when the store knows it (the etag is one). */
  readonly md5?: string;
}

export type ListItem =
  | { readonly type: 'object'; readonly info: ObjectInfo }
  /** A folder: at least one object's key starts with `key + '/'`. */
  | { readonly type: 'folder'; readonly key: string };

export interface ListRequest {
  /** Key prefix; with `folders`, '' or ending in '/'. */
  readonly prefix: string;
  /** Group keys below the next '/' into folders (S3's delimiter listing). */
  readonly folders: boolean;
  /** The store's own cursor from the previous page of the same request. */
  readonly cursor?: string;
  /** At most this many items (1–1000); a page may hold fewer and still have a cursor. */
  readonly limit: number;
  readonly signal?: AbortSignal;
}

export interface ListResult {
  /** In key order (UTF-8 bytes); a folder sorts as its key plus '/'. */
  readonly items: readonly ListItem[];
  readonly cursor?: string;
}

/** Bytes `[start, end)`; `end` undefined reads to the end of the object. */
export interface ByteWindow {
  readonly start: number;
  readonly end?: number;
}

export interface GetResult {
  /** The whole object's facts (size is the whole object's). */
  readonly info: ObjectInfo;
  /** The stored Content-Type, when the store keeps one. */
  readonly contentType?: string;
  /** The bytes asked for; the caller reads it to the end or cancels it. */
  readonly body: ReadableStream<Uint8Array>;
  /** The window actually returned, when one was asked for (length 0 past the end). */
  readonly range?: { readonly offset: number; readonly length: number };
}

export interface PutRequest {
  readonly key: string;
  readonly body: Uint8Array | ReadableStream<Uint8Array>;
  readonly mime?: string;
  /** Replace only the version with this etag; otherwise `precondition_failed`. */
  readonly ifMatch?: string;
  /** Create only; an existing object gives `already_exists`. */
  readonly createOnly?: boolean;
  readonly signal?: AbortSignal;
}

export interface ObjectStore {
  readonly provider: BucketProvider;
  /** Throws: invalid_argument (a stale or foreign cursor), not_found (missing bucket), permission_denied, unavailable, timeout, rate_limited. */
  list(request: ListRequest): Promise<ListResult>;
  /** The object's facts, or null when no object has this key. */
  head(key: string, signal?: AbortSignal): Promise<ObjectInfo | null>;
  /** Throws not_found when no object has this key. */
  get(key: string, window?: ByteWindow, signal?: AbortSignal): Promise<GetResult>;
  /** Throws precondition_failed, already_exists, unsupported (a condition the endpoint cannot enforce), too_large. */
  put(request: PutRequest): Promise<ObjectInfo>;
  /**
   * Removes the object if it exists; a missing object is not an error (S3 cannot tell).
   * `ifMatch` is honoured where the store can enforce it and refused with `unsupported` elsewhere.
   */
  delete(key: string, options?: { readonly ifMatch?: string; readonly signal?: AbortSignal }): Promise<void>;
  /** True when at least one object's key starts with `prefix` (which ends in '/'). */
  hasObjectsUnder(prefix: string, signal?: AbortSignal): Promise<boolean>;
  /** Cached reachability; never throws. */
  probe(): Promise<ProbeResult>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}
