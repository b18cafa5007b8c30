export { Crawler, excludeMatcher } from './crawler.js';
export type { SyncMode, SyncOptions, EventOutcome } from './crawler.js';
export type { CrawlerOptions } from './options.js';
export type { CrawlTarget } from './target.js';
export { CrawlHandle } from './handle.js';
export type { CrawlHandleEvents } from './handle.js';
export type { Watcher, WatcherEvents } from './watcher.js';
export { SyncScheduler } from './scheduler.js';
export type { SyncSchedulerOptions, SyncSchedulerEvents } from './scheduler.js';
