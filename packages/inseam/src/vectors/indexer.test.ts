/**
 * The indexer over a real platform store (SQLite with sqlite-vec) and real crawls of a folder.
 * The embedders here are small deterministic ones (a bag of hashed words), so a test can count
 * what was embedded and swap the model mid-run; the real default embedder is exercised in
 * search/semantic.test.ts.
 *
 * Attacks: a run stopped mid-way (its process gone: a new indexer resumes from the store alone and
 * embeds nothing twice); a model change mid-run (queries of the new model never see the old
 * model's vectors, and what is not re-embedded yet is pending); an embedder failing on one entry
 * (recorded failed, its neighbours indexed); an embedder that cannot start (nothing marked failed);
 * a run in its own process SIGKILLed after its first page (resumed by the next process).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '@neuralis/package-system/contracts';
import type { Embedder } from '@inseam/connector-vector';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { VectorIndexer } from './indexer.js';

/** Word-hash vectors: texts sharing words are near. Counts every text it embeds. */
function hashEmbedder(model: string, dimension: number, fail?: (text: string) => boolean): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    model,
    dimension,
    maxBatch: 8,
    texts,
    async embed(batch) {
      return batch.map((text) => {
        if (fail?.(text) === true) throw new UnavailableError('The embeddings server answered 503.');
        texts.push(text);
        const vector = new Float32Array(dimension);
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) vector[createHash('sha1').update(word).digest()[0]! % dimension]! += 1;
        const norm = Math.hypot(...vector);
        return norm === 0 ? vector : vector.map((value) => value / norm);
      });
    },
  };
}

let dataDir: string;
let folder: string;
let platform: Platform;

beforeEach(async () => {
  dataDir = await tempDir('indexer');
  folder = await tempDir('indexer-files');
  const files: Record<string, string> = {};
  for (let index = 0; index < 40; index++) files[`n${String(index).padStart(2, '0')}.md`] = `note ${index} about ${index % 2 === 0 ? 'apples and pears' : 'trains and buses'}\n`;
  await writeFiles(folder, files);
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder } });
  // The platform's own indexer is stopped, so each test drives its own.
  await platform.vectors.close();
  await (platform.crawler.sync(await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'notes' })))).result;
});

afterEach(async () => {
  await platform.close();
  await removeDir(dataDir);
  await removeDir(folder);
});

const hostIds = async () => [(await platform.networks.hostRecord({ network: 'home', host: 'notes' })).id];

describe('the indexer', () => {
  it('resumes a run stopped mid-way from the store alone, embedding nothing twice', async () => {
    const first = hashEmbedder('hash-16', 16);
    const stop = new AbortController();
    const stopped = await new VectorIndexer({ store: platform.store, embedderOf: async () => first, batchEntries: 10 }).run('home', {
      signal: stop.signal,
      onPage: ({ indexed }) => indexed >= 10 && stop.abort(),
    });
    expect(stopped).toMatchObject({ indexed: 10, stopped: true });
    expect(await platform.store.vectors.counts('hash-16', await hostIds())).toMatchObject({ indexed: 10, pending: 30, failed: 0 });
    // A new process: nothing but the store remembers the run.
    const second = hashEmbedder('hash-16', 16);
    const resumed = await new VectorIndexer({ store: platform.store, embedderOf: async () => second }).run('home');
    expect(resumed).toMatchObject({ indexed: 30, failed: 0, stopped: false });
    expect(second.texts).toHaveLength(30);
    expect(new Set([...first.texts, ...second.texts]).size).toBe(40);
    expect(await platform.store.vectors.counts('hash-16', await hostIds())).toMatchObject({ indexed: 40, pending: 0 });
  });

  it('a model change mid-run: the new model’s queries never see the old model’s vectors; the rest is pending until re-embedded', async () => {
    let current: Embedder = hashEmbedder('hash-16', 16);
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: async () => current, batchEntries: 10 });
    const stop = new AbortController();
    await indexer.run('home', { signal: stop.signal, onPage: ({ indexed }) => indexed >= 20 && stop.abort() });
    current = hashEmbedder('hash-32', 32);
    const ids = await hostIds();
    expect(await platform.store.vectors.counts('hash-32', ids)).toMatchObject({ indexed: 0, pending: 40 });
    // The search service asks the vector host's current model: nothing of the old model answers.
    const probe = (await current.embed(['apples and pears']))[0]!;
    await platform.store.vectors.ensureModel('hash-32', 32);
    expect(await platform.store.vectors.query({ model: 'hash-32', vector: probe, k: 10 })).toEqual([]);
    await indexer.run('home');
    expect(await platform.store.vectors.counts('hash-32', ids)).toMatchObject({ indexed: 40, pending: 0 });
    const hits = await platform.store.vectors.query({ model: 'hash-32', vector: probe, k: 5 });
    expect(hits).toHaveLength(5);
    expect(hits.every((hit) => Number(hit.path.slice(1, 3)) % 2 === 0)).toBe(true);
  });

  it('drops the old model’s vectors once the re-embed for the new one is complete, never before, and never mixes them', async () => {
    let current: Embedder = hashEmbedder('hash-16', 16);
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: async () => current, batchEntries: 10 });
    expect(await indexer.run('home')).toMatchObject({ indexed: 40, dropped: [] });
    // A new embedder is a new vector host config.
    await platform.store.hosts.update({ network: 'home', host: 'vector' }, { config: { chunkTokens: 150 } });
    current = hashEmbedder('hash-32', 32);
    const stop = new AbortController();
    expect(await indexer.run('home', { signal: stop.signal, onPage: ({ indexed }) => indexed >= 20 && stop.abort() })).toMatchObject({ model: 'hash-32', indexed: 20, stopped: true, dropped: [] });
    const ids = await hostIds();
    // Half-way: the old model is all there, and a query of the new one sees only its own 20 entries.
    expect(await platform.store.vectors.counts('hash-16', ids)).toMatchObject({ indexed: 40, chunks: 40 });
    const probe = (await current.embed(['note about apples and pears']))[0]!;
    expect(await platform.store.vectors.query({ model: 'hash-32', vector: probe, k: 100 })).toHaveLength(20);
    const done = await indexer.run('home');
    expect(done).toMatchObject({ model: 'hash-32', indexed: 20, dropped: ['hash-16'] });
    expect((await platform.store.vectors.models()).map((model) => model.model)).toEqual(['hash-32']);
    expect(await platform.store.vectors.counts('hash-32', ids)).toMatchObject({ indexed: 40, pending: 0 });
    expect(await platform.store.vectors.query({ model: 'hash-32', vector: probe, k: 100 })).toHaveLength(40);
  });

  it('starts no embedder when nothing is pending, or the network has no host to index', async () => {
    let starts = 0;
    const embedder = hashEmbedder('hash-16', 16);
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: async () => (starts++, embedder) });
    expect(await indexer.run('home')).toMatchObject({ loaded: true, indexed: 40 });
    expect(await indexer.run('home')).toMatchObject({ loaded: false, indexed: 0, model: 'hash-16' });
    await platform.networks.init('empty');
    expect(await indexer.run('empty')).toMatchObject({ loaded: false, indexed: 0 });
    expect(starts).toBe(1);
    // A changed file is pending again: the next run starts the embedder for it.
    await writeFiles(folder, { 'n05.md': 'a changed note\n' });
    await (platform.crawler.sync(await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'notes' })), { mode: 'full' })).result;
    expect(await indexer.run('home')).toMatchObject({ loaded: true, indexed: 1 });
    expect(starts).toBe(2);
  });

  it('a changed file is embedded again; a deleted one takes its vectors along', async () => {
    const embedder = hashEmbedder('hash-16', 16);
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: async () => embedder });
    await indexer.run('home');
    await writeFiles(folder, { 'n00.md': 'completely different words now\n' });
    const { rm } = await import('node:fs/promises');
    await rm(`${folder}/n01.md`);
    await (platform.crawler.sync(await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'notes' })), { mode: 'full' })).result;
    expect(await platform.store.vectors.counts('hash-16', await hostIds())).toMatchObject({ indexed: 38, pending: 1 });
    const before = embedder.texts.length;
    expect(await indexer.run('home')).toMatchObject({ indexed: 1 });
    expect(embedder.texts.slice(before)).toEqual(['completely different words now']);
    const paths = (await platform.store.vectors.query({ model: 'hash-16', vector: (await embedder.embed(['trains buses note']))[0]!, k: 100 })).map((hit) => hit.path);
    expect(paths).not.toContain('n01.md');
  });

  it('records an entry its embedder fails on as failed, indexes its neighbours, and offers it again later', async () => {
    let now = 1_000_000;
    const embedder = hashEmbedder('hash-16', 16, (text) => text.startsWith('note 7 '));
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: async () => embedder, now: () => now, retryAfterMs: 60_000 });
    expect(await indexer.run('home')).toMatchObject({ indexed: 39, failed: 1 });
    const record = (await platform.store.vectors.entries((await hostIds())[0]!, { model: 'hash-16', prefix: 'n07.md' }))[0]!;
    expect(record).toMatchObject({ state: 'failed', attempts: 1, error: { code: 'unavailable' } });
    expect(await indexer.run('home')).toMatchObject({ indexed: 0, failed: 0 });
    now += 120_000;
    expect(await indexer.run('home')).toMatchObject({ failed: 1 });
  });

  it('an embedder that cannot start fails the run and marks nothing failed', async () => {
    const indexer = new VectorIndexer({ store: platform.store, embedderOf: () => Promise.reject(new UnavailableError('No key is stored for the embeddings service.')) });
    await expect(indexer.run('home')).rejects.toMatchObject({ code: 'unavailable' });
    await indexer.request('home');
    expect(indexer.errors).toEqual([{ network: 'home', code: 'unavailable', message: 'No key is stored for the embeddings service.' }]);
  });
});

describe('a killed embedding run', () => {
  const CHILD = fileURLToPath(new URL('./__fixtures__/index-child.ts', import.meta.url));
  const HOOKS = new URL('../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
  const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

  /** Runs the child; with `kill`, SIGKILLs it as soon as it has written its first page. */
  function child(kill: boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const run = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, CHILD, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let errors = '';
      run.stdout.on('data', (part: Buffer) => {
        output += part.toString('utf8');
        if (kill && output.includes('page ')) run.kill('SIGKILL');
      });
      run.stderr.on('data', (part: Buffer) => (errors += part.toString('utf8')));
      run.on('error', reject);
      run.on('exit', (code, signal) => (kill ? signal === 'SIGKILL' : code === 0) ? resolve(output) : reject(new Error(`child ended ${code ?? signal}: ${errors}`)));
    });
  }

  it('is SIGKILLed after its first page; the next run embeds only the rest, each entry once, in the real default model', async () => {
    await platform.close();
    const killed = await child(true);
    expect(killed).toMatch(/^page \d+\n/);
    expect(killed).not.toContain('done');
    platform = await openTestPlatform(dataDir);
    await platform.vectors.close();
    const model = (await platform.kinds.embedder(await platform.networks.hostRecord({ network: 'home', host: 'vector' }))).model;
    const after = await platform.store.vectors.counts(model, await hostIds());
    expect(after.indexed).toBeGreaterThanOrEqual(8);
    expect(after.indexed).toBeLessThan(40);
    expect(after.indexed + after.pending).toBe(40);
    await platform.close();
    const resumed = await child(false);
    expect(resumed).toContain(`done ${40 - after.indexed}\n`);
    platform = await openTestPlatform(dataDir);
    await platform.vectors.close();
    expect(await platform.store.vectors.counts(model, await hostIds())).toEqual({ indexed: 40, pending: 0, failed: 0, chunks: 40 });
  }, 120_000);
});
