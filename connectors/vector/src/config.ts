/**
 * A vector source's config: which embedder the network uses, and how text is chunked for it.
 *
 *   {}                                                     the offline default (wink, SIF)
 *   { "embedder": { "provider": "openai",                  any OpenAI-compatible /v1/embeddings:
 *                   "baseUrl": "https://api.openai.com/v1", OpenAI, Ollama, llama.cpp server,
 *                   "model": "text-embedding-3-small",      vLLM, text-embeddings-inference
 *                   "dimension": 1536 } }
 *
 * The schema (manifest.ts) checks each field's form; parseVectorConfig adds the rules that tie
 * fields together. The API key is never config: it is the host's credential (field `apiKey`),
 * stored encrypted and attached by the egress gate (see embedderAuth).
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import type { AuthSpec } from '@inseam/connector';
import { DEFAULT_CHUNK_OPTIONS } from './chunking.js';

export const EMBEDDER_PROVIDERS = ['default', 'openai'] as const;
export type EmbedderProvider = (typeof EMBEDDER_PROVIDERS)[number];

export interface OpenAiEmbedderSettings {
  readonly provider: 'openai';
  /** The API's base, up to and including `/v1` (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`). */
  readonly baseUrl: string;
  readonly model: string;
  /** The vector length the model answers; every answer is checked against it. */
  readonly dimension: number;
  /** `required` (default): the host's `apiKey` credential is sent as a bearer token; `none`: nothing is (a local server). */
  readonly apiKey: 'required' | 'none';
  /** Send `dimensions` in the request (OpenAI's text-embedding-3 models shorten vectors on request). Default false. */
  readonly sendDimensions: boolean;
  /** Texts per request. Default 64. */
  readonly batchSize: number;
  /** Per request, in milliseconds. Default 60,000. */
  readonly timeoutMs: number;
}

export type EmbedderSettings = { readonly provider: 'default' } | OpenAiEmbedderSettings;

export interface VectorSettings {
  readonly embedder: EmbedderSettings;
  readonly chunkTokens: number;
  readonly chunkOverlap: number;
  /**
   * The least cosine similarity a semantic hit needs: nearest neighbours always exist, so without
   * a floor every query would "match" everything. Measured on the default embedder: paraphrases
   * score 0.5–0.65, unrelated notes below 0.4 (docs/search.md).
   */
  readonly minScore: number;
}

/** minScore's default per provider. */
export const DEFAULT_MIN_SCORE = Object.freeze({ default: 0.45, openai: 0.3 });

const OPENAI_ONLY = ['baseUrl', 'model', 'dimension', 'apiKey', 'sendDimensions', 'batchSize', 'timeoutMs'] as const;

/**
 * The settings of a config the schema accepted. Throws `invalid_config` naming the fields: an
 * `openai` embedder without baseUrl, model or dimension, a baseUrl that is not an http(s) origin
 * with an optional path (no query, fragment or user info), OpenAI fields on the default embedder,
 * an overlap of half the chunk size or more.
 */
export function parseVectorConfig(config: Readonly<Record<string, unknown>>): VectorSettings {
  const embedder = (config['embedder'] ?? { provider: 'default' }) as Readonly<Record<string, unknown>>;
  const chunkTokens = (config['chunkTokens'] as number | undefined) ?? DEFAULT_CHUNK_OPTIONS.maxTokens;
  const chunkOverlap = (config['chunkOverlap'] as number | undefined) ?? DEFAULT_CHUNK_OPTIONS.overlapTokens;
  if (chunkOverlap * 2 >= chunkTokens) {
    throw new InvalidConfigError(`Invalid source config: "chunkOverlap" (${chunkOverlap}) must be less than half of "chunkTokens" (${chunkTokens}).`, { details: { fields: ['chunkOverlap'] } });
  }
  if (embedder['provider'] !== 'openai') {
    const stray = OPENAI_ONLY.filter((field) => embedder[field] !== undefined);
    if (stray.length > 0) {
      throw new InvalidConfigError(`Invalid source config: ${stray.map((field) => `"embedder.${field}"`).join(', ')} only apply to provider "openai"; remove them or set the provider.`, {
        details: { fields: stray.map((field) => `embedder.${field}`) },
      });
    }
    return { embedder: { provider: 'default' }, chunkTokens, chunkOverlap, minScore: (config['minScore'] as number | undefined) ?? DEFAULT_MIN_SCORE.default };
  }
  const missing = (['baseUrl', 'model', 'dimension'] as const).filter((field) => embedder[field] === undefined);
  if (missing.length > 0) {
    throw new InvalidConfigError(`Invalid source config: provider "openai" needs ${missing.map((field) => `"embedder.${field}"`).join(', ')}.`, {
      details: { fields: missing.map((field) => `embedder.${field}`) },
    });
  }
  return {
    embedder: {
      provider: 'openai',
      baseUrl: checkBaseUrl(embedder['baseUrl']),
      model: embedder['model'] as string,
      dimension: embedder['dimension'] as number,
      apiKey: (embedder['apiKey'] as 'required' | 'none' | undefined) ?? 'required',
      sendDimensions: (embedder['sendDimensions'] as boolean | undefined) ?? false,
      batchSize: (embedder['batchSize'] as number | undefined) ?? 64,
      timeoutMs: (embedder['timeoutMs'] as number | undefined) ?? 60_000,
    },
    chunkTokens,
    chunkOverlap,
    minScore: (config['minScore'] as number | undefined) ?? DEFAULT_MIN_SCORE.openai,
  };
}

function checkBaseUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidConfigError('Invalid source config: "embedder.baseUrl" must be an http(s) URL such as https://api.openai.com/v1, with no query, fragment or user name.', {
      details: { fields: ['embedder.baseUrl'] },
    });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * What the egress gate needs for the embedder: the base URL's origin, and for `apiKey: required`
 * the host's `apiKey` credential as a bearer token. The default embedder reaches nothing.
 */
export function embedderAuth(settings: EmbedderSettings): AuthSpec {
  if (settings.provider !== 'openai') return { acquire: { type: 'none' }, present: [], origins: [] };
  const origins = [new URL(settings.baseUrl).origin];
  if (settings.apiKey === 'none') return { acquire: { type: 'none' }, present: [], origins };
  return {
    fields: [{ name: 'apiKey', label: 'API key', secret: true, help: 'The key of the embeddings service; sent as a bearer token, only to the base URL.' }],
    instructions: 'Paste the API key of the embeddings service. It is stored encrypted and sent only to the configured base URL, by the egress gate.',
    acquire: { type: 'static' },
    present: [{ in: 'header', name: 'authorization', value: 'Bearer {{apiKey}}' }],
    origins,
  };
}
