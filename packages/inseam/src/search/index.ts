export { SearchService, MAX_SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT } from './search.js';
export type { SearchOptions, SearchResult, SearchPage, SearchServiceOptions } from './search.js';
export { parseWhere, typeWhere, describeWhere, WHERE_OPERATORS } from './where.js';
export type { WhereDimensions } from './where.js';
export { DEFAULT_SEARCH_MODE } from './semantic.js';
export type { SearchMode, IndexCoverage } from './semantic.js';
