/**
 * ConnectorPort v4: the runtime contract of a trusted, in-process source connector.
 *
 * Addresses. Every `uri` argument is an address on the bound source, `{source}://{path}`, where
 * `{path}` is the connector's canonical, percent-encoded-per-segment path ('' for the root). A URI
 * whose scheme is not `this.source`, or that contains `.`/`..` segments or a NUL byte, is refused
 * with `invalid_uri` before anything is touched.
 *
 * Errors. Methods throw only `ConnectorError`s (see errors.ts) for expected failures; the codes
 * each method may throw are listed on it. `unavailable` and `timeout` may come from any method
 * that reaches a backing store. Messages never contain a secret or a host path.
 */
import type { ConnectorCapability } from './capabilities.js';
import type { ExecContext, ExecRequest, ExecResult, DetachedExecFacet } from './exec.js';
import type { ConnectorPortVersion } from './version.js';
import type { ErrorCode } from './errors.js';

export type EntryType = 'file' | 'directory';

/** One object on a source, as list, walk and stat report it. */
export interface ConnectorEntry {
  /** Absolute address of the object, `{source}://{path}`; directories have no trailing slash. */
  readonly uri: string;
  /** Last path segment, decoded. The root's name is ''. */
  readonly name: string;
  readonly type: EntryType;
  /** Size in bytes; absent for directories and when the store does not know it. */
  readonly size?: number;
  /** Last modification, RFC 3339 UTC. */
  readonly mtime?: string;
  /** Opaque version tag; equal etags mean equal content. Used by write's `ifMatch`. */
  readonly etag?: string;
  readonly mime?: string;
}

/**
 * How much a listing says of each entry. `names`: the caller needs names and types only, so a
 * connector may leave out size, mtime, etag (and mime) where getting them costs extra work per
 * entry — a folder then skips one stat per entry. A connector that gets them for free may still
 * return them. The set of entries listed is the same either way.
 */
export type ListDetail = 'full' | 'names';

export interface ListOptions {
  /** Opaque cursor from a previous page of the same listing (and the same `detail`). */
  readonly cursor?: string;
  /** Upper bound on entries in this page (the connector may return fewer). Default 1000. */
  readonly limit?: number;
  /** Default `full`. A connector may refuse any other value with `invalid_argument`. */
  readonly detail?: ListDetail;
}

export interface ConnectorListPage {
  readonly entries: readonly ConnectorEntry[];
  /** Present when more entries follow; pass it back as `cursor`. */
  readonly cursor?: string;
}

export interface ByteRange {
  /** First byte, 0-based. */
  readonly offset: number;
  /** Number of bytes; the read stops early at end of object. Omit to read to the end. */
  readonly length?: number;
}

export interface ReadOptions {
  readonly range?: ByteRange;
}

/** Why a read returned no inline bytes for a binary type. */
export interface ReadOmission {
  readonly reason: 'over_inline_cap';
  /** The per-MIME inline cap that applied, in bytes. */
  readonly cap: number;
}

/**
 * What read returns. Text types come back decoded in `text`. Binary types (image/*, video/*,
 * application/pdf) come back as base64 in `bytes` when they fit the connector's per-MIME inline
 * cap; over the cap `bytes` is absent, `omitted` says why, and `text` is a short marker a model
 * can read (e.g. "[image/png, 12.4 MiB: over the 5 MiB inline cap; not included]").
 * Whether bytes reach a model is decided downstream; the connector never asks.
 */
export interface ConnectorReadResult {
  readonly text: string;
  /** Base64 raw bytes, for binary MIME types within the inline cap. */
  readonly bytes?: string;
  readonly mime: string;
  /** Size of the whole object in bytes (not of the range returned). */
  readonly size: number;
  readonly etag?: string;
  /** The range actually returned, when a range was asked for. */
  readonly range?: { readonly offset: number; readonly length: number };
  /** Set when binary content was left out; `text` then holds the marker. */
  readonly omitted?: ReadOmission;
}

export interface WriteOptions {
  /** Write only if the current etag equals this; otherwise `precondition_failed`, nothing written. */
  readonly ifMatch?: string;
  /** Write only if nothing exists at the address; otherwise `already_exists`, nothing written. */
  readonly createOnly?: boolean;
  readonly mime?: string;
}

export interface WalkOptions {
  /** Maximum depth below `uri`; 1 lists direct children only. Default unbounded. */
  readonly maxDepth?: number;
  readonly signal?: AbortSignal;
}

export interface ScanContentOptions {
  /** Objects larger than this are reported with `skipped: 'too_large'` instead of content. */
  readonly maxBytesPerObject?: number;
  readonly signal?: AbortSignal;
}

/** One object's text content, as scanContent yields it for indexing. */
export interface ContentChunk {
  readonly entry: ConnectorEntry;
  readonly text?: string;
  readonly skipped?: 'too_large' | 'binary' | 'unreadable';
}

export interface DeleteOptions {
  /** Delete a directory and everything below it. Without it a non-empty directory is refused. */
  readonly recursive?: boolean;
  readonly ifMatch?: string;
}

/** Fixed reasons, so the signal stays parseable and never carries a raw path. */
export const PROBE_REASONS = ['runtime_offline', 'fs_unreachable', 'fs_permission', 'store_unreachable'] as const;
export type ProbeReason = (typeof PROBE_REASONS)[number];

export interface ProbeResult {
  readonly connected: boolean;
  readonly reason?: ProbeReason;
  /**
   * Optional, only when not connected: the code of the typed error an operation would throw now —
   * e.g. `not_found` for a missing bucket, `permission_denied` for rejected credentials,
   * `unavailable` or `timeout` for an unreachable endpoint — so a UI can say which without
   * parsing a message. `reason` stays the coarse, fixed signal.
   */
  readonly code?: ErrorCode;
}

export interface ConnectorPort {
  /** The connector kind, e.g. `local`, `bucket`, `notion`. */
  readonly kind: string;
  /** The bound source slug; always read from the factory context, never hard-coded. */
  readonly source: string;
  /** The port version this connector was built against, pinned as a literal. */
  readonly portVersion: ConnectorPortVersion;

  /** The capability set; must equal the manifest's capabilities[] exactly. Called once by the loader. */
  capabilities(): ReadonlySet<ConnectorCapability>;

  /**
   * Lists the direct children of a directory, one page at a time, in a stable order.
   * - `uri` naming a file: `not_a_directory`. Missing: `not_found`.
   * - An unknown or stale cursor: `invalid_argument`.
   * - Entries that resolve outside the root (e.g. symlinks) are left out, never followed out.
   * Throws: invalid_uri, not_found, not_a_directory, permission_denied, invalid_argument,
   * containment_violation, unavailable, timeout.
   */
  list(uri: string, options?: ListOptions): Promise<ConnectorListPage>;

  /**
   * Reads one object (see ConnectorReadResult for text versus binary and the inline cap).
   * - A directory: `is_a_directory`. Missing: `not_found`.
   * - A range past the end returns an empty result with `range.length` 0; a negative offset or
   *   length is `invalid_argument`.
   * - A text object larger than the connector's text cap without a range: `too_large`, naming the
   *   cap, so the caller can page with ranges.
   * Throws: invalid_uri, not_found, is_a_directory, permission_denied, invalid_argument,
   * too_large, containment_violation, unsupported_file_type, unavailable, timeout.
   */
  read(uri: string, options?: ReadOptions): Promise<ConnectorReadResult>;

  /**
   * Capability `write`. Creates or replaces an object atomically: readers see the old or the new
   * content, never a mix. Missing parent directories are created.
   * - `ifMatch` not equal to the current etag (or the object missing): `precondition_failed`.
   * - `createOnly` and the object exists (a dangling symlink counts as existing and is never
   *   followed): `already_exists`.
   * - A directory at `uri`: `is_a_directory`.
   * - `ifMatch` or `createOnly` that the backing store cannot enforce atomically (e.g. an S3
   *   endpoint that ignores conditional headers): `unsupported` naming that argument, and nothing
   *   written — never a silent unconditional write.
   * Returns the entry as written (with its new etag).
   * Throws: invalid_uri, precondition_failed, already_exists, is_a_directory, not_a_directory,
   * permission_denied, too_large, unsupported, containment_violation, unavailable, timeout.
   */
  write?(uri: string, content: string | Uint8Array, options?: WriteOptions): Promise<ConnectorEntry>;

  /**
   * Capability `walk`. Yields every entry below `uri` (not `uri` itself), depth first, streaming:
   * memory does not grow with the size of the tree. Symlinks are not followed.
   * Throws (from the iterator): invalid_uri, not_found, not_a_directory, permission_denied,
   * containment_violation, unavailable, timeout.
   */
  walk?(uri: string, options?: WalkOptions): AsyncIterable<ConnectorEntry>;

  /**
   * Capability `scanContent`. Yields the text of every file below `uri` for indexing; binary and
   * oversized files are yielded with `skipped` set, never with content.
   * Throws: as walk.
   */
  scanContent?(uri: string, options?: ScanContentOptions): AsyncIterable<ContentChunk>;

  /**
   * Capability `stat`. Describes one object without reading it. Missing: `not_found`.
   * Throws: invalid_uri, not_found, permission_denied, containment_violation, unavailable, timeout.
   */
  stat?(uri: string): Promise<ConnectorEntry>;

  /**
   * Capability `delete`. Removes an object. Missing: `not_found`. A non-empty directory without
   * `recursive`: `precondition_failed`. The root itself: `permission_denied`.
   * Throws: invalid_uri, not_found, precondition_failed, permission_denied, containment_violation,
   * unavailable, timeout.
   */
  delete?(uri: string, options?: DeleteOptions): Promise<void>;

  /**
   * Capability `exec`. Runs a command with `cwd` = an exact source URI. The loader checks every
   * execRequires feature against `context.session`, then the cwd's path policy, before this runs.
   * A timeout ends the process and returns with `exitCode: null` and `timedOut: true`.
   * Throws: invalid_uri, invalid_argument, not_found, not_a_directory, permission_denied,
   * containment_violation, unavailable.
   */
  exec?(request: ExecRequest, context: ExecContext): Promise<ExecResult>;

  /** Capability `execDetached`. See DetachedExecFacet. */
  readonly detached?: DetachedExecFacet;

  /**
   * Liveness, not a capability. Cheap: network-backed connectors return a cached flag. Never
   * throws; a failure to probe is `{ connected: false, reason }`.
   */
  probeConnection?(): Promise<ProbeResult>;

  /**
   * For runtimeGated kinds: whether this exact binding's runtime is running. Never starts it.
   */
  isRuntimeActive?(): boolean | Promise<boolean>;

  /**
   * The real host path behind `uri`, never a fabricated one. A connector with no host path
   * throws `os_uri_unresolvable` (or, for a sandbox with its own absolute paths, returns that).
   * Throws: invalid_uri, not_found, containment_violation, os_uri_unresolvable.
   */
  resolveOsUri?(uri: string): Promise<string>;
}
