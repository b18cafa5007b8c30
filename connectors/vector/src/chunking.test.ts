import { describe, expect, test } from 'vitest';
import { chunkText, countTokens, type TextChunk } from './chunking.js';

const passages = (text: string, chunks: readonly TextChunk[]): string[] => chunks.map((chunk) => text.slice(chunk.start, chunk.end));

/** Every chunk is within the bound, its span has its counted tokens, and no span starts or ends in whitespace. */
function expectWellFormed(text: string, chunks: readonly TextChunk[], maxTokens: number): void {
  for (const chunk of chunks) {
    expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
    expect(chunk.start).toBeLessThan(chunk.end);
    const passage = text.slice(chunk.start, chunk.end);
    expect(countTokens(passage)).toBe(chunk.tokens);
    expect(passage).toBe(passage.trim());
  }
  for (let index = 1; index < chunks.length; index += 1) expect(chunks[index]!.start).toBeGreaterThan(chunks[index - 1]!.start);
}

/** Every token of the text is inside some chunk. */
function expectCovered(text: string, chunks: readonly TextChunk[]): void {
  const covered = new Uint8Array(text.length);
  for (const chunk of chunks) covered.fill(1, chunk.start, chunk.end);
  const missed = [...text].filter((char, index) => covered[index] === 0 && char.trim() !== '');
  expect(missed).toEqual([]);
}

describe('chunkText', () => {
  test('empty and blank text have no chunks', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n\t  \r\n')).toEqual([]);
  });

  test('a short note is one chunk spanning its text without the surrounding whitespace', () => {
    const text = '\n\n  Cheap flights to Lisbon in May.  \n';
    const chunks = chunkText(text);
    expect(passages(text, chunks)).toEqual(['Cheap flights to Lisbon in May.']);
    expect(chunks[0]).toMatchObject({ tokens: 7, heading: null });
  });

  test('markdown: headings start chunks once the chunk before is long enough, and name the section', () => {
    const para = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ') + '.';
    const text = [`# Travel`, '', para('lisbon', 40), '', `## Budget`, '', para('fare', 40), '', '## Tiny', '', 'One line.', '### Tinier', 'Two words.'].join('\n');
    const chunks = chunkText(text, { maxTokens: 100, minTokens: 20 });
    expectWellFormed(text, chunks, 100);
    expectCovered(text, chunks);
    expect(chunks.map((chunk) => chunk.heading)).toEqual(['Travel', 'Budget', 'Tiny']);
    expect(passages(text, chunks)[0]).toMatch(/^# Travel\n\nlisbon0 .* lisbon39\.$/s);
    expect(passages(text, chunks)[1]).toMatch(/^## Budget\n\nfare0 .* fare39\.$/s);
    // "Tiny" is shorter than minTokens, so "Tinier" joins it.
    expect(passages(text, chunks)[2]).toBe('## Tiny\n\nOne line.\n### Tinier\nTwo words.');
  });

  test('paragraphs pack up to the bound; a cut between paragraphs repeats the overlap', () => {
    const paragraphs = Array.from({ length: 12 }, (_, p) => Array.from({ length: 15 }, (_, w) => `p${p}w${w}`).join(' '));
    const text = paragraphs.join('\n\n');
    const chunks = chunkText(text, { maxTokens: 50, overlapTokens: 5, minTokens: 0 });
    expectWellFormed(text, chunks, 50);
    expectCovered(text, chunks);
    expect(chunks.length).toBeGreaterThan(3);
    for (let index = 1; index < chunks.length; index += 1) {
      const before = passages(text, chunks)[index - 1]!.split(/\s+/);
      const after = passages(text, chunks)[index]!.split(/\s+/);
      expect(after.slice(0, 5)).toEqual(before.slice(-5));
    }
  });

  test('no overlap crosses a heading', () => {
    const body = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    const text = `# One\n${body}\n# Two\n${body}`;
    const chunks = chunkText(text, { maxTokens: 80, overlapTokens: 10 });
    expect(passages(text, chunks).map((passage) => passage.slice(0, 5))).toEqual(['# One', '# Two']);
  });

  test('a huge single paragraph is cut into bounded, overlapping windows, at sentence ends where it can', () => {
    const sentence = (i: number) => `Sentence number ${i} talks about low cost airfare to the capital of Portugal.`;
    const text = Array.from({ length: 3000 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { maxTokens: 120, overlapTokens: 12 });
    expectWellFormed(text, chunks, 120);
    expectCovered(text, chunks);
    // 3000 sentences of 15 tokens: 45,000 tokens in windows of 120 that step at most 108.
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(45_000 / 120));
    expect(passages(text, chunks).slice(0, -1).every((passage) => passage.endsWith('.'))).toBe(true);
    for (let index = 1; index < chunks.length; index += 1) expect(chunks[index]!.start).toBeLessThan(chunks[index - 1]!.end);
  });

  test('a paragraph with no sentence end is cut exactly at the bound', () => {
    const text = Array.from({ length: 100 }, (_, i) => `t${i}`).join(' ');
    const chunks = chunkText(text, { maxTokens: 40, overlapTokens: 0 });
    expect(chunks.map((chunk) => chunk.tokens)).toEqual([40, 40, 20]);
    expect(passages(text, chunks)[1]!.startsWith('t40 ')).toBe(true);
  });

  test('CJK text: one token per character, cut at 。 and bounded', () => {
    const sentence = '里斯本的廉价机票在五月很受欢迎。';
    const text = sentence.repeat(40);
    expect(countTokens(sentence)).toBe(16);
    const chunks = chunkText(text, { maxTokens: 50, overlapTokens: 4 });
    expectWellFormed(text, chunks, 50);
    expectCovered(text, chunks);
    expect(passages(text, chunks).slice(0, -1).every((passage) => passage.endsWith('。'))).toBe(true);
    // Mixed scripts split at the script boundary: "Lisbon里斯本" is 1 + 3 tokens.
    expect(countTokens('Lisbon里斯本')).toBe(4);
  });

  test('plain text without markdown: lines of one paragraph stay together; # inside a fence is not a heading', () => {
    const text = 'first line\nsecond line\n\nthird\n\n```\n# not a heading\n\nstill code\n```\nafter';
    const chunks = chunkText(text, { maxTokens: 12, overlapTokens: 0, minTokens: 0 });
    expect(passages(text, chunks)).toEqual(['first line\nsecond line\n\nthird', '```\n# not a heading\n\nstill code\n```', 'after']);
    expect(chunks.every((chunk) => chunk.heading === null)).toBe(true);
  });

  test('words keep inner apostrophes; CRLF headings are headings', () => {
    expect(countTokens("Portugal's capital, don't")).toBe(4);
    const text = '# Title\r\nbody text\r\n';
    expect(chunkText(text)[0]).toMatchObject({ heading: 'Title', tokens: 4 });
  });

  test('options out of range are refused with the rule', () => {
    expect(() => chunkText('x', { maxTokens: 4 })).toThrow(/maxTokens must be a whole number of at least 8/);
    expect(() => chunkText('x', { maxTokens: 20, overlapTokens: 10 })).toThrow(/less than half/);
    expect(() => chunkText('x', { maxTokens: 20, minTokens: 21 })).toThrow(/minTokens/);
  });
});
