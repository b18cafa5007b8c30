/**
 * The filesystem service's public types: who calls (Caller), what each operation takes, and what
 * it answers. Addresses in answers are always global (`inseam://{network}/{host}/{path}`).
 */
import type { Envelope, ScopePredicate } from '@inseam/connector';
import type { Grant } from './grants.js';
import type {
  ConnectorCapability,
  DetachedRunStatus,
  EntryType,
  ErrorCode,
  ListDetail,
  OwnershipScope,
  PermissionRights,
  ProbeReason,
  SessionContext,
} from '@neuralis/package-system/contracts';

/** What the active model can take in, for binary reads. Absent fields are false. */
export interface ModelCapabilities {
  readonly image?: boolean;
  readonly video?: boolean;
}

/**
 * Who is calling. A surface builds it from its own authentication (an API token, the MCP
 * session, the CLI's local user) — never from tool or request input. `session.projectId` is the
 * network every call of this caller works in.
 * `model` is present when the content goes to a model: binary bytes of a kind the model cannot
 * take (image/*, video/*) are then replaced by a marker. Absent: a person or a program is
 * reading, and bytes are never withheld for that reason.
 */
export interface Caller {
  readonly session: SessionContext;
  readonly model?: ModelCapabilities;
  /**
   * Where an agent may write, delete and run commands (grants.ts), from its token. Ignored for a
   * person (no `session.agentId`); an agent without grants may do none of the three anywhere.
   */
  readonly grants?: readonly Grant[];
}

/** Where an answer came from: the host itself, or the catalog's synced copy (host offline). */
export type ContentSource = 'live' | 'catalog';

/** One object, as list and stat describe it. */
export interface FsEntry {
  /** Global address. */
  readonly address: string;
  readonly host: string;
  /** Canonical host path ('' for the root). */
  readonly path: string;
  /** Last segment, decoded ('' for the root). */
  readonly name: string;
  readonly type: EntryType;
  readonly size?: number;
  /** RFC 3339 UTC. */
  readonly mtime?: string;
  /** Pass to write/delete as `ifMatch`. */
  readonly etag?: string;
  readonly mime?: string;
}

export interface FsStat extends FsEntry {
  readonly source: ContentSource;
  /** A message's envelope as the host stated it at the last sync (parties, direction, auth, list). */
  readonly envelope?: Envelope;
}

export interface FsListOptions {
  /** `cursor` of the previous page of the same listing. */
  readonly cursor?: string;
  /** 1–1000, default 1000. A page may hold fewer (entries the caller may not read are left out). */
  readonly limit?: number;
  /**
   * `names`: names and types are enough, so a live listing may leave out size, time and etag
   * where they cost a stat per entry (a folder). Same entries either way; a cursor continues
   * only a listing of the same detail. Default `full`.
   */
  readonly detail?: ListDetail;
}

export interface FsListPage {
  /** The listed directory's global address. */
  readonly address: string;
  readonly entries: readonly FsEntry[];
  /** Present when more entries follow. */
  readonly cursor?: string;
  readonly source: ContentSource;
}

export interface FsByteRange {
  /** First byte, 0-based. */
  readonly offset: number;
  /** Bytes wanted; clipped to the per-message cap. Default: the cap. */
  readonly length?: number;
}

export interface FsLineRange {
  /** First line, 1-based. */
  readonly start: number;
  /** Lines wanted; default as many as fit in the per-message cap. */
  readonly count?: number;
}

export interface FsReadOptions {
  /** A byte range. Without `range` or `lines` the whole object is read (see `too_large`). */
  readonly range?: FsByteRange;
  /** A line range of a text object; exclusive with `range`. */
  readonly lines?: FsLineRange;
  /** Per-message cap in bytes of content; default and ceiling are the service's options. */
  readonly maxBytes?: number;
}

/** `text`: content is text. `base64`: content is the bytes. `marker`: content is a note saying what was left out. */
export type ReadEncoding = 'text' | 'base64' | 'marker';

/** Why binary bytes were left out of a read. */
export type ReadOmissionReason = 'over_inline_cap' | 'over_message_cap' | 'model_capability';

export interface FsReadOmission {
  readonly reason: ReadOmissionReason;
  /** The cap that applied (inline or per-message), in bytes. */
  readonly cap?: number;
  /** The model capability that was missing. */
  readonly capability?: 'image' | 'video';
}

export interface FsReadResult {
  readonly address: string;
  readonly mime: string;
  /** Bytes of the whole object (of the synced text, when `source` is `catalog`). */
  readonly size: number;
  readonly etag?: string;
  readonly encoding: ReadEncoding;
  /** The content, once: text, base64 bytes, or a marker. */
  readonly content: string;
  /** The bytes `[offset, offset + length)` this answer covers. */
  readonly offset: number;
  readonly length: number;
  /** Where to continue (`range.offset`); absent when the answer reaches the end. */
  readonly nextOffset?: number;
  /** For line reads: the lines returned and the line to ask for next (absent at the end). */
  readonly lines?: { readonly start: number; readonly count: number; readonly next?: number };
  /** Set when binary bytes were left out; `content` is then the marker. */
  readonly omitted?: FsReadOmission;
  readonly source: ContentSource;
}

export interface FsReadStreamOptions {
  readonly range?: FsByteRange;
}

/** A download: raw bytes as they come, for HTTP. */
export interface FsReadStream {
  readonly address: string;
  readonly stream: ReadableStream<Uint8Array>;
  /** Bytes of the whole object; absent when the host does not know it. */
  readonly size?: number;
  readonly etag?: string;
  readonly mime?: string;
  /** The bytes `[offset, offset + length)` the stream carries (after clipping to the object); `length` is absent when the size is unknown. */
  readonly offset: number;
  readonly length?: number;
  readonly source: ContentSource;
}

export interface FsWriteOptions {
  /** Write only if the current etag equals this (`precondition_failed` otherwise). */
  readonly ifMatch?: string;
  /** Write only if nothing exists there (`already_exists` otherwise). */
  readonly createOnly?: boolean;
  readonly mime?: string;
}

export interface FsDeleteOptions {
  readonly recursive?: boolean;
  readonly ifMatch?: string;
}

/** How a copy or move treats its target (docs/fs.md "Copies and moves"). */
export interface FsCopyOptions {
  /** Copy a folder and everything below it; without it a folder is `is_a_directory`. */
  readonly recursive?: boolean;
  /** Never replace an object at the target (`already_exists` instead, nothing written there). */
  readonly createOnly?: boolean;
}

export interface FsMoveOptions {
  /** Never replace an object at the target (`already_exists` instead, the source kept). */
  readonly createOnly?: boolean;
}

/** What a copy or move did. */
export interface FsTransfer {
  /** Global address of the source. */
  readonly from: string;
  /** Global address the source went to (inside `to` when `to` named an existing folder). */
  readonly to: string;
  readonly type: EntryType;
  /** Files written at the target. */
  readonly files: number;
  /** Bytes those files hold, as the target reported them. */
  readonly bytes: number;
}

/** A folder mkdir made or found. */
export interface FsFolder extends FsEntry {
  /** False when the folder was there already (or, `implied`, when nothing could be made). */
  readonly created: boolean;
  /**
   * True on a host whose folders exist only through what is in them (a bucket): nothing was
   * made, the name was checked to be free, and the folder shows once something is written below it.
   */
  readonly implied: boolean;
}

export interface FsSearchFilters {
  /** Host slugs of the caller's network. */
  readonly hosts?: readonly string[];
  /** Typed predicates (docs/scope.md); every one must hold. */
  readonly where?: readonly ScopePredicate[];
  /** `dim<op>value` filters; every one must hold. */
  readonly whereText?: readonly string[];
  /** 1–100, default 20. */
  readonly limit?: number;
  readonly cursor?: string;
  /** `keyword` (default), `semantic` or `hybrid` (search/semantic.ts). */
  readonly mode?: 'keyword' | 'semantic' | 'hybrid';
}

/** A command to run; `cwd` is an address (global or short) of a directory. */
export interface FsExecRequest {
  readonly command: string;
  readonly cwd: string;
  /** Milliseconds; the connector applies its own ceiling. Not used by detached runs. */
  readonly timeout?: number;
  /** Extra environment; the connector passes only names on its allowlist. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface FsExecOptions {
  /** Aborting ends the command (e.g. when the HTTP client goes away). */
  readonly signal?: AbortSignal;
}

/** A detached run and who owns it. */
export interface FsRun {
  readonly runId: string;
  readonly network: string;
  readonly host: string;
  readonly userId: string;
  readonly agentId: string | null;
  readonly createdAt: number;
}

export interface FsRunStatus extends DetachedRunStatus {
  readonly network: string;
  readonly host: string;
}

/**
 * A host's liveness as the service last saw it.
 * - `online`: the probe (or a live call) succeeded; `probed` is false when the kind has no probe.
 * - `offline`: the probe said so, a live call answered `unavailable`, or a runtime-gated host's
 *   runtime is stopped (`reason: runtime_offline`). Synced content stays readable.
 * - `unknown`: no probe has finished yet.
 */
export interface HostStatus {
  readonly state: 'online' | 'offline' | 'unknown';
  readonly reason?: ProbeReason;
  /** The code an operation would throw now, when known. */
  readonly code?: ErrorCode;
  readonly probed?: boolean;
  /** Runtime-gated hosts: what isRuntimeActive() answered. */
  readonly runtimeActive?: boolean;
  /** When this status was learnt (ms since the epoch); absent for `unknown`. */
  readonly checkedAt?: number;
}

/** A host as `hosts()` lists it for one caller. */
export interface FsHost {
  readonly network: string;
  readonly slug: string;
  /** The host root's global address. */
  readonly address: string;
  readonly kind: string;
  readonly label: string;
  /** The host's description, else what it holds: kind, root name, synced entries (holding.ts). */
  readonly description: string;
  /** The declaring package (origin attribution), or null when a person added the host. */
  readonly origin: string | null;
  readonly ownership: OwnershipScope;
  /** The user or agent a `user` or `agent` host belongs to (only its owner is shown it); null for a project host. */
  readonly ownerId: string | null;
  readonly category: string | null;
  /** The kind's declared capabilities; empty when the kind is not registered (an orphan). */
  readonly capabilities: readonly ConnectorCapability[];
  /** The caller's rights at the host root. */
  readonly rights: PermissionRights;
  readonly runtimeGated: boolean;
  readonly status: HostStatus;
}
