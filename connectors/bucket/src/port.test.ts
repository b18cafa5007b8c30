import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import type { BucketPort } from './port.js';
import { openProvider, PROVIDERS } from './__fixtures__/providers.js';
import type { ProviderFixture } from './__fixtures__/providers.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

describe.each(PROVIDERS)('bucket ConnectorPort (%s)', (name) => {
  let provider: ProviderFixture;
  beforeAll(async () => {
    provider = await openProvider(name);
  });
  afterAll(async () => {
    await provider.close();
  });

  const uri = (port: BucketPort, path: string): string => `${port.source}://${path}`;

  it('lists the direct children of a folder, folders as directories, with opaque cursors across pages', async () => {
    const port = await provider.port();
    for (const path of ['docs/a.txt', 'docs/b.txt', 'docs/sub/c.txt', 'docs/sub/deeper/d.txt', 'docs/e.txt', 'top.txt']) {
      await port.write(uri(port, path), path);
    }
    const root = await port.list(uri(port, ''));
    expect(root.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ['docs', 'directory'],
      ['top.txt', 'file'],
    ]);
    const seen: ConnectorEntry[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await port.list(uri(port, 'docs'), { limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.entries);
      cursor = page.cursor;
      pages += 1;
    } while (cursor !== undefined);
    // S3 counts folders toward the page size; s3rver does not, so its last page holds two.
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen.map((entry) => entry.uri)).toEqual([uri(port, 'docs/a.txt'), uri(port, 'docs/b.txt'), uri(port, 'docs/e.txt'), uri(port, 'docs/sub')]);
    expect(seen[0]).toMatchObject({ name: 'a.txt', type: 'file', size: 10, mime: 'text/plain', etag: createHash('md5').update('docs/a.txt').digest('hex') });
    expect(await codeOf(port.list(uri(port, 'docs'), { cursor: 'nope' }))).toBe('invalid_argument');
    expect(await codeOf(port.list(uri(port, 'docs'), { limit: 0 }))).toBe('invalid_argument');
  });

  it('answers not_found for a missing folder and not_a_directory for an object', async () => {
    const port = await provider.port();
    await port.write(uri(port, 'file.txt'), 'x');
    expect(await codeOf(port.list(uri(port, 'missing')))).toBe('not_found');
    expect(await codeOf(port.list(uri(port, 'file.txt')))).toBe('not_a_directory');
  });

  it('reads text, ranges, images inline or as a marker over the cap, and other binaries as a marker', async () => {
    const port = await provider.port({ inlineImageBytes: 16, maxTextBytes: 64 });
    await port.write(uri(port, 'note.md'), '# héllo\nworld');
    const note = await port.read(uri(port, 'note.md'));
    expect(note).toMatchObject({ text: '# héllo\nworld', mime: 'text/markdown', size: 14 });
    expect(note.bytes).toBeUndefined();
    const ranged = await port.read(uri(port, 'note.md'), { range: { offset: 9, length: 5 } });
    expect(ranged).toMatchObject({ text: 'world', size: 14, range: { offset: 9, length: 5 } });
    expect(await port.read(uri(port, 'note.md'), { range: { offset: 100 } })).toMatchObject({ text: '', range: { offset: 100, length: 0 } });
    expect(await codeOf(port.read(uri(port, 'note.md'), { range: { offset: -1 } }))).toBe('invalid_argument');

    await port.write(uri(port, 'small.png'), PNG);
    const small = await port.read(uri(port, 'small.png'));
    expect(small).toMatchObject({ mime: 'image/png', size: 12, bytes: Buffer.from(PNG).toString('base64') });
    await port.write(uri(port, 'big.png'), new Uint8Array(17));
    const big = await port.read(uri(port, 'big.png'));
    expect(big.bytes).toBeUndefined();
    expect(big.omitted).toEqual({ reason: 'over_inline_cap', cap: 16 });
    expect(big.text).toBe('[image/png, 17 B: over the 16 B inline cap; not included]');

    await port.write(uri(port, 'archive.zip'), Uint8Array.from([0x50, 0x4b, 3, 4]));
    const zip = await port.read(uri(port, 'archive.zip'));
    expect(zip.bytes).toBeUndefined();
    expect(zip.text).toMatch(/^\[application\/zip, 4 B: binary content/);

    await port.write(uri(port, 'README'), 'plain text without an extension');
    expect((await port.read(uri(port, 'README'))).text).toBe('plain text without an extension');
    await port.write(uri(port, 'blob'), Uint8Array.from([0, 1, 2, 255]));
    expect((await port.read(uri(port, 'blob'))).text).toMatch(/binary content/);

    await port.write(uri(port, 'long.txt'), 'x'.repeat(65));
    const tooLarge = await port.read(uri(port, 'long.txt')).catch((error: unknown) => error);
    expect((tooLarge as { code: string }).code).toBe('too_large');
    expect((tooLarge as Error).message).toMatch(/64 B text cap; read it in ranges/);
    expect((await port.read(uri(port, 'long.txt'), { range: { offset: 0, length: 10 } })).text).toBe('x'.repeat(10));
  });

  it('uses the stored content type on read when the key says nothing', async () => {
    const port = await provider.port();
    await port.write(uri(port, 'photo'), PNG, { mime: 'image/png' });
    const read = await port.read(uri(port, 'photo'));
    expect(read.mime).toBe('image/png');
    expect(read.bytes).toBe(Buffer.from(PNG).toString('base64'));
  });

  it('refuses to write onto a folder or below an object, and into the root', async () => {
    const port = await provider.port();
    await port.write(uri(port, 'dir/inner.txt'), 'x');
    await port.write(uri(port, 'plain'), 'x');
    expect(await codeOf(port.write(uri(port, 'dir'), 'x'))).toBe('is_a_directory');
    expect(await codeOf(port.write(uri(port, 'plain/child.txt'), 'x'))).toBe('not_a_directory');
    expect(await codeOf(port.write(uri(port, ''), 'x'))).toBe('is_a_directory');
    expect(await codeOf(port.read(uri(port, 'dir')))).toBe('is_a_directory');
  });

  it('stats objects, folders and the root', async () => {
    const port = await provider.port();
    const written = await port.write(uri(port, 'a/b.txt'), 'hello');
    expect(await port.stat(uri(port, 'a/b.txt'))).toEqual(written);
    expect(await port.stat(uri(port, 'a'))).toEqual({ uri: uri(port, 'a'), name: 'a', type: 'directory' });
    expect(await port.stat(uri(port, ''))).toEqual({ uri: uri(port, ''), name: '', type: 'directory' });
    expect(await codeOf(port.stat(uri(port, 'nope')))).toBe('not_found');
  });

  it('deletes objects, refuses a non-empty folder without recursive, and removes a tree with it', async () => {
    const port = await provider.port();
    for (const path of ['t/1.txt', 't/2.txt', 't/x/3.txt', 'keep.txt']) await port.write(uri(port, path), path);
    await port.delete(uri(port, 't/1.txt'));
    expect(await codeOf(port.stat(uri(port, 't/1.txt')))).toBe('not_found');
    expect(await codeOf(port.delete(uri(port, 't/1.txt')))).toBe('not_found');
    expect(await codeOf(port.delete(uri(port, 't')))).toBe('precondition_failed');
    await port.delete(uri(port, 't'), { recursive: true });
    expect(await codeOf(port.list(uri(port, 't')))).toBe('not_found');
    expect((await port.list(uri(port, ''))).entries.map((entry) => entry.name)).toEqual(['keep.txt']);
    expect(await codeOf(port.delete(uri(port, '')))).toBe('permission_denied');
  });

  it('walks depth first, synthesising folders, and honours maxDepth', async () => {
    const port = await provider.port();
    for (const path of ['w/a.txt', 'w/b/c.txt', 'w/b/d/e.txt', 'w/f.txt']) await port.write(uri(port, path), path);
    const all = await collect(port.walk(uri(port, 'w')));
    expect(all.map((entry) => `${entry.type[0]}:${entry.uri.slice(uri(port, 'w/').length)}`)).toEqual([
      'f:a.txt',
      'd:b',
      'f:b/c.txt',
      'd:b/d',
      'f:b/d/e.txt',
      'f:f.txt',
    ]);
    const shallow = await collect(port.walk(uri(port, 'w'), { maxDepth: 1 }));
    expect(shallow.map((entry) => entry.name)).toEqual(['a.txt', 'b', 'f.txt']);
    const two = await collect(port.walk(uri(port, 'w'), { maxDepth: 2 }));
    expect(two.map((entry) => entry.name)).toEqual(['a.txt', 'b', 'c.txt', 'd', 'f.txt']);
    expect(await codeOf(collect(port.walk(uri(port, 'w/a.txt'))))).toBe('not_a_directory');
  });

  it('scans text content and skips binary and oversized objects', async () => {
    const port = await provider.port({ maxTextBytes: 32 });
    await port.write(uri(port, 's/a.txt'), 'alpha');
    await port.write(uri(port, 's/b.png'), PNG);
    await port.write(uri(port, 's/c.log'), 'y'.repeat(40));
    await port.write(uri(port, 's/d'), Uint8Array.from([0, 159, 146, 150]));
    const chunks = await collect(port.scanContent(uri(port, 's')));
    expect(chunks.map((chunk) => [chunk.entry.name, chunk.text ?? chunk.skipped])).toEqual([
      ['a.txt', 'alpha'],
      ['b.png', 'binary'],
      ['c.log', 'too_large'],
      ['d', 'binary'],
    ]);
  });

  it('refuses malformed URIs before touching the store', async () => {
    const port = await provider.port();
    expect(await codeOf(port.read('other://x'))).toBe('invalid_uri');
    expect(await codeOf(port.read(uri(port, 'a/../b')))).toBe('invalid_uri');
    expect(await codeOf(port.read(uri(port, 'a%2Fb')))).toBe('invalid_uri');
    expect(await codeOf(port.read(uri(port, 'x'.repeat(1100))))).toBe('invalid_uri');
  });

  it('round-trips awkward names through their URIs', async () => {
    const port = await provider.port();
    const path = `hello? sausage/êé/Hello, 世界/" ' @ < > & ?/z.txt`;
    const segments = path.split('/').map((segment) => encodeURIComponent(segment));
    const written = await port.write(uri(port, segments.join('/')), 'awkward');
    const listed = await port.list(uri(port, segments.slice(0, -1).join('/')));
    expect(listed.entries).toEqual([written]);
    expect(await port.stat(written.uri)).toEqual(written);
    expect((await port.read(written.uri)).text).toBe('awkward');
    expect(written.name).toBe('z.txt');
  });

  it('has no host path for any object', async () => {
    const port = await provider.port();
    await port.write(uri(port, 'x.txt'), 'x');
    expect(await codeOf(port.resolveOsUri(uri(port, 'x.txt')))).toBe('os_uri_unresolvable');
  });

  it('answers createOnly: already_exists on the pad; unsupported where the endpoint cannot enforce it', async () => {
    const port = await provider.port();
    if (name === 'pad') {
      await port.write(uri(port, 'once.txt'), 'first', { createOnly: true });
      expect(await codeOf(port.write(uri(port, 'once.txt'), 'second', { createOnly: true }))).toBe('already_exists');
      expect((await port.read(uri(port, 'once.txt'))).text).toBe('first');
      return;
    }
    const refused = await port.write(uri(port, 'once.txt'), 'first', { createOnly: true }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'unsupported', details: { operation: 'write', argument: 'createOnly' } });
    expect(await codeOf(port.stat(uri(port, 'once.txt')))).toBe('not_found');
  });
});
