/**
 * Rows as both stores read them back, and the records they become: the SQLite and PostgreSQL
 * schemas name and type their columns alike, so one mapping serves both. The one difference is
 * booleans, which SQLite returns as 0/1 and PostgreSQL as true/false.
 */
import type { OwnershipScope, PermissionTree, SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { Scope } from '@inseam/connector';
import type { ContentState, CrawlMode, CrawlPhase, CrawlRunRecord, CrawlRunState, DetachedRunOwnership, EntryDecision, InstalledPackageRecord, EntryRecord, EntryState, HostRecord, NetworkRecord, SessionRecord, TokenGrant, TokenRecord, TrialRecord } from './types.js';

/** JSON text as its value; null stays null. */
function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export interface StateRow {
  id: number;
  path: string;
  etag: string | null;
  native_hash: string | null;
  native_id: string | null;
  size: number | null;
  content_state: ContentState;
  content_key: string | null;
  seen_run: number;
}

export interface EntryRowDb extends StateRow {
  host_id: number;
  mtime: string | null;
  mime: string | null;
  decision: EntryDecision;
  dimensions: string;
  extra: string | null;
  envelope: string | null;
  content_bytes: number;
  updated_at: number;
}

export interface RunRowDb {
  id: number;
  host_id: number;
  network: string;
  host: string;
  mode: CrawlMode;
  state: CrawlRunState;
  phase: CrawlPhase;
  cursor: string | null;
  since: string | null;
  watermark: string | null;
  owner: string | null;
  heartbeat_at: number | null;
  total_estimate: number | null;
  tally_entries: number | null;
  tally_bytes: number | null;
  tally_counted: number | null;
  entries: number;
  bytes: number;
  indexed: number;
  content_bytes: number;
  skipped: number;
  moved: number;
  deleted: number;
  errors: number;
  pages: number;
  error_code: string | null;
  error_message: string | null;
  started_at: number;
  updated_at: number;
  finished_at: number | null;
  elapsed_ms: number;
}

export function toState(row: StateRow): EntryState {
  return {
    id: row.id,
    path: row.path,
    etag: row.etag,
    nativeHash: row.native_hash,
    nativeId: row.native_id,
    size: row.size,
    contentState: row.content_state,
    contentKey: row.content_key,
    seenRun: row.seen_run,
  };
}

export function toEntry(row: EntryRowDb): EntryRecord {
  return {
    id: row.id,
    hostId: row.host_id,
    path: row.path,
    size: row.size,
    mtime: row.mtime,
    etag: row.etag,
    mime: row.mime,
    nativeHash: row.native_hash,
    nativeId: row.native_id,
    decision: row.decision,
    dimensions: row.dimensions,
    extra: row.extra,
    envelope: row.envelope,
    contentState: row.content_state,
    contentKey: row.content_key,
    contentBytes: row.content_bytes,
    seenRun: row.seen_run,
    updatedAt: row.updated_at,
  };
}

export function toRun(row: RunRowDb): CrawlRunRecord {
  return {
    id: row.id,
    hostId: row.host_id,
    host: { network: row.network, host: row.host },
    mode: row.mode,
    state: row.state,
    phase: row.phase,
    cursor: row.cursor,
    since: row.since,
    watermark: row.watermark,
    owner: row.owner,
    heartbeatAt: row.heartbeat_at,
    totalEstimate: row.total_estimate,
    counters: {
      entries: row.entries,
      bytes: row.bytes,
      indexed: row.indexed,
      contentBytes: row.content_bytes,
      skipped: row.skipped,
      moved: row.moved,
      deleted: row.deleted,
      errors: row.errors,
      pages: row.pages,
    },
    scopeTally: row.tally_entries === null ? null : { entries: row.tally_entries, bytes: row.tally_bytes ?? 0, counted: row.tally_counted ?? 0 },
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    elapsedMs: row.elapsed_ms,
  };
}

export interface DetachedRunRow {
  run_id: string;
  network: string;
  host: string;
  user_id: string;
  agent_id: string | null;
  created_at: number;
  released_at: number | null;
}

export function toOwnership(row: DetachedRunRow): DetachedRunOwnership {
  return {
    runId: row.run_id,
    network: row.network,
    host: row.host,
    userId: row.user_id,
    agentId: row.agent_id,
    createdAt: row.created_at,
    releasedAt: row.released_at,
  };
}

export interface InstalledPackageRow {
  package_id: string;
  folder: string;
  trust: InstalledPackageRecord['trust'];
  /** bigint on PostgreSQL arrives as a string. */
  installed_at: number | string;
  installed_by: string;
}

export function toInstalledPackage(row: InstalledPackageRow): InstalledPackageRecord {
  return { packageId: row.package_id, folder: row.folder, trust: row.trust, installedAt: Number(row.installed_at), installedBy: row.installed_by };
}

export interface NetworkRow {
  id: number;
  slug: string;
  label: string;
  created_at: number;
  updated_at: number;
}

export interface HostRow {
  id: number;
  network: string;
  slug: string;
  kind: string;
  label: string;
  description: string;
  config: string;
  scope: string | null;
  sync: string | null;
  permissions: string | null;
  origin: string | null;
  honours_order: number | boolean;
  ownership: OwnershipScope;
  owner_id: string | null;
  private_origins: string | null;
  created_at: number;
  updated_at: number;
}

export function toNetwork(row: NetworkRow): NetworkRecord {
  return { id: row.id, slug: row.slug, label: row.label, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toHost(row: HostRow): HostRecord {
  return {
    id: row.id,
    network: row.network,
    slug: row.slug,
    kind: row.kind,
    label: row.label,
    description: row.description,
    config: parseJson<Record<string, unknown>>(row.config) ?? {},
    scope: parseJson<Scope>(row.scope),
    sync: parseJson<SourceSyncSettings>(row.sync),
    permissions: parseJson<PermissionTree>(row.permissions),
    origin: row.origin,
    honoursOrder: row.honours_order === true || row.honours_order === 1,
    ownership: row.ownership,
    ownerId: row.owner_id,
    privateOrigins: parseJson<string[]>(row.private_origins) ?? [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface TokenRow {
  id: string;
  network: string | null;
  user_id: string;
  agent_id: string | null;
  name: string;
  secret_hash: string;
  scopes: string;
  grants: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    network: row.network,
    userId: row.user_id,
    agentId: row.agent_id,
    name: row.name,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as string[],
    grants: JSON.parse(row.grants) as TokenGrant[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface SessionRow {
  id: string;
  user_id: string;
  features: string;
  secret_hash: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    features: JSON.parse(row.features) as string[],
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface TrialRow {
  id: string;
  network: string;
  kind: string;
  module_hash: string;
  passed: number | boolean;
  report: string;
  origins: string;
  created_at: number;
  approved_by: string | null;
  approved_at: number | null;
}

export function toTrial(row: TrialRow): TrialRecord {
  return {
    id: row.id,
    network: row.network,
    kind: row.kind,
    moduleHash: row.module_hash,
    passed: row.passed === true || row.passed === 1,
    report: JSON.parse(row.report) as Record<string, unknown>,
    origins: JSON.parse(row.origins) as string[],
    createdAt: row.created_at,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at,
  };
}
