export { SqliteStore } from './sqlite/store.js';
export type { SqliteStoreOptions } from './sqlite/store.js';
export { openDatabase, configure } from './sqlite/database.js';
export type { SqliteDatabase, OpenDatabaseOptions } from './sqlite/database.js';
export { migrate, schemaVersions } from './sqlite/migrations.js';
export type { Migration, SchemaComponent } from './sqlite/migrations.js';
export { STORE_SCHEMA } from './sqlite/schema.js';
export { PostgresStore } from './postgres/store.js';
export type { PostgresStoreOptions, PostgresStoreTransaction } from './postgres/store.js';
export {
  Db as PostgresDb,
  attempt as attemptPostgres,
  createPool as createPostgresPool,
  isPostgresUrl,
  storeError as postgresStoreError,
} from './postgres/database.js';
export type { PostgresPoolOptions } from './postgres/database.js';
export { migrate as migratePostgres, schemaVersions as postgresSchemaVersions, MIGRATION_LOCK_KEY } from './postgres/migrations.js';
export { POSTGRES_STORE_SCHEMA } from './postgres/schema.js';
export { SqliteVectorStore } from './sqlite/vectors.js';
export { PostgresVectorStore } from './postgres/vectors.js';
export { VECTOR_STATES, MAX_VECTOR_K, MAX_VECTOR_DIMENSION } from './vector-types.js';
export type {
  VectorState,
  VectorBackend,
  VectorBackendStatus,
  VectorModelRecord,
  ChunkSpan,
  VectorChunkInput,
  ContentExpectation,
  VectorUpsert,
  VectorFailure,
  VectorEntryRecord,
  VectorChunkRecord,
  VectorEntriesOptions,
  PendingQuery,
  PendingEntry,
  VectorCounts,
  VectorQuery,
  VectorHit,
  VectorStore,
} from './vector-types.js';
export { openStore, storeTarget } from './open.js';
export type { OpenStoreOptions, PlatformStore, StoreTarget } from './open.js';
export { backupStore, checkStoreFile } from './sqlite/maintenance.js';
export type { StoreBackup, StoreCheck } from './sqlite/maintenance.js';
export { CONTENT_STATES, CRAWL_MODES, CRAWL_RUN_STATES, ZERO_COUNTERS } from './types.js';
export type {
  CatalogSize,
  HostRef,
  NetworkRecord,
  NetworkInput,
  NetworkStore,
  HostRecord,
  HostInput,
  HostPatch,
  HostStore,
  EntryDecision,
  ContentState,
  EntryRow,
  EntryRecord,
  EntryState,
  ContentUpdate,
  EntryPut,
  RunCounters,
  RunCounterDelta,
  RunCheckpoint,
  ScopeTallySnapshot,
  CatalogBatch,
  SweepRequest,
  BatchOutcome,
  CrawlMode,
  CrawlRunState,
  CrawlPhase,
  CrawlRunRecord,
  NewRun,
  RunEnd,
  SyncState,
  SearchQuery,
  SearchHit,
  SearchHitEntry,
  ListEntriesOptions,
  CatalogStore,
  TrialRecord,
  TrialInput,
  TrialStore,
  DetachedRunOwnership,
  DetachedRunInput,
  DetachedRunStore,
  InstalledPackageRecord,
  PackageStore,
  TokenRecord,
  TokenGrant,
  TokenInput,
  TokenStore,
  SignInCodeInput,
  SessionRecord,
  SessionStore,
  WebhookKeyRecord,
  WebhookKeyStore,
  Store,
} from './types.js';
export type { EntryCondition, EntryField, HostSearchScope, ReadablePaths, ValueType } from './search-scope.js';
export { SYNC_HISTORY_KEEP } from './sync-history-types.js';
export type { SyncHistoryStore, SyncRecord, SyncStop } from './sync-history-types.js';
export { HOST_MEMO_KEY_MAX, HOST_MEMO_VALUE_MAX } from './host-memo-types.js';
export type { HostMemoStore } from './host-memo-types.js';
