/**
 * Reads, downloads and writes through the filesystem service on a real `fs` host and the pad:
 * whole reads and the per-message cap, byte and line pages that never split a character, binary
 * bytes gated by the caller's model, streams, and concurrent conditional writes.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerOf, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';
import type { FsReadResult } from './types.js';

let fixture: FsFixture;
const ann = callerOf('ann');
const BIG = Array.from({ length: 10000 }, (_, index) => `line ${String(index).padStart(5, '0')} of the big text file\n`).join('');
const ACCENTS = 'é'.repeat(10);
const LINES = 'l1\nl2\nl3\nl4\nl5';
const PNG = randomBytes(2048);
const LARGE_PNG = randomBytes(300 * 1024);
const MP4 = randomBytes(1024);

beforeAll(async () => {
  fixture = await openFsFixture({ files: { 'text/small.txt': 'hello world\n', 'text/big.txt': BIG, 'text/accents.txt': ACCENTS, 'text/lines.txt': LINES } });
  await mkdir(join(fixture.files, 'media'));
  await writeFile(join(fixture.files, 'media', 'pic.png'), PNG);
  await writeFile(join(fixture.files, 'media', 'large.png'), LARGE_PNG);
  await writeFile(join(fixture.files, 'media', 'clip.mp4'), MP4);
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: fixture.files }, writable: true });
});

afterAll(async () => {
  await fixture.close();
});

async function pages(address: string, first: (offset: number) => Promise<FsReadResult>): Promise<string> {
  let text = '';
  let offset: number | undefined = 0;
  let calls = 0;
  while (offset !== undefined) {
    const page = await first(offset);
    text += page.content;
    expect(page.offset).toBe(offset);
    offset = page.nextOffset;
    calls += 1;
    expect(calls, address).toBeLessThan(1000);
  }
  return text;
}

describe('read', () => {
  it('returns a small object whole, the content once, with size and etag', async () => {
    const result = await fixture.fs.read(ann, 'notes://text/small.txt');
    expect(result).toMatchObject({ address: 'inseam://home/notes/text/small.txt', encoding: 'text', content: 'hello world\n', size: 12, offset: 0, length: 12, source: 'live', mime: 'text/plain' });
    expect(result.etag).toEqual(expect.any(String));
    expect(result.nextOffset).toBeUndefined();
    expect(JSON.stringify(result).split('hello world').length - 1).toBe(1);
  });

  it('refuses a whole read over the per-message cap with too_large, suggesting ranges', async () => {
    const refusal = await fixture.fs.read(ann, 'notes://text/big.txt').catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'too_large', details: { size: Buffer.byteLength(BIG), cap: 256 * 1024 } });
    expect((refusal as Error).message).toMatch(/range/);
    // A larger cap for this call reads it whole.
    expect((await fixture.fs.read(ann, 'notes://text/big.txt', { maxBytes: 1024 * 1024 })).content).toBe(BIG);
  });

  it('pages a large text by byte ranges with nextOffset until the end', async () => {
    const text = await pages('big', (offset) => fixture.fs.read(ann, 'notes://text/big.txt', { range: { offset }, maxBytes: 64 * 1024 }));
    expect(text).toBe(BIG);
  });

  it('never ends a text page inside a character', async () => {
    const first = await fixture.fs.read(ann, 'notes://text/accents.txt', { range: { offset: 0 }, maxBytes: 5 });
    expect(first).toMatchObject({ content: 'éé', length: 4, nextOffset: 4, size: 20 });
    expect(await pages('accents', (offset) => fixture.fs.read(ann, 'notes://text/accents.txt', { range: { offset }, maxBytes: 5 }))).toBe(ACCENTS);
  });

  it('reads line ranges, scanning across windows, with where to continue', async () => {
    const middle = await fixture.fs.read(ann, 'notes://text/lines.txt', { lines: { start: 2, count: 2 } });
    expect(middle).toMatchObject({ content: 'l2\nl3\n', offset: 3, length: 6, nextOffset: 9, lines: { start: 2, count: 2, next: 4 } });
    const tiny = await fixture.fs.read(ann, 'notes://text/lines.txt', { lines: { start: 4, count: 1 }, maxBytes: 4 });
    expect(tiny).toMatchObject({ content: 'l4\n', offset: 9, lines: { start: 4, count: 1, next: 5 } });
    const last = await fixture.fs.read(ann, 'notes://text/lines.txt', { lines: { start: 5 } });
    expect(last).toMatchObject({ content: 'l5', lines: { start: 5, count: 1 } });
    expect(last.nextOffset).toBeUndefined();
    expect(last.lines?.next).toBeUndefined();
    expect(await fixture.fs.read(ann, 'notes://text/lines.txt', { lines: { start: 9 } })).toMatchObject({ content: '', length: 0, lines: { start: 9, count: 0 } });
    const bigLines = await fixture.fs.read(ann, 'notes://text/big.txt', { lines: { start: 5001, count: 2 }, maxBytes: 4096 });
    expect(bigLines.content).toBe('line 05000 of the big text file\nline 05001 of the big text file\n');
  });

  it('refuses malformed read options, naming the argument', async () => {
    const cases: [object, string][] = [
      [{ maxBytes: 0 }, 'maxBytes'],
      [{ maxBytes: 64 * 1024 * 1024 }, 'maxBytes'],
      [{ range: { offset: -1 } }, 'range.offset'],
      [{ range: { offset: 0 }, lines: { start: 1 } }, 'lines'],
      [{ lines: { start: 0 } }, 'lines.start'],
    ];
    for (const [options, argument] of cases) {
      await expect(fixture.fs.read(ann, 'notes://text/small.txt', options), JSON.stringify(options)).rejects.toMatchObject({ code: 'invalid_argument', details: { argument } });
    }
    await expect(fixture.fs.read(ann, 'notes://media/pic.png', { lines: { start: 1 } })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'lines' } });
    await expect(fixture.fs.read(ann, 'notes://text')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(fixture.fs.read(ann, 'notes://text/missing.txt')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('binary reads', () => {
  it('gates image and video bytes on the caller model, with a marker otherwise', async () => {
    const person = await fixture.fs.read(ann, 'notes://media/pic.png');
    expect(person).toMatchObject({ encoding: 'base64', mime: 'image/png', size: PNG.length });
    expect(Buffer.from(person.content, 'base64').equals(PNG)).toBe(true);

    const blind = await fixture.fs.read(callerOf('ann', { model: { image: false, video: true } }), 'notes://media/pic.png');
    expect(blind).toMatchObject({ encoding: 'marker', omitted: { reason: 'model_capability', capability: 'image' }, size: PNG.length });
    expect(blind.content).toContain('inseam://home/notes/media/pic.png');
    expect(blind.content).toContain('image/png');

    const seeing = await fixture.fs.read(callerOf('ann', { model: { image: true } }), 'notes://media/pic.png');
    expect(Buffer.from(seeing.content, 'base64').equals(PNG)).toBe(true);
    const video = await fixture.fs.read(callerOf('ann', { model: { image: true } }), 'notes://media/clip.mp4');
    expect(video).toMatchObject({ encoding: 'marker', omitted: { reason: 'model_capability', capability: 'video' } });
  });

  it('answers a binary larger than the message cap with a marker, and serves it by ranges', async () => {
    const whole = await fixture.fs.read(ann, 'notes://media/large.png');
    expect(whole).toMatchObject({ encoding: 'marker', size: LARGE_PNG.length, length: 0, omitted: { reason: 'over_message_cap', cap: 256 * 1024 } });
    expect(whole.content).toContain('download inseam://home/notes/media/large.png');
    const part = await fixture.fs.read(ann, 'notes://media/large.png', { range: { offset: 1000, length: 5000 } });
    expect(part).toMatchObject({ encoding: 'base64', offset: 1000, length: 5000, nextOffset: 6000 });
    expect(Buffer.from(part.content, 'base64').equals(LARGE_PNG.subarray(1000, 6000))).toBe(true);
  });
});

describe('readStream', () => {
  async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  it('streams raw bytes, whole or a clipped range', async () => {
    const whole = await fixture.fs.readStream(ann, 'notes://media/large.png');
    expect(whole).toMatchObject({ size: LARGE_PNG.length, offset: 0, length: LARGE_PNG.length, source: 'live' });
    expect((await collect(whole.stream)).equals(LARGE_PNG)).toBe(true);
    const range = await fixture.fs.readStream(ann, 'notes://text/small.txt', { range: { offset: 6, length: 100 } });
    expect(range).toMatchObject({ size: 12, offset: 6, length: 6 });
    expect((await collect(range.stream)).toString()).toBe('world\n');
  });

  it('refuses directories and missing objects', async () => {
    await expect(fixture.fs.readStream(ann, 'notes://media')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(fixture.fs.readStream(ann, 'notes://')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(fixture.fs.readStream(ann, 'notes://media/none.png')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('write', () => {
  for (const host of ['notes', 'pad'] as const) {
    it(`lets exactly one of concurrent writes with the same ifMatch win on ${host}, never tearing the object`, async () => {
      const address = `${host}://race/target.bin`;
      const first = await fixture.fs.write(ann, address, 'original');
      const bodies = Array.from({ length: 6 }, (_, index) => Buffer.alloc(256 * 1024, 65 + index));
      const outcomes = await Promise.allSettled(bodies.map((body) => fixture.fs.write(ann, address, body, { ifMatch: first.etag! })));
      const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
      expect(won).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'precondition_failed' });
      }
      const stored = await fixture.fs.readStream(ann, address);
      const chunks: Uint8Array[] = [];
      for await (const chunk of stored.stream) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(bodies[won[0]!]!)).toBe(true);
    });
  }

  it('creates only when asked, and writes bytes as given', async () => {
    const created = await fixture.fs.write(ann, 'notes://new/one.txt', new TextEncoder().encode('made'), { createOnly: true });
    expect(created).toMatchObject({ address: 'inseam://home/notes/new/one.txt', type: 'file', size: 4 });
    await expect(fixture.fs.write(ann, 'notes://new/one.txt', 'again', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    expect(await readFile(join(fixture.files, 'new', 'one.txt'), 'utf8')).toBe('made');
    await expect(fixture.fs.write(ann, 'notes://new/two.txt', 42 as never)).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'content' } });
  });
});
