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
import { OpenAiEmbedder } from './openai-embedder.js';
import { VectorConnector, type VectorPortOptions } from './port.js';
import { createDefaultEmbedder } from './wink/default-embedder.js';

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
