/**
 * The one store interface of the platform, implemented by the embedded SQLite store (sqlite/) and
 * the PostgreSQL store (postgres/), and checked for both by one conformance suite (conformance/).
 * Every method is asynchronous even where SQLite answers synchronously, and no caller above this
 * layer writes SQL.
 *
 * Conventions shared by every part:
 * - Times are milliseconds since the epoch (`number`).
 * - Slugs are validated by the service that creates them (address/); the store keeps them as
 *   given and matches them exactly.
 * - JSON columns the catalog writes on its hot path (`dimensions`, `extra`, `envelope`) cross this
 *   interface as JSON text, so neither side parses a row it only passes through.
 * - Every method rejects with `unavailable` when the database cannot be read or written
 *   (`details.sqlite` or `details.postgres` names the driver's code: SQLITE_BUSY, a SQLSTATE, a
 *   socket error, or `closed`), and never puts stored content in an error.
 */
import type { HostSearchScope } from './search-scope.js';
import type { OwnershipScope, PermissionTree, SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { Scope } from '@inseam/connector';
import type { HostMemoStore } from './host-memo-types.js';
import type { SyncHistoryStore } from './sync-history-types.js';
import type { VectorStore } from './vector-types.js';
import type { CatalogSize, CrawlMode, CrawlRunState, HostRef } from './refs.js';

export { CRAWL_MODES, CRAWL_RUN_STATES, type CatalogSize, type CrawlMode, type CrawlRunState, type HostRef } from './refs.js';


/* ------------------------------------------------------------------ networks and hosts */

export interface NetworkRecord {
  readonly id: number;
  readonly slug: string;
  readonly label: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface NetworkInput {
  readonly slug: string;
  /** Defaults to the slug. */
  readonly label?: string;
}

export interface NetworkStore {
  /** Creates a network. Rejects with `already_exists` when the slug is taken. */
  create(input: NetworkInput, now?: number): Promise<NetworkRecord>;
  /** The network, or null. */
  get(slug: string): Promise<NetworkRecord | null>;
  /** Every network, by slug. */
  list(): Promise<NetworkRecord[]>;
  /** Changes the label. Rejects with `not_found` when there is no such network. */
  update(slug: string, patch: { readonly label: string }, now?: number): Promise<NetworkRecord>;
  /** Deletes the network with its hosts and everything catalogued for them; false when absent. */
  delete(slug: string): Promise<boolean>;
}

/** One configured binding of a connector kind (a source, in the package system's words). */
export interface HostRecord {
  readonly id: number;
  readonly network: string;
  readonly slug: string;
  readonly kind: string;
  readonly label: string;
  /** Rendered into an agent's view of the network; may be empty. */
  readonly description: string;
  /** The configuration handed to the connector (never a credential: those live in the credential store). */
  readonly config: Readonly<Record<string, unknown>>;
  /** The host's scope; null means the kind's `defaultScope`. */
  readonly scope: Scope | null;
  /** Sync settings from the declaring `sources[]` entry or the person who added the host. */
  readonly sync: SourceSyncSettings | null;
  readonly permissions: PermissionTree | null;
  /** The id of the package that declared the host, for attribution; null when a person added it. */
  readonly origin: string | null;
  /** Whether `list({ order: "newest" })` was shown to be honoured (by the trial, or the kind's documentation). */
  readonly honoursOrder: boolean;
  /** Who owns the host: the whole network (`project`), one user or one agent. */
  readonly ownership: OwnershipScope;
  /** The user or agent id for `user` and `agent` ownership; null for `project`. */
  readonly ownerId: string | null;
  /** Declared origins a person approved as private for the egress gate (a NAS, a service on loopback). */
  readonly privateOrigins: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface HostInput {
  readonly slug: string;
  readonly kind: string;
  /** Defaults to the slug. */
  readonly label?: string;
  readonly description?: string;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly scope?: Scope | null;
  readonly sync?: SourceSyncSettings | null;
  readonly permissions?: PermissionTree | null;
  readonly origin?: string | null;
  readonly honoursOrder?: boolean;
  /** Default `project`. */
  readonly ownership?: OwnershipScope;
  readonly ownerId?: string | null;
  readonly privateOrigins?: readonly string[];
}

export type HostPatch = Partial<Omit<HostInput, 'slug' | 'kind'>>;

export interface HostStore {
  /** Adds a host. Rejects with `not_found` (no such network) or `already_exists` (slug taken in that network). */
  create(network: string, input: HostInput, now?: number): Promise<HostRecord>;
  get(ref: HostRef): Promise<HostRecord | null>;
  /** The hosts of one network, by slug. */
  list(network: string): Promise<HostRecord[]>;
  /** Changes the given fields (a field set to null clears it). Rejects with `not_found`. */
  update(ref: HostRef, patch: HostPatch, now?: number): Promise<HostRecord>;
  /** Deletes the host and everything catalogued for it; false when absent. */
  delete(ref: HostRef): Promise<boolean>;
}

/* ------------------------------------------------------------------ catalog */

/** What the scope decided for a stored entry: metadata and content, or metadata only. */
export type EntryDecision = 'include' | 'index';

/**
 * The state of an entry's content in the index:
 * - `none`: not read (the entry is `index`-only, or nothing was attempted);
 * - `indexed`: its text is in the content index;
 * - `binary`: it is not UTF-8 text;
 * - `too_large`: it turned out larger than the content limit while being read;
 * - `error`: reading failed; a later run tries again.
 */
export type ContentState = 'none' | 'indexed' | 'binary' | 'too_large' | 'error';

export const CONTENT_STATES = ['none', 'indexed', 'binary', 'too_large', 'error'] as const satisfies readonly ContentState[];

/** An entry as written: the connector's fields as it gave them, JSON fields already encoded. */
export interface EntryRow {
  readonly path: string;
  readonly size: number | null;
  readonly mtime: string | null;
  readonly etag: string | null;
  readonly mime: string | null;
  readonly nativeHash: string | null;
  readonly nativeId: string | null;
  readonly decision: EntryDecision;
  /** JSON object of the entry's value for each declared dimension. */
  readonly dimensions: string;
  /** JSON text of `extra` exactly as the connector gave it, or null. */
  readonly extra: string | null;
  /** JSON text of `envelope` exactly as the connector gave it, or null. */
  readonly envelope: string | null;
}

/** A stored entry. */
export interface EntryRecord extends EntryRow {
  readonly id: number;
  readonly hostId: number;
  readonly contentState: ContentState;
  /** The validator (etag or nativeHash) the content was read at; null when none was known. */
  readonly contentKey: string | null;
  /** Bytes of content read into the index. */
  readonly contentBytes: number;
  /** The crawl run that last saw the entry (0: only events have). */
  readonly seenRun: number;
  /** When a stored field last changed. */
  readonly updatedAt: number;
}

/** What the crawler needs to know about a stored entry before it writes it again. */
export interface EntryState {
  readonly id: number;
  readonly path: string;
  readonly etag: string | null;
  readonly nativeHash: string | null;
  readonly nativeId: string | null;
  readonly size: number | null;
  readonly contentState: ContentState;
  readonly contentKey: string | null;
  readonly seenRun: number;
}

/** New content for an entry. */
export type ContentUpdate =
  | { readonly state: 'indexed'; readonly key: string | null; readonly text: string; readonly bytes: number }
  | { readonly state: Exclude<ContentState, 'indexed'>; readonly key: string | null };

export interface EntryPut {
  readonly row: EntryRow;
  /**
   * Move the stored entry at this path to `row.path` first (a rename followed by nativeId); its
   * content comes along. A stored entry already at `row.path` is replaced. When nothing is stored
   * at `movedFrom`, the put is a plain insert.
   */
  readonly movedFrom?: string;
  /** Content to store; absent keeps the stored content as it is. */
  readonly content?: ContentUpdate;
}

export interface RunCounters {
  /** Entries stored by the run (each counted once, however often it was listed). */
  readonly entries: number;
  /** Sum of the `size` of those entries. */
  readonly bytes: number;
  /** Entries whose content was (re)read into the index. */
  readonly indexed: number;
  /** Bytes of content read. */
  readonly contentBytes: number;
  /** Listed entries the scope or the sync excludes skipped. */
  readonly skipped: number;
  /** Entries followed to a new path by nativeId. */
  readonly moved: number;
  /** Entries removed (by the rescan diff, or a delete event). */
  readonly deleted: number;
  /** Entries the connector gave malformed, or whose content could not be read. */
  readonly errors: number;
  /** Listing pages fetched and committed. */
  readonly pages: number;
}

export const ZERO_COUNTERS: RunCounters = Object.freeze({ entries: 0, bytes: 0, indexed: 0, contentBytes: 0, skipped: 0, moved: 0, deleted: 0, errors: 0, pages: 0 });

/** Increments to a run's counters. `entries`, `bytes`, `moved` and `deleted` are counted by the store itself. */
export type RunCounterDelta = Partial<Omit<RunCounters, 'entries' | 'bytes' | 'moved' | 'deleted'>>;

/**
 * What a run records with a batch, in the same transaction as the batch's entries: where the
 * listing stands, so a run killed after the commit resumes exactly after it.
 */
export interface RunCheckpoint {
  readonly runId: number;
  /** The process writing; the batch is refused (`binding_conflict`) unless the run is running and still its own. */
  readonly owner: string;
  /** The listing cursor after this batch; null when the listing has ended; absent leaves it unchanged. */
  readonly cursor?: string | null;
  readonly phase?: CrawlPhase;
  /** The largest ordering value stored so far in the run. */
  readonly watermark?: string | null;
  readonly counters?: RunCounterDelta;
  /** The scope tally's counts at the cursor, so a resumed run goes on counting limits from there. */
  readonly scopeTally?: ScopeTallySnapshot;
  /** Working time to add to the run's `elapsedMs`. */
  readonly elapsedMs?: number;
  readonly now: number;
}

/** What a crawl's scope tally had counted at a checkpoint. */
export interface ScopeTallySnapshot {
  /** Entries kept (include or index), for `maxEntries`. */
  readonly entries: number;
  /** Declared sizes of the entries included, for `maxBytes`. */
  readonly bytes: number;
  /** Entries that were not excluded, for a `window.last` count. */
  readonly counted: number;
}

export interface CatalogBatch {
  readonly hostId: number;
  /**
   * The `seen_run` to stamp on every entry put: the crawl run listing them, or null for event
   * writes, which stamp the host's running full crawl (if any), so its rescan diff keeps them.
   */
  readonly marker: number | null;
  readonly puts: readonly EntryPut[];
  /** Paths to remove with their content. */
  readonly deletes?: readonly string[];
  readonly checkpoint?: RunCheckpoint;
  readonly now: number;
}

export interface SweepRequest {
  readonly hostId: number;
  readonly runId: number;
  readonly owner: string;
  readonly limit: number;
  readonly now: number;
}

export interface BatchOutcome {
  readonly inserted: number;
  readonly updated: number;
  readonly moved: number;
  readonly deleted: number;
  /** Puts stamping an entry the run had not stamped before (what `entries` grew by). */
  readonly newlySeen: number;
}



/** `list`: paging through the host; `sweep`: removing entries a full run did not see; `done`. */
export type CrawlPhase = 'list' | 'sweep' | 'done';

export interface CrawlRunRecord {
  readonly id: number;
  readonly hostId: number;
  readonly host: HostRef;
  readonly mode: CrawlMode;
  readonly state: CrawlRunState;
  readonly phase: CrawlPhase;
  /** The listing cursor to resume from; null at the start (or after the last page). */
  readonly cursor: string | null;
  /** The `since` the run lists with (incremental runs, and windows whose outside is skipped). */
  readonly since: string | null;
  /** The largest ordering value the run stored. */
  readonly watermark: string | null;
  readonly owner: string | null;
  readonly heartbeatAt: number | null;
  /** Entries the run is expected to store, when known or estimable (from the last full run). */
  readonly totalEstimate: number | null;
  readonly counters: RunCounters;
  /** The scope tally at the cursor; null before the first page. */
  readonly scopeTally: ScopeTallySnapshot | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly finishedAt: number | null;
  /** Time spent working on the run, across resumes (not the time it lay dead). */
  readonly elapsedMs: number;
}

export interface NewRun {
  readonly hostId: number;
  readonly mode: CrawlMode;
  readonly since: string | null;
  readonly owner: string;
  readonly totalEstimate: number | null;
  readonly now: number;
}

export interface RunEnd {
  readonly state: Exclude<CrawlRunState, 'running'>;
  /** The process ending it; refused (`binding_conflict`) unless the run is running and its own. */
  readonly owner: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly elapsedMs?: number;
  /** For a completed run: the host's watermark for the next incremental sync. */
  readonly watermark?: string | null;
  readonly now: number;
}

/** Per host: where incremental syncs continue from, and which runs came last. */
export interface SyncState {
  readonly hostId: number;
  /** `since` for the next incremental sync; null before the first completed run. */
  readonly watermark: string | null;
  readonly lastFullRun: number | null;
  readonly lastRun: number | null;
  /** The full run in progress, whose rescan diff event writes must not undo. */
  readonly activeFullRun: number | null;
}

export interface SearchQuery {
  /**
   * Words, "quoted phrases" and `prefix*` terms, all of which must match. Operators of the
   * backend's own query language are not interpreted: the text is always taken literally.
   */
  readonly text: string;
  /** Only these hosts (ids); absent searches every host (of `network`, when given). */
  readonly hostIds?: readonly number[];
  readonly network?: string;
  /**
   * Only entries inside one of these (per host: readable paths and a condition on the entry),
   * applied in the query before `offset` and `limit` cut the page; absent: no such filter.
   */
  readonly scopes?: readonly HostSearchScope[];
  /** At most 100; default 20. */
  readonly limit?: number;
  readonly offset?: number;
}

export interface SearchHit {
  readonly entryId: number;
  readonly host: HostRef;
  readonly path: string;
  /**
   * Lower is better (SQLite: bm25, negated as SQLite reports it; PostgreSQL: the same form without
   * inverse document frequency, see docs/store.md); comparable only within one search.
   */
  readonly score: number;
  /** A short excerpt around the best match, plain text. */
  readonly snippet: string;
  /** `[start, end)` UTF-16 offsets of the matched terms in `snippet`. */
  readonly highlights: readonly (readonly [number, number])[];
  /** The entry as stored, read in the same statement as the match, so a hit needs no second lookup. */
  readonly entry: SearchHitEntry;
}

export interface SearchHitEntry {
  readonly size: number | null;
  readonly mtime: string | null;
  readonly etag: string | null;
  readonly mime: string | null;
}

export interface ListEntriesOptions {
  readonly prefix?: string;
  /** Keyset paging: only paths after this one. */
  readonly after?: string;
  /** At most 1000; default 100. */
  readonly limit?: number;
}

/**
 * The catalog: crawled entries, their content index, crawl runs with their checkpoints, and each
 * host's sync state. The crawl engine talks to this interface only.
 */
export interface CatalogStore {
  /** The host's id, or null when there is no such host. */
  resolveHost(ref: HostRef): Promise<number | null>;

  /** The stored state of each of `paths` that is stored (absent paths are missing from the map). */
  lookup(hostId: number, paths: readonly string[]): Promise<Map<string, EntryState>>;
  /** The stored entry carrying each of `nativeIds` (one per id; absent ids are missing). */
  lookupNativeIds(hostId: number, nativeIds: readonly string[]): Promise<Map<string, EntryState>>;

  /**
   * Writes a batch in one transaction: moves, upserts, content, deletes, and the run checkpoint
   * with its counters. Either all of it is stored or none of it. Upserts are idempotent: writing
   * the same entry again changes nothing but its `seen_run`. Rejects with `binding_conflict`
   * (writing nothing) when the checkpoint's run is not running or not owned by its `owner`.
   */
  commit(batch: CatalogBatch): Promise<BatchOutcome>;

  /**
   * Removes up to `limit` entries of the host that run `runId` did not see (`seen_run < runId`),
   * with their content, and adds them to the run's `deleted` counter, in one transaction.
   * Resolves with how many were removed; 0 means the sweep is done. Rejects with
   * `binding_conflict` unless the run is running and owned by `owner`.
   */
  sweep(sweep: SweepRequest): Promise<number>;

  /** Creates a run. Rejects with `binding_conflict` when the host has an unfinished run. */
  createRun(run: NewRun): Promise<CrawlRunRecord>;
  /** The host's unfinished run (running, paused or failed), or null. */
  unfinishedRun(hostId: number): Promise<CrawlRunRecord | null>;
  /**
   * Takes over run `runId` for `owner` when its owner is still `expectedOwner` (compare and set),
   * setting it running. Resolves false when another process took it first.
   */
  claimRun(runId: number, expectedOwner: string | null, owner: string, now: number): Promise<boolean>;
  /** Records that `owner` is alive. Resolves false when the run is no longer its own. */
  heartbeat(runId: number, owner: string, now: number): Promise<boolean>;
  /** Ends a run; a completed run also updates the host's sync state. Rejects with `binding_conflict` (see RunEnd.owner). */
  finishRun(runId: number, end: RunEnd): Promise<CrawlRunRecord>;
  getRun(runId: number): Promise<CrawlRunRecord | null>;
  /** The host's runs, newest first. */
  listRuns(hostId: number, limit?: number): Promise<CrawlRunRecord[]>;
  syncState(hostId: number): Promise<SyncState>;

  getEntry(hostId: number, path: string): Promise<EntryRecord | null>;
  /** Entries by path, keyset-paged. */
  listEntries(hostId: number, options?: ListEntriesOptions): Promise<EntryRecord[]>;
  countEntries(hostId: number): Promise<number>;
  /** The host's entries and the sum of their sizes, as the catalog holds them now. */
  catalogSize(hostId: number): Promise<CatalogSize>;
  /** The indexed text of an entry, or null when its content is not indexed. */
  contentText(hostId: number, path: string): Promise<string | null>;
  /** Full-text search over indexed content (and paths), best first. Rejects with `invalid_argument` for an empty query. */
  search(query: SearchQuery): Promise<SearchHit[]>;
}

/* ------------------------------------------------------------------ trials */

export interface TrialRecord {
  readonly id: string;
  readonly network: string;
  readonly kind: string;
  /** SHA-256 (hex) of the module source the trial ran. */
  readonly moduleHash: string;
  readonly passed: boolean;
  /** The report as `inseam trial --json` prints it. */
  readonly report: Readonly<Record<string, unknown>>;
  /** Every origin the connector used. */
  readonly origins: readonly string[];
  readonly createdAt: number;
  readonly approvedBy: string | null;
  readonly approvedAt: number | null;
}

export type TrialInput = Pick<TrialRecord, 'id' | 'network' | 'kind' | 'moduleHash' | 'passed' | 'report' | 'origins'>;

export interface TrialStore {
  /** Rejects with `not_found` (no such network) or `already_exists` (id taken). */
  record(input: TrialInput, now?: number): Promise<TrialRecord>;
  get(id: string): Promise<TrialRecord | null>;
  /** The newest trial of `kind` in `network`, or null. */
  latest(network: string, kind: string): Promise<TrialRecord | null>;
  /**
   * Records a person's approval. Rejects with `not_found`, and with `precondition_failed` when
   * the trial did not pass or was approved already.
   */
  approve(id: string, by: string, now?: number): Promise<TrialRecord>;
  /**
   * Deletes a trial that is not approved; false when there is none. Rejects with
   * `precondition_failed` for an approved one: it is the record of a person's approval.
   */
  delete(id: string): Promise<boolean>;
}

/* ------------------------------------------------------------------ detached runs */

/** Who started a detached run, so only they (or the network's admins) can see and stop it. */
export interface DetachedRunOwnership {
  readonly runId: string;
  readonly network: string;
  readonly host: string;
  readonly userId: string;
  readonly agentId: string | null;
  readonly createdAt: number;
  readonly releasedAt: number | null;
}

export type DetachedRunInput = Pick<DetachedRunOwnership, 'runId' | 'network' | 'host' | 'userId' | 'agentId'>;

export interface DetachedRunStore {
  /** Rejects with `not_found` (no such host) or `already_exists` (run id taken). */
  record(input: DetachedRunInput, now?: number): Promise<DetachedRunOwnership>;
  get(runId: string): Promise<DetachedRunOwnership | null>;
  /** The runs one user started in a network (not released), newest first. */
  listByUser(network: string, userId: string): Promise<DetachedRunOwnership[]>;
  /** Marks the run released; false when unknown or released already. */
  release(runId: string, now?: number): Promise<boolean>;
}

/* ------------------------------------------------------------------ tokens */

/** An API token. Only a hash of its secret is stored; the secret is shown once, at creation. */
export interface TokenRecord {
  readonly id: string;
  /** The network the token is limited to, or null for every network its user is in. */
  readonly network: string | null;
  readonly userId: string;
  readonly agentId: string | null;
  readonly name: string;
  /** SHA-256 (hex) of the secret. */
  readonly secretHash: string;
  readonly scopes: readonly string[];
  /** Where an agent's token may write, delete or run commands (inseam/fs grants.ts); stored as given. */
  readonly grants: readonly TokenGrant[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** One grant of a token: a right and the global address it reaches. */
export interface TokenGrant {
  readonly right: string;
  readonly address: string;
}

export type TokenInput = Pick<TokenRecord, 'id' | 'network' | 'userId' | 'agentId' | 'name' | 'secretHash' | 'scopes' | 'expiresAt'> & {
  /** Default: none. */
  readonly grants?: readonly TokenGrant[];
};

export interface TokenStore {
  /** Rejects with `already_exists` (id or secret hash taken) or `not_found` (no such network). */
  create(input: TokenInput, now?: number): Promise<TokenRecord>;
  /** The token whose secret hashes to `secretHash`, if it is neither revoked nor expired at `now`. */
  findActive(secretHash: string, now?: number): Promise<TokenRecord | null>;
  /** A user's tokens (revoked ones too), newest first. */
  listByUser(userId: string): Promise<TokenRecord[]>;
  touch(id: string, now?: number): Promise<void>;
  /** False when unknown or revoked already. */
  revoke(id: string, now?: number): Promise<boolean>;
}

/* ------------------------------------------------------------------ sign-in codes and sessions */

/**
 * A sign-in code: the one-time secret of a sign-in link (`/#code=…`), exchanged once, before it
 * expires, for a session. Only its hash is kept.
 */
export interface SignInCodeInput {
  /** SHA-256 (hex) of the code. */
  readonly codeHash: string;
  /** Who the session it becomes acts as, with which features. */
  readonly userId: string;
  readonly features: readonly string[];
  readonly expiresAt: number;
}

/** A web session: a short-lived bearer secret a sign-in code was exchanged for. Only its hash is kept. */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly features: readonly string[];
  /** SHA-256 (hex) of the secret. */
  readonly secretHash: string;
  readonly createdAt: number;
  /** When it stops working unless renewed (epoch ms). */
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface SessionStore {
  /** Keeps a code's hash (and drops expired codes). Rejects with `already_exists` when the hash is taken. */
  addCode(input: SignInCodeInput, now?: number): Promise<void>;
  /**
   * Spends the code with hash `codeHash` and makes a session of its user and features, in one
   * step: of two redeems of one code, one gets the session and the other null. Null too for an
   * unknown or expired code.
   */
  redeem(codeHash: string, session: Pick<SessionRecord, 'id' | 'secretHash' | 'expiresAt'>, now?: number): Promise<SessionRecord | null>;
  /** The session whose secret hashes to `secretHash`, if it is neither revoked nor expired at `now`. */
  findActive(secretHash: string, now?: number): Promise<SessionRecord | null>;
  /** Records a use at `now` and moves the expiry to `expiresAt`; a revoked or expired session stays as it is. */
  renew(id: string, expiresAt: number, now?: number): Promise<void>;
  /** A user's sessions (ended ones too, for 30 days after they ended), newest first. */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** False when unknown or revoked already. */
  revoke(id: string, now?: number): Promise<boolean>;
}

/* ------------------------------------------------------------------ the store */

/* ------------------------------------------------------------------ webhook keys */

/**
 * A host's webhook key: the secret in the URL a SaaS delivers webhooks to. Only its hash is kept
 * (as with API tokens); the key itself is shown once, when it is minted.
 */
export interface WebhookKeyRecord {
  /** SHA-256 of the key, hex. */
  readonly hash: string;
  readonly createdAt: number;
}

export interface WebhookKeyStore {
  /** Sets the host's key hash, replacing any (the old key stops working). Rejects with `not_found` when there is no such host. */
  set(ref: HostRef, hash: string, now?: number): Promise<WebhookKeyRecord>;
  /** The host's key, or null when it has none or does not exist. Removing a host removes its key. */
  get(ref: HostRef): Promise<WebhookKeyRecord | null>;
  /** Removes the host's key; false when it had none. */
  delete(ref: HostRef): Promise<boolean>;
}

/** A connector package a person installed into the deployment (the built-in ones are not stored). */
export interface InstalledPackageRecord {
  /** The manifest's package id, as the loader read it. */
  readonly packageId: string;
  /** The absolute path of the package folder it was installed from. */
  readonly folder: string;
  /** The trust the person installing gave it; never read from the manifest. */
  readonly trust: 'trusted' | 'untrusted' | 'sandboxed';
  readonly installedAt: number;
  /** Who installed (or last swapped) it: the session's user id. */
  readonly installedBy: string;
}

/** The deployment's installed packages: one record per package id. */
export interface PackageStore {
  /** Adds or replaces the record of `record.packageId`. */
  put(record: InstalledPackageRecord): Promise<InstalledPackageRecord>;
  get(packageId: string): Promise<InstalledPackageRecord | null>;
  /** Every record, by package id. */
  list(): Promise<InstalledPackageRecord[]>;
  /** False when there was no such record. */
  delete(packageId: string): Promise<boolean>;
}

export interface Store {
  readonly networks: NetworkStore;
  readonly packages: PackageStore;
  readonly hosts: HostStore;
  readonly webhookKeys: WebhookKeyStore;
  readonly catalog: CatalogStore;
  readonly trials: TrialStore;
  readonly detachedRuns: DetachedRunStore;
  readonly tokens: TokenStore;
  readonly vectors: VectorStore;
  readonly sessions: SessionStore;
  /** Each host's newest syncs (sync-history-types.ts). */
  readonly syncHistory: SyncHistoryStore;
  /** What built-in hosts keep between processes for their names listing (host-memo-types.ts). */
  readonly hostMemos: HostMemoStore;
  /** Closes what the store opened. Calls after it reject with `unavailable`. */
  close(): Promise<void>;
}
