/**
 * Paged reads over synthetic windows: character alignment, tiny caps that must still make
 * progress, over-long lines, text that is not UTF-8, and markers for binary windows.
 */
import { describe, expect, it } from 'vitest';
import { syncedReader } from './catalog-view.js';
import { alignText, readPage, type Window, type WindowReader } from './paging.js';

const request = (cap: number) => ({ address: 'inseam://home/notes/a', cap, model: undefined });
const textReader = (text: string): WindowReader => syncedReader({ bytes: Buffer.from(text, 'utf8'), mime: 'text/plain' });

/** Bytes as a text window reader, decoding each window as a connector does. */
function bytesReader(bytes: Buffer): WindowReader {
  return async (offset, length) => {
    const slice = bytes.subarray(Math.min(offset, bytes.length), Math.min(bytes.length, offset + length));
    return { mime: 'text/plain', size: bytes.length, offset, length: slice.length, text: slice.toString('utf8'), binary: false };
  };
}

async function allPages(read: WindowReader, cap: number): Promise<{ text: string; pages: number }> {
  let text = '';
  let pages = 0;
  let offset: number | undefined = 0;
  while (offset !== undefined && pages < 10_000) {
    const page = await readPage(read, { range: { offset } }, request(cap), 'range');
    text += page.content;
    offset = page.nextOffset;
    pages += 1;
  }
  return { text, pages };
}

describe('alignText', () => {
  it('drops a sequence cut by the window end, and keeps a real U+FFFD', () => {
    const emoji = Buffer.from('a😀b', 'utf8');
    const window: Window = { mime: 'text/plain', size: emoji.length, offset: 0, length: 3, text: emoji.subarray(0, 3).toString('utf8'), binary: false };
    expect(alignText(window)).toEqual({ text: 'a', length: 1 });
    const real = Buffer.from('a\uFFFDb', 'utf8');
    const whole: Window = { mime: 'text/plain', size: real.length, offset: 0, length: 4, text: 'a\uFFFD', binary: false };
    // A real U+FFFD at a window end is re-read by the next page rather than lost.
    expect(alignText(whole)).toEqual({ text: 'a', length: 1 });
  });

  it('pages every text exactly, whatever the cap, even one smaller than a character', async () => {
    const text = 'a😀é—z'.repeat(7);
    for (const cap of [1, 2, 3, 4, 5, 7, 64]) {
      const { text: read } = await allPages(textReader(text), cap);
      if (cap >= 4) expect(read, `cap ${cap}`).toBe(text);
      else expect(Buffer.byteLength(read) > 0, `cap ${cap} makes progress`).toBe(true);
    }
  });
});

describe('line reads', () => {
  it('cuts a line longer than the cap, saying where the bytes continue', async () => {
    const page = await readPage(textReader(`${'x'.repeat(50)}\nshort\n`), { lines: { start: 1 } }, request(10), 'lines');
    expect(page).toMatchObject({ content: 'x'.repeat(10), length: 10, nextOffset: 10, lines: { start: 1, count: 0, next: 1 } });
  });

  it('counts lines in UTF-8 text across windows and refuses text that is not UTF-8', async () => {
    const text = 'één\ntwee\ndrie\n';
    expect(await readPage(textReader(text), { lines: { start: 3, count: 1 } }, request(5), 'lines')).toMatchObject({ content: 'drie\n', offset: Buffer.byteLength('één\ntwee\n') });
    const broken = Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\nmore\n')]);
    await expect(readPage(bytesReader(broken), { lines: { start: 3 } }, request(64), 'lines')).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'lines' } });
  });
});

describe('binary windows', () => {
  const binary = (bytes?: string): WindowReader => async (offset, length) => ({
    mime: 'image/png',
    size: 10,
    offset,
    length: Math.min(length, 10 - offset),
    text: '[image/png, 10 B]',
    binary: true,
    ...(bytes === undefined ? { inlineCap: 4 } : { bytes }),
  });

  it('passes the connector marker on when it left the bytes out, and gates bytes on the model', async () => {
    expect(await readPage(binary(), {}, request(64), 'whole')).toMatchObject({ encoding: 'marker', content: '[image/png, 10 B]', omitted: { reason: 'over_inline_cap', cap: 4 } });
    const gated = await readPage(binary('AAAA'), {}, { ...request(64), model: { image: false, video: false } }, 'whole');
    expect(gated).toMatchObject({ encoding: 'marker', omitted: { reason: 'model_capability', capability: 'image' } });
    expect(await readPage(binary('AAAA'), {}, { ...request(64), model: { image: true, video: false } }, 'whole')).toMatchObject({ encoding: 'base64', content: 'AAAA' });
  });
});
