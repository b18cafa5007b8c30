export { VectorIndexer, vectorHostOf } from './indexer.js';
export type { VectorIndexerOptions, IndexRunResult, IndexRunOptions } from './indexer.js';
export { vectorIndexStatus } from './status.js';
export type { VectorIndexStatus, NetworkIndexStatus } from './status.js';
