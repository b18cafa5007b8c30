export { Catalog } from './catalog.js';
export type { CatalogEntry, CatalogPage, CatalogSearchOptions } from './catalog.js';
export { EntryEncoder, entryProblem, contentKey, rawDimensionReader, MAX_ENTRY_PATH_LENGTH } from './encode.js';
export { decodeText, isBinaryMime, sniffedBinary } from './text.js';
export { progressOf } from './progress.js';
export type { CrawlProgress } from './progress.js';
