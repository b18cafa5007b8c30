export { documentKind, DOCUMENT_KINDS } from './kinds.js';
export type { DocumentKind } from './kinds.js';
export { DEFAULT_EXTRACT_LIMITS } from './limits.js';
export type { ExtractedText, ExtractLimits } from './limits.js';
export { ExtractorPool, sharedExtractor } from './pool.js';
export type { DocumentExtractor, ExtractorPoolOptions } from './pool.js';
