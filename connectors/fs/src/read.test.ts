import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Connector } from '@inseam/connector';
import { createFsConnector } from './index.js';
import { makeSandbox, streamBytes } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
let box: Sandbox;
let host: Connector;

beforeAll(async () => {
  box = await makeSandbox();
  host = box.connector.host();
  await writeFile(`${box.root}/hello.txt`, 'hello, wörld');
  await writeFile(`${box.root}/pixel.png`, PNG);
  await writeFile(`${box.root}/doc.pdf`, Buffer.alloc(3000, 7));
  await writeFile(`${box.root}/notes`, 'plain text without an extension\n');
  await writeFile(`${box.root}/blob.bin`, Buffer.from([0, 1, 2, 3, 0, 255]));
  await writeFile(`${box.root}/mystery`, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0]));
  await writeFile(`${box.root}/big.md`, 'x'.repeat(5000));
  await writeFile(`${box.root}/large.bin`, Buffer.alloc(3 * 1024 * 1024 + 5, 1));
  await mkdir(`${box.root}/folder`);
});
afterAll(() => box.cleanup());

describe('port read', () => {
  test('text comes back decoded, with size, etag and mime', async () => {
    const result = await box.connector.read('box://hello.txt');
    expect(result).toMatchObject({ text: 'hello, wörld', mime: 'text/plain', size: 13 });
    expect(result.bytes).toBeUndefined();
    expect(result.etag).toBe((await box.connector.stat('box://hello.txt')).etag);
  });

  test('an unknown name is sniffed: text reads as text/plain, binary as octet-stream bytes', async () => {
    expect(await box.connector.read('box://notes')).toMatchObject({ mime: 'text/plain', text: 'plain text without an extension\n' });
    const mystery = await box.connector.read('box://mystery');
    expect(mystery.mime).toBe('application/octet-stream');
    expect(Buffer.from(mystery.bytes!, 'base64')).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0]));
  });

  test('images and PDFs within their cap come back as base64 bytes with a short marker', async () => {
    const image = await box.connector.read('box://pixel.png');
    expect(image.mime).toBe('image/png');
    expect(Buffer.from(image.bytes!, 'base64')).toEqual(PNG);
    expect(image.text).toMatch(/^\[image\/png, \d+ B\]$/);
    const pdf = await box.connector.read('box://doc.pdf');
    expect(Buffer.from(pdf.bytes!, 'base64')).toEqual(Buffer.alloc(3000, 7));
  });

  test('over the per-MIME inline cap, bytes are left out and a marker says why', async () => {
    const capped = createFsConnector(box.context({ inlineCaps: { image: 10, pdf: 10 } }));
    const image = await capped.read('box://pixel.png');
    expect(image.bytes).toBeUndefined();
    expect(image.omitted).toEqual({ reason: 'over_inline_cap', cap: 10 });
    expect(image.text).toContain('inline cap');
    expect((await capped.read('box://doc.pdf')).omitted).toEqual({ reason: 'over_inline_cap', cap: 10 });
    // A range within the cap brings bytes back, so a caller can page a binary file.
    const slice = await capped.read('box://pixel.png', { range: { offset: 0, length: 8 } });
    expect(Buffer.from(slice.bytes!, 'base64')).toEqual(PNG.subarray(0, 8));
    expect(slice.range).toEqual({ offset: 0, length: 8 });
    // Other binary types use the default 1 MiB cap.
    expect((await box.connector.read('box://large.bin')).omitted).toEqual({ reason: 'over_inline_cap', cap: 1024 * 1024 });
  });

  test('byte ranges: inside, clipped at the end, past the end, and bad ranges', async () => {
    expect(await box.connector.read('box://hello.txt', { range: { offset: 7, length: 6 } })).toMatchObject({ text: 'wörld', range: { offset: 7, length: 6 }, size: 13 });
    expect(await box.connector.read('box://hello.txt', { range: { offset: 10, length: 100 } })).toMatchObject({ text: 'rld', range: { offset: 10, length: 3 } });
    expect(await box.connector.read('box://hello.txt', { range: { offset: 7 } })).toMatchObject({ text: 'wörld' });
    expect(await box.connector.read('box://hello.txt', { range: { offset: 50, length: 4 } })).toMatchObject({ text: '', range: { offset: 50, length: 0 } });
    await expect(box.connector.read('box://hello.txt', { range: { offset: -1 } })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(box.connector.read('box://hello.txt', { range: { offset: 0, length: -2 } })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(box.connector.read('box://hello.txt', { range: { offset: 0.5 } })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('reads either side of the 64 KiB line between this-thread and pool reads return the exact bytes', async () => {
    // Every byte differs from its neighbours, so a short, shifted or stale read cannot pass.
    const bytes = Buffer.from(Array.from({ length: 64 * 1024 + 2 }, (_, index) => index % 251));
    await writeFile(`${box.root}/edge.bin`, bytes);
    for (const length of [1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1]) {
      const result = await box.connector.read('box://edge.bin', { range: { offset: 1, length } });
      expect(Buffer.from(result.bytes!, 'base64').equals(bytes.subarray(1, 1 + length))).toBe(true);
    }
  });

  test('text over the text cap is too_large without a range; ranges page through it, clipped to the cap', async () => {
    const small = createFsConnector(box.context({ textCapBytes: 1000 }));
    await expect(small.read('box://big.md')).rejects.toMatchObject({ code: 'too_large', details: { size: 5000, cap: 1000 } });
    const page = await small.read('box://big.md', { range: { offset: 4500, length: 5000 } });
    expect(page.range).toEqual({ offset: 4500, length: 500 });
    const clipped = await small.read('box://big.md', { range: { offset: 0, length: 4000 } });
    expect(clipped.range).toEqual({ offset: 0, length: 1000 });
    expect(clipped.text).toBe('x'.repeat(1000));
  });

  test('a folder is is_a_directory, a missing file not_found', async () => {
    await expect(box.connector.read('box://folder')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(box.connector.read('box://')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(box.connector.read('box://nothing.txt')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('host read', () => {
  test('streams the whole file, and [start, end) ranges with end exclusive, clipped to the file', async () => {
    expect((await streamBytes(await host.read('hello.txt'))).toString()).toBe('hello, wörld');
    expect((await streamBytes(await host.read('hello.txt', { range: [0, 5] }))).toString()).toBe('hello');
    expect((await streamBytes(await host.read('hello.txt', { range: [7, 100] }))).toString()).toBe('wörld');
    expect(await streamBytes(await host.read('hello.txt', { range: [3, 3] }))).toHaveLength(0);
    expect(await streamBytes(await host.read('hello.txt', { range: [40, 50] }))).toHaveLength(0);
    await expect(host.read('hello.txt', { range: [5, 2] })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host.read('hello.txt', { range: [-1, 2] })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('large files stream in chunks of at most 1 MiB that the consumer owns', async () => {
    const reader = (await host.read('large.bin')).getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.map((chunk) => chunk.byteLength)).toEqual([1024 * 1024, 1024 * 1024, 1024 * 1024, 5]);
    // Each chunk has a buffer of its own, never one shared with another chunk.
    expect(new Set(chunks.map((chunk) => chunk.buffer)).size).toBe(4);
    expect(chunks.every((chunk) => chunk.every((byte) => byte === 1))).toBe(true);
  });

  test('a file that shrinks while streaming ends where it now ends, with no byte beyond what was read', async () => {
    await writeFile(`${box.root}/shrinking.bin`, Buffer.alloc(3 * 1024 * 1024, 2));
    const reader = (await host.read('shrinking.bin')).getReader();
    const first = await reader.read();
    await truncate(`${box.root}/shrinking.bin`, 1024 * 1024 + 512 * 1024);
    const second = await reader.read();
    expect([first.value?.byteLength, second.value?.byteLength]).toEqual([1024 * 1024, 512 * 1024]);
    // The short chunk's buffer holds exactly what was read: no uninitialised memory behind it.
    expect(second.value?.buffer.byteLength).toBe(512 * 1024);
    expect(second.value?.every((byte) => byte === 2)).toBe(true);
    expect((await reader.read()).done).toBe(true);
  });

  test('a BYOB reader gets the bytes read straight into its own buffer', async () => {
    const reader = (await host.read('hello.txt', { range: [7, 13] })).getReader({ mode: 'byob' });
    const first = await reader.read(new Uint8Array(4));
    expect(Buffer.from(first.value!).toString()).toBe('wör');
    const second = await reader.read(new Uint8Array(16));
    expect(Buffer.from(second.value!).toString()).toBe('ld');
    expect((await reader.read(new Uint8Array(4))).done).toBe(true);
  });

  test('cancelling a stream releases the file', async () => {
    const stream = await host.read('large.bin');
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    expect(await streamBytes(await host.read('hello.txt', { range: [0, 1] }))).toEqual(Buffer.from('h'));
  });

  test('stat is null for folders and missing paths, and matches the listing for files', async () => {
    expect(await host.stat('folder')).toBeNull();
    expect(await host.stat('missing.txt')).toBeNull();
    const listed = (await host.list({ prefix: 'hello' })).entries;
    expect(listed).toEqual([await host.stat('hello.txt')]);
    await expect(host.read('folder')).rejects.toMatchObject({ code: 'is_a_directory' });
  });
});
