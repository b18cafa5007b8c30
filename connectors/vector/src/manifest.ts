/**
 * The `connectors[]` and `sources[]` entries of the vector kind. The kind is rootless and
 * always on (no `runtimeGated`), category `vector`; its one source per network is seeded by
 * `seed: "auto"` (first-party trust allows a rootless auto seed, docs/manifest.md). The seed sets
 * no `sync`, so it is never crawled on its own: the index is written by inseam's indexing, not
 * by listing this source. package.json's `neuralis` block repeats these entries verbatim;
 * manifest.test.ts keeps them equal.
 */
import type { ConnectorCapability, SourceConnectorEntry, SourceDeclaration } from '@neuralis/package-system/contracts';
import { EMBEDDER_PROVIDERS } from './config.js';

export const VECTOR_PACKAGE_ID = '@inseam/connector-vector';

export const VECTOR_CAPABILITIES = ['list', 'read', 'walk', 'stat'] as const satisfies readonly ConnectorCapability[];

export const VECTOR_CONNECTOR_ENTRY = {
  id: 'vector',
  type: 'source',
  kind: 'vector',
  transport: 'in-process',
  name: 'Semantic index',
  icon: 'Sparkles',
  category: 'vector',
  description: "What the network's semantic search has embedded, per host and entry, and queries by meaning over it.",
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      embedder: {
        type: 'object',
        additionalProperties: false,
        description: 'Which embedder turns text into vectors. Default: the offline word-vector model shipped with inseam.',
        properties: {
          provider: { type: 'string', enum: [...EMBEDDER_PROVIDERS], description: '"default" (offline, no key) or "openai" (any OpenAI-compatible /v1/embeddings).' },
          baseUrl: { type: 'string', pattern: '^https?://[^\\s?#]+$', maxLength: 2048, description: 'For "openai": the API base including /v1, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1.' },
          model: { type: 'string', minLength: 1, maxLength: 200, description: 'For "openai": the embedding model, e.g. text-embedding-3-small.' },
          dimension: { type: 'integer', minimum: 1, maximum: 8192, description: 'For "openai": the vector length the model answers (checked on every answer).' },
          apiKey: { type: 'string', enum: ['required', 'none'], description: 'For "openai": "required" sends the host\'s apiKey credential as a bearer token; "none" sends nothing. Default "required".' },
          sendDimensions: { type: 'boolean', description: 'For "openai": send "dimensions" in each request (models that shorten vectors on request). Default false.' },
          batchSize: { type: 'integer', minimum: 1, maximum: 2048, description: 'For "openai": texts per request. Default 64.' },
          timeoutMs: { type: 'integer', minimum: 1000, maximum: 600000, description: 'For "openai": milliseconds per request. Default 60000.' },
        },
        required: ['provider'],
      },
      chunkTokens: { type: 'integer', minimum: 32, maximum: 2048, description: 'Largest chunk, in tokens. Default 200.' },
      chunkOverlap: { type: 'integer', minimum: 0, maximum: 1023, description: 'Tokens a chunk repeats from the one before. Default 24; less than half of chunkTokens.' },
      minScore: { type: 'number', minimum: -1, maximum: 1, description: 'The least cosine similarity a semantic hit needs. Default 0.45 for the default embedder, 0.3 for "openai".' },
    },
  },
  capabilities: VECTOR_CAPABILITIES,
  defaultPermissions: { default: { read: true, write: false, exec: false } },
  defaultScope: 'project',
  scopeSelectable: false,
  allowedScopes: ['project'],
  connectorFactory: './dist/index.js#createVectorConnector',
} as const satisfies SourceConnectorEntry;

/** Every network's vector source. */
export const VECTOR_SOURCE_DECLARATION = {
  source: 'vector',
  label: 'Semantic index',
  kind: 'vector',
  scope: 'project',
  description: "The network's semantic index: what is embedded for search by meaning, per host and entry (model, state, chunk spans), never the text itself.",
  seed: 'auto',
} as const satisfies SourceDeclaration;
