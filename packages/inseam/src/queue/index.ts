export { QueueDatabase } from './database.js';
export type { SqlExecutor, QueueDatabaseOptions } from './database.js';
export { HostQueue, BOSS_SCHEMA, DEFAULT_RETRY, TICK_CRON } from './queue.js';
export { MAX_WEBHOOK_BYTES } from '../platform/crawl-requests.js';
export type { HostQueueOptions, RetryPolicy, SyncRequest, SendOptions, DeliverOptions, FetchedJob } from './queue.js';
export { QueueWorker } from './worker.js';
export type { QueueWorkerOptions, QueueWorkerEvents, WorkerActivity, WorkerHosts } from './worker.js';
export {
  SYNC_QUEUE,
  EVENTS_QUEUE,
  SYNC_REMOTE_QUEUE,
  EVENTS_REMOTE_QUEUE,
  DEAD_QUEUE,
  TICK_QUEUE,
  SYNC_REASONS,
  WORKER_HOSTS_FILTERS,
  hostPlacement,
  inboxQueue,
  inboxOwner,
  parseHostJob,
  sharedQueueOf,
  sharedQueuesFor,
  syncKey,
} from './jobs.js';
export type { HostJob, SyncJob, EventsJob, WebhookJob, WebhookRequestData, SyncReason, Placement, WorkerHostsFilter } from './jobs.js';
export { dueSync, enqueueDueSyncs, resolveSchedule } from './schedule.js';
export type { ScheduleSettings, ResolvedSchedule, HostSyncFacts, DueSync, QueuedSync } from './schedule.js';
export { QUEUE_SCHEMA, QUEUE_SCHEMA_VERSION, migrateQueueSchema } from './schema.js';
export type { LeasePurpose } from './leases.js';
export { queueStatus, catalogStatus, currentFailures } from './status.js';
export type { QueueStatus, CatalogStatus, WorkerStatus, QueueDepth, LeaseStatus, FailingHost, FailureKind, RunningCrawl } from './status.js';
export { addHostWithFirstCrawl } from './hosts.js';
export type { TransactionalHostStore } from './hosts.js';
export { QueuedCrawlRequests } from './crawl-requests.js';
export type { QueuedCrawlRequestsOptions } from './crawl-requests.js';
