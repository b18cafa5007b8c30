import { describe, expect, it } from 'vitest';
import * as queue from './index.js';

describe('the queue subpath', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(queue).sort()).toEqual(
      [
        'BOSS_SCHEMA',
        'DEAD_QUEUE',
        'DEFAULT_RETRY',
        'EVENTS_QUEUE',
        'EVENTS_REMOTE_QUEUE',
        'HostQueue',
        'MAX_WEBHOOK_BYTES',
        'QUEUE_SCHEMA',
        'QUEUE_SCHEMA_VERSION',
        'QueueDatabase',
        'QueueWorker',
        'QueuedCrawlRequests',
        'SYNC_QUEUE',
        'SYNC_REASONS',
        'SYNC_REMOTE_QUEUE',
        'TICK_CRON',
        'TICK_QUEUE',
        'WORKER_HOSTS_FILTERS',
        'addHostWithFirstCrawl',
        'catalogStatus',
        'currentFailures',
        'dueSync',
        'enqueueDueSyncs',
        'hostPlacement',
        'inboxOwner',
        'inboxQueue',
        'migrateQueueSchema',
        'parseHostJob',
        'queueStatus',
        'resolveSchedule',
        'sharedQueueOf',
        'sharedQueuesFor',
        'syncKey',
      ].sort(),
    );
  });
});
