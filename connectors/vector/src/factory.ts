/**
 * Building vector ports. The platform binds each vector host with `createVectorConnectorFactory`,
 * handing it the network's index, the entries' access rule and the embedder; the manifest's plain
 * factory (`createVectorConnector`) has none of them, so its port answers `unavailable` (see
 * port.ts) — a vector source is only ever meaningful inside an inseam network.
 */
import { InvalidConfigError, type ConnectorFactory, type ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import type { EgressPort } from '@inseam/connector';
import { parseVectorConfig, type EmbedderSettings } from './config.js';
import type { Embedder } from './embedder.js';
import { OpenAiEmbedder, openAiModelId } from './openai-embedder.js';
import { VectorConnector, type VectorPortOptions } from './port.js';
import { DEFAULT_MAX_WORDS, createDefaultEmbedder, sifModelId } from './wink/default-embedder.js';

const SOURCE_SLUG = /^[a-z][a-z0-9+.-]*$/;

/** Throws `invalid_config` for a source slug that is not a URI scheme, or a config parseVectorConfig refuses. */
export function createVectorPort(context: ConnectorFactoryContext, options: VectorPortOptions = {}): VectorConnector {
  if (typeof context.source !== 'string' || !SOURCE_SLUG.test(context.source)) {
    throw new InvalidConfigError('The source slug must be usable as a URI scheme (a lowercase letter, then a-z, 0-9, "+", "." or "-").');
  }
  parseVectorConfig(context.config);
  return new VectorConnector(context.source, options);
}

/** A factory whose ports get `options` (per binding: `options(context)`), for the platform's registration. */
export function createVectorConnectorFactory(options: (context: ConnectorFactoryContext) => VectorPortOptions): ConnectorFactory {
  return (context) => createVectorPort(context, options(context));
}

export interface EmbedderServices {
  /** The egress port bound to the vector host's AuthSpec (config.ts `embedderAuth`), for `openai`. */
  readonly egress: () => EgressPort;
  /** Where the default embedder keeps its converted table (default: beside the wink package). */
  readonly cacheDir?: string;
}

/** The embedder the settings name. Throws what createDefaultEmbedder throws (`unavailable`). */
export async function createEmbedder(settings: EmbedderSettings, services: EmbedderServices): Promise<Embedder> {
  if (settings.provider === 'openai') return new OpenAiEmbedder(settings, services.egress());
  return createDefaultEmbedder(services.cacheDir === undefined ? {} : { cacheDir: services.cacheDir });
}

/**
 * The model id the embedder the settings name will answer, known without starting it (the
 * default's start loads a 24 MiB table, or converts for seconds on a fresh install): what is
 * pending for a network can be asked of the store before deciding to load the embedder. The
 * default's assumes its whole vocabulary cut (DEFAULT_MAX_WORDS; the package has 341,479 words);
 * the started embedder's own `model` stays what vectors are written under.
 */
export function expectedModelId(settings: EmbedderSettings): string {
  return settings.provider === 'openai' ? openAiModelId(settings) : sifModelId({ words: DEFAULT_MAX_WORDS });
}
