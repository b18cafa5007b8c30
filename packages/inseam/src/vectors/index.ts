export { VectorIndexer, vectorHostOf } from './indexer.js';
export type { VectorIndexerOptions, IndexRunResult, IndexRunOptions } from './indexer.js';
