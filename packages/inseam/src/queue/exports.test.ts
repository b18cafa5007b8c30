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
        'HostQueue',
        'MAX_WEBHOOK_BYTES',
        'QUEUE_SCHEMA',
        'QUEUE_SCHEMA_VERSION',
        'QueueDatabase',
        'QueueWorker',
        'SYNC_QUEUE',
        'SYNC_REASONS',
        'TICK_CRON',
        'TICK_QUEUE',
        'addHostWithFirstCrawl',
        'catalogStatus',
        'dueSync',
        'enqueueDueSyncs',
        'inboxOwner',
        'inboxQueue',
        'migrateQueueSchema',
        'parseHostJob',
        'queueStatus',
        'resolveSchedule',
        'syncKey',
      ].sort(),
    );
  });
});
