import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { convertWinkJson } from './convert.js';
import { SifEmbedder, createDefaultEmbedder, loadWordTable } from './default-embedder.js';
import { readWinkJson } from './json-stream.js';
import { DEFAULT_SIF, sifWeight, zipfProbability } from './sif.js';
import { WordTable, encodeTable } from './table.js';

/** A vocabulary in wink's own format: words by frequency, each vector followed by its norm and rank. */
const WORDS: [string, number[]][] = [
  ['the', [0.1, 0.1, 0.1, 0.1]],
  [',', [0.05, 0.1, 0, 0]],
  ['cheap', [1, 0, 0.2, 0]],
  ['flight', [0, 1, 0.1, 0]],
  ['flights', [0.05, 0.95, 0.1, 0]],
  ['airfare', [0.2, 0.9, 0.1, 0]],
  ['low-cost', [0.9, 0.1, 0.2, 0]],
  ['lisbon', [0, 0.1, 1, 0.3]],
  ['portugal', [0, 0.1, 0.9, 0.4]],
  ['capital', [0, 0, 0.5, 0.8]],
  ['not', [-0.2, 0, 0, 0.1]],
  ['do', [0.1, -0.1, 0, 0]],
  ['cafe', [0.3, -0.5, -0.2, 0.7]],
  ['"', [0, 0, 0, -1]],
  ['back\\slash', [-1, 0, 0, 0]],
  ['big-number', [123456789.125, -0.000001, 1e-7, -2.5e3]],
];

function winkJson(words = WORDS, extra = ''): string {
  const vectors = words.map(([word, values], rank) => `${JSON.stringify(word)}:[${values.join(',')},${Math.hypot(...values)},${rank}]`).join(',');
  return `{"precision":8,"l2NormIndex":4,"wordIndex":5,"size":${words.length},"dimensions":4,"words":${JSON.stringify(words.map(([word]) => word))},"vectors":{${vectors}}${extra},"unkVector":[0,0,0,0,0,-1]}`;
}

let dir: string;
let source: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inseam-wink-'));
  source = join(dir, 'small.json');
  await writeFile(source, winkJson());
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function writeJson(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('reading wink JSON as a stream', () => {
  test('hands over every vector with its word decoded and its numbers exact, in chunks of any size', async () => {
    const seen: [string, number[]][] = [];
    let meta: Readonly<Record<string, number>> = {};
    await readWinkJson(source, { onMeta: (m) => (meta = m), onVector: (word, values, length) => seen.push([word, Array.from(values.subarray(0, length))]) });
    expect(meta).toEqual({ precision: 8, l2NormIndex: 4, wordIndex: 5, size: WORDS.length, dimensions: 4 });
    expect(seen.map(([word]) => word)).toEqual(WORDS.map(([word]) => word));
    seen.forEach(([, values], rank) => {
      values.slice(0, 4).forEach((value, index) => expect(value).toBeCloseTo(WORDS[rank]![1][index]!, 9));
      expect(values[5]).toBe(rank);
    });
  });

  test('a broken file is an Error naming the byte where it broke, never a partial table', async () => {
    const good = winkJson();
    const broken: [string, string, RegExp][] = [
      ['truncated', good.slice(0, Math.floor(good.length / 2)), /ends inside a value/],
      ['garbage', good.replace('"precision":8', '"precision":@'), /unexpected byte 0x40 at byte \d+/],
      ['unbalanced', good.replace('"vectors":{', '"vectors":{]'), /closes nothing open/],
      ['value where a key goes', good.replace('"precision":8,', '"precision":8,9,'), /a value where a key was expected/],
      ['too deep', good.replace('"unkVector":[0', '"unkVector":[[[[[[[[0]]]]]]]],"x":[0'), /nesting deeper/],
    ];
    for (const [name, text, message] of broken) {
      const path = await writeJson(`${name}.json`, text);
      await expect(convertWinkJson(path, { sif: DEFAULT_SIF }), name).rejects.toThrow(message);
    }
    const semantic: [string, string, RegExp][] = [
      ['no rank', winkJson().replace(/,0\]/, ']'), /no valid rank/],
      ['rank out of range', winkJson().replace(/,15\]/, ',99]'), /no valid rank/],
      ['a rank missing', winkJson(WORDS.slice(0, -1)).replace(`"size":${WORDS.length - 1}`, `"size":${WORDS.length}`), /no vector for rank 15/],
      ['no dimensions', winkJson().replace('"dimensions":4,', ''), /dimensions, size or wordIndex/],
    ];
    for (const [name, text, message] of semantic) {
      const path = await writeJson(`${name}.json`, text);
      await expect(convertWinkJson(path, { sif: DEFAULT_SIF }), name).rejects.toThrow(message);
    }
    const aborted = new AbortController();
    aborted.abort();
    await expect(convertWinkJson(source, { sif: DEFAULT_SIF, signal: aborted.signal })).rejects.toThrow(/aborted/);
  });
});

describe('the word table', () => {
  test('round-trips: every word by rank, lookups by word (escapes decoded), vectors within int8 error', async () => {
    const table = WordTable.decode(encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF })));
    expect(table).toMatchObject({ dimension: 4, count: WORDS.length, sourceCount: WORDS.length });
    WORDS.forEach(([word, values], rank) => {
      expect(table.rank(word)).toBe(rank);
      expect(table.word(rank)).toBe(word);
      const largest = Math.max(...values.map(Math.abs));
      Array.from(table.vector(rank)).forEach((value, index) => expect(Math.abs(value - values[index]!)).toBeLessThanOrEqual(largest / 254 + 1e-9));
    });
    for (const missing of ['', 'Cheap', 'constructor', '__proto__', 'lisbo', 'lisbonx']) expect(table.rank(missing), missing).toBe(-1);
    expect(table.components).toHaveLength(4);
  });

  test('a vocabulary cut keeps the most frequent words and still normalises frequency over the whole source', async () => {
    const table = WordTable.decode(encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF, maxWords: 5 })));
    expect(table.count).toBe(5);
    expect(table.sourceCount).toBe(WORDS.length);
    expect(table.rank('flights')).toBe(4);
    expect(table.rank('airfare')).toBe(-1);
  });

  test('truncated or foreign bytes are refused', async () => {
    const bytes = encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF }));
    expect(() => WordTable.decode(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated or malformed/);
    expect(() => WordTable.decode(new TextEncoder().encode('not a table at all, not at all, not at all, not at all, really not'))).toThrow(/format/);
  });
});

describe('SIF sentence vectors', () => {
  test('frequent words weigh little, rare ones nearly 1 (Zipf over the rank)', () => {
    expect(zipfProbability(0, 341_479)).toBeCloseTo(1 / 13.3, 2);
    expect(sifWeight(0, 341_479)).toBeLessThan(0.01);
    expect(sifWeight(100_000, 341_479)).toBeGreaterThan(0.99);
  });

  test('paraphrases land nearer than unrelated text; vectors are unit length; nothing known is the zero vector', async () => {
    const embedder = new SifEmbedder(WordTable.decode(encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF }))));
    const [query, paraphrase, unrelated, nothing] = await embedder.embed(['cheap flights to Lisbon', "Low-cost airfare to Portugal's capital.", 'Do not go to the café!', '12345 ???']);
    expect(cosine(query!, paraphrase!)).toBeGreaterThan(cosine(query!, unrelated!));
    expect(Math.hypot(...query!)).toBeCloseTo(1, 5);
    expect(Array.from(nothing!)).toEqual([0, 0, 0, 0]);
    expect(embedder.model).toMatch(/^wink-sg100d-v\d+-sif-a0\.0003-w16$/);
    expect(embedder.dimension).toBe(4);
  });

  test('variants name their own vector space, so the store never mixes them with the default', async () => {
    const table = WordTable.decode(encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF })));
    const models = [new SifEmbedder(table), new SifEmbedder(table, { removeCommonDirection: false }), new SifEmbedder(table, { weighting: 'uniform' }), new SifEmbedder(table, { sif: { a: 1e-2 } })].map((e) => e.model);
    expect(new Set(models).size).toBe(4);
  });

  test('refuses more texts than a batch, non-strings, and an aborted signal, with typed errors', async () => {
    const embedder = new SifEmbedder(WordTable.decode(encodeTable(await convertWinkJson(source, { sif: DEFAULT_SIF }))), { maxBatch: 2 });
    await expect(embedder.embed(['a', 'b', 'c'])).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(embedder.embed([1 as unknown as string])).rejects.toMatchObject({ code: 'invalid_argument' });
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['cheap'], { signal: controller.signal })).rejects.toMatchObject({ code: 'timeout' });
  });
});

describe('the converted table on disk', () => {
  test('is converted once, then loaded from the cache folder; a corrupt file is converted again', async () => {
    const cacheDir = join(dir, 'cache');
    const first = await createDefaultEmbedder({ cacheDir, sourceJson: source });
    const [file] = await readdir(cacheDir);
    expect(file).toMatch(/^wink-sg100d-[0-9a-f]{16}\.bin$/);
    const written = (await stat(join(cacheDir, file!))).mtimeMs;
    // Loads are shared per process by their options; the same folder spelt another way is a load of its own, as in another process.
    const table = await loadWordTable({ cacheDir: `${cacheDir}/.`, sourceJson: source });
    expect((await stat(join(cacheDir, file!))).mtimeMs).toBe(written);
    expect(table.rank('lisbon')).toBe(7);
    await writeFile(join(cacheDir, file!), (await readFile(join(cacheDir, file!))).subarray(0, 100));
    const repaired = await loadWordTable({ cacheDir: `${cacheDir}/./.`, sourceJson: source });
    expect(repaired.count).toBe(WORDS.length);
    expect((await readFile(join(cacheDir, file!))).byteLength).toBeGreaterThan(100);
    expect((await readdir(cacheDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(first.model).toMatch(/-w16$/);
  });

  test('another vocabulary cut or source is another file; an unwritable cache folder is unavailable, naming no path', async () => {
    const cacheDir = join(dir, 'cache-cuts');
    await loadWordTable({ cacheDir, sourceJson: source, maxWords: 5 });
    await loadWordTable({ cacheDir, sourceJson: source, maxWords: 6 });
    expect(await readdir(cacheDir)).toHaveLength(2);
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'not a folder');
    const error = await loadWordTable({ cacheDir: join(blocker, 'cache'), sourceJson: source }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'cache_unwritable' } });
    expect(String((error as Error).message)).not.toContain(dir);
    await expect(loadWordTable({ cacheDir, sourceJson: join(dir, 'missing.json') })).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'embeddings_unreadable' } });
  });
});
