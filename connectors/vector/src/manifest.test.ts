import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import * as publicApi from './index.js';
import { VECTOR_CONNECTOR_ENTRY, VECTOR_PACKAGE_ID, VECTOR_SOURCE_DECLARATION, createVectorConnector, parseVectorConfig } from './index.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; neuralis: Record<string, unknown> };

async function codeOf(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

describe('manifest', () => {
  test('package.json carries exactly the entries src/manifest.ts declares, and they validate first-party', () => {
    expect(packageJson.name).toBe(VECTOR_PACKAGE_ID);
    expect(packageJson.neuralis).toEqual(JSON.parse(JSON.stringify({ id: VECTOR_PACKAGE_ID, connectors: [VECTOR_CONNECTOR_ENTRY], sources: [VECTOR_SOURCE_DECLARATION] })));
    const manifest = validateManifest(packageJson.neuralis, { trust: 'first-party' });
    expect(manifest.connectors?.[0]).toMatchObject({ kind: 'vector', category: 'vector' });
    expect(manifest.connectors?.[0]).not.toHaveProperty('runtimeGated');
    expect(manifest.sources?.[0]).toMatchObject({ source: 'vector', kind: 'vector', seed: 'auto', scope: 'project' });
    expect(manifest.sources?.[0]).not.toHaveProperty('root');
    // Not crawled on its own: the seed sets no sync, which is manual.
    expect(manifest.sources?.[0]).not.toHaveProperty('sync');
  });

  test('a rootless auto seed is a first-party or trusted privilege: untrusted and sandboxed packages are refused it', () => {
    expect(validateManifest(packageJson.neuralis, { trust: 'trusted' }).sources).toHaveLength(1);
    const sourcesOnly = { id: 'someone.else', sources: [VECTOR_SOURCE_DECLARATION] };
    for (const trust of ['untrusted', 'sandboxed'] as const) {
      let issues: { path: string }[] = [];
      try {
        validateManifest(sourcesOnly, { trust });
      } catch (error) {
        issues = (error as { issues: { path: string }[] }).issues;
      }
      expect(issues.map((issue) => issue.path).sort(), trust).toEqual(['sources[0].root', 'sources[0].seed']);
    }
  });

  test('the config schema takes the default and OpenAI-compatible embedders and refuses unknown fields', () => {
    const validate = compileConfigValidator(VECTOR_CONNECTOR_ENTRY.configSchema);
    expect(validate({})).toEqual({});
    const openai = { embedder: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'text-embedding-3-small', dimension: 1536 } };
    expect(validate(openai)).toEqual(openai);
    for (const bad of [{ embedder: { provider: 'cohere' } }, { embedder: { provider: 'openai', apiKey: 'sk-in-config' } }, { embedder: { provider: 'openai', dimension: 0 } }, { extra: 1 }, { chunkTokens: 8 }]) {
      expect(() => validate(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  test('the factory applies the rules the schema cannot: fields that go together, a clean base URL, overlap under half', async () => {
    const context = (config: Record<string, unknown>) => ({ packageId: VECTOR_PACKAGE_ID, packageRoot: '/x', source: 'vector', config, scope: 'project' as const });
    expect(parseVectorConfig({})).toEqual({ embedder: { provider: 'default' }, chunkTokens: 200, chunkOverlap: 24, minScore: 0.45 });
    expect(parseVectorConfig({ minScore: 0.2 }).minScore).toBe(0.2);
    expect(parseVectorConfig({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', dimension: 3 } }).minScore).toBe(0.3);
    expect(parseVectorConfig({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1/', model: 'nomic-embed-text', dimension: 768, apiKey: 'none' } }).embedder).toEqual({
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      dimension: 768,
      apiKey: 'none',
      sendDimensions: false,
      batchSize: 64,
      timeoutMs: 60_000,
    });
    const refusals: [Record<string, unknown>, string[]][] = [
      [{ embedder: { provider: 'openai', model: 'm' } }, ['embedder.baseUrl', 'embedder.dimension']],
      [{ embedder: { provider: 'openai', baseUrl: 'https://user:pw@api.example/v1', model: 'm', dimension: 3 } }, ['embedder.baseUrl']],
      [{ embedder: { provider: 'openai', baseUrl: 'https://api.example/v1?key=x', model: 'm', dimension: 3 } }, ['embedder.baseUrl']],
      [{ embedder: { provider: 'openai', baseUrl: 'ftp://api.example/v1', model: 'm', dimension: 3 } }, ['embedder.baseUrl']],
      [{ embedder: { provider: 'default', model: 'm' } }, ['embedder.model']],
      [{ chunkTokens: 64, chunkOverlap: 32 }, ['chunkOverlap']],
    ];
    for (const [config, fields] of refusals) {
      let details: unknown;
      try {
        parseVectorConfig(config);
      } catch (error) {
        expect((error as { code: string }).code).toBe('invalid_config');
        details = (error as { details: { fields: string[] } }).details.fields;
      }
      expect(details, JSON.stringify(config)).toEqual(fields);
    }
    expect(await codeOf(() => createVectorConnector(context({ chunkTokens: 64, chunkOverlap: 40 })))).toBe('invalid_config');
    expect(await codeOf(() => createVectorConnector({ ...context({}), source: 'Bad Slug' }))).toBe('invalid_config');
  });

  test('the plain factory has no index: every call is unavailable and the probe says so', async () => {
    const port = createVectorConnector({ packageId: VECTOR_PACKAGE_ID, packageRoot: '/x', source: 'vector', config: {}, scope: 'project' });
    expect(await port.probeConnection()).toEqual({ connected: false, reason: 'store_unreachable', code: 'unavailable' });
    expect(await codeOf(() => port.list('vector://'))).toBe('unavailable');
    expect(await codeOf(() => port.query({ text: 'cheap flights' }))).toBe('unavailable');
  });

  test('the package exports exactly its named public API', () => {
    expect(Object.keys(publicApi).sort()).toEqual(
      [
        'DEFAULT_CHUNK_OPTIONS',
        'DEFAULT_MAX_WORDS',
        'DEFAULT_MIN_SCORE',
        'DEFAULT_SIF',
        'EMBEDDER_PROVIDERS',
        'MAX_ANSWER_BYTES',
        'MAX_QUERY_HITS',
        'OpenAiEmbedder',
        'SifEmbedder',
        'VECTOR_CAPABILITIES',
        'VECTOR_CONNECTOR_ENTRY',
        'VECTOR_PACKAGE_ID',
        'VECTOR_SOURCE_DECLARATION',
        'VectorConnector',
        'chunkText',
        'countTokens',
        'createDefaultEmbedder',
        'createEmbedder',
        'createVectorConnector',
        'createVectorConnectorFactory',
        'createVectorPort',
        'defaultCacheDir',
        'embedAll',
        'embedderAuth',
        'expectedModelId',
        'isZeroVector',
        'loadWordTable',
        'locate',
        'parseVectorConfig',
        'recordJson',
        'underlyingEntry',
      ].sort(),
    );
  });
});
