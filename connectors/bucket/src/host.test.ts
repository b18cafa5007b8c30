import { hostPathOfKey, keyOfHostPath } from './keys.js';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import type { BucketHost } from './host.js';
import { openProvider, PROVIDERS, streamOf, textOf } from './__fixtures__/providers.js';
import type { ProviderFixture } from './__fixtures__/providers.js';

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

async function listAll(host: BucketHost, options: { prefix?: string; since?: string } = {}): Promise<{ entries: Entry[]; pages: number }> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await host.list({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { entries, pages };
}

describe.each(PROVIDERS)('bucket host (%s)', (name) => {
  let provider: ProviderFixture;
  beforeAll(async () => {
    provider = await openProvider(name);
  });
  afterAll(async () => {
    await provider.close();
  });

  it('describes itself with exactly one ordering dimension, on path', async () => {
    const host = await provider.host();
    const description = host.describe();
    const ordering = Object.entries(description.dimensions).filter(([, dimension]) => dimension.ordering === true);
    expect(ordering.map(([dimension]) => dimension)).toEqual(['path']);
    expect(Object.keys(description.dimensions)).toEqual(expect.arrayContaining(['path', 'size', 'mtime', 'mime']));
    expect(description.listing).toBe(name === 'pad' ? 'free' : 'metered');
    expect(description.capabilities).toEqual(['list', 'stat', 'read', 'write', 'delete']);
    if (name === 's3') {
      expect(description.auth.origins).toEqual([provider.s3rver!.endpoint]);
      expect(description.auth.present).toEqual([
        { in: 'aws_sigv4', accessKeyId: '{{accessKeyId}}', secretAccessKey: '{{secretAccessKey}}', region: 'us-east-1', service: 's3' },
      ]);
      expect(description.auth.fields?.map((field) => [field.name, field.secret])).toEqual([
        ['accessKeyId', false],
        ['secretAccessKey', true],
      ]);
    } else {
      expect(description.auth).toEqual({ acquire: { type: 'none' }, present: [], origins: [] });
    }
  });

  it('writes, stats, lists and reads an object back with an MD5 etag', async () => {
    const host = await provider.host();
    const written = await host.write('notes/hello.txt', streamOf('hello ', 'world'));
    expect(written).toMatchObject({ path: 'notes/hello.txt', size: 11, etag: md5('hello world'), mime: 'text/plain' });
    expect(Date.parse(written.mtime!)).not.toBeNaN();
    const stat = await host.stat('notes/hello.txt');
    expect(stat).toEqual(written);
    const { entries } = await listAll(host);
    expect(entries).toEqual([written]);
    expect(await textOf(await host.read('notes/hello.txt'))).toBe('hello world');
    if (name === 's3') {
      expect(written.nativeHash).toBe(`md5:${md5('hello world')}`);
      expect(written.extra).toEqual({ storageClass: 'STANDARD' });
    }
  });

  it('every declared dimension is on every listed entry, with its type', async () => {
    const host = await provider.host();
    await host.write('a.png', streamOf(new Uint8Array([1, 2, 3])));
    await host.write('b/c.json', streamOf('{}'));
    const { dimensions } = host.describe();
    const { entries } = await listAll(host);
    for (const entry of entries) {
      for (const dimension of Object.values(dimensions)) {
        const value = dimension.from.startsWith('extra.') ? entry.extra?.[dimension.from.slice(6)] : entry[dimension.from as keyof Entry];
        expect(value, `${entry.path} ${dimension.from}`).toBeDefined();
        if (dimension.type === 'bytes') expect(Number.isSafeInteger(value)).toBe(true);
        else expect(typeof value).toBe('string');
      }
    }
    expect(entries.map((entry) => entry.mime)).toEqual(['image/png', 'application/json']);
  });

  it('keeps an object "a" and an object "a/b" side by side (flat keys)', async () => {
    const host = await provider.host();
    await host.write('a', streamOf('object a'));
    await host.write('a/b', streamOf('object a/b'));
    const { entries } = await listAll(host);
    expect(entries.map((entry) => entry.path)).toEqual(['a', 'a/b']);
    expect(await textOf(await host.read('a'))).toBe('object a');
    expect(await textOf(await host.read('a/b'))).toBe('object a/b');
    await host.delete('a');
    expect(await host.stat('a')).toBeNull();
    expect(await textOf(await host.read('a/b'))).toBe('object a/b');
  });

  it('pages through a listing in key order with opaque cursors (three pages and more)', async () => {
    const host = await provider.host({}, { hostPageSize: 3 });
    // (s3rver lists in its own directory order, which is key order only when no name continues a
    // folder's name with a byte below '/'; the pad's own tests cover that case.)
    const keys = ['k/07', 'k/01', 'k/05', 'k/03', 'k/02', 'k/06', 'k/04', 'm', 'a0'];
    for (const key of keys) await host.write(key, streamOf(key));
    const { entries, pages } = await listAll(host);
    expect(pages).toBe(3);
    expect(entries.map((entry) => entry.path)).toEqual(['a0', 'k/01', 'k/02', 'k/03', 'k/04', 'k/05', 'k/06', 'k/07', 'm']);
    const first = await host.list({});
    expect(first.cursor).toMatch(/^c1\./);
    const second = await host.list({ cursor: first.cursor! });
    expect(second.entries.map((entry) => entry.path)).toEqual(['k/03', 'k/04', 'k/05']);
  });

  it('lists under a raw prefix, which need not end at a folder', async () => {
    const host = await provider.host({}, { hostPageSize: 2 });
    for (const key of ['logs/2024-01.txt', 'logs/2024-02.txt', 'logs/2025-01.txt', 'logs/2024x/deep.txt', 'other.txt']) {
      await host.write(key, streamOf(key));
    }
    const { entries } = await listAll(host, { prefix: 'logs/2024' });
    expect(entries.map((entry) => entry.path)).toEqual(['logs/2024-01.txt', 'logs/2024-02.txt', 'logs/2024x/deep.txt']);
    expect((await listAll(host, { prefix: 'nothing/' })).entries).toEqual([]);
  });

  it('reads since as a path on the ordering dimension: keys at or after it, in key order', async () => {
    const host = await provider.host();
    for (const path of ['logs/2024-01.txt', 'logs/2024-02.txt', 'logs/2024-03.txt', 'm%20n.txt']) await host.write(path, streamOf(path));
    const after = async (since: string) => (await listAll(host, { since })).entries.map((entry) => entry.path);
    expect(await after('logs/2024-02.txt')).toEqual(['logs/2024-02.txt', 'logs/2024-03.txt', 'm%20n.txt']);
    expect(await after('logs/2024-02')).toEqual(['logs/2024-02.txt', 'logs/2024-03.txt', 'm%20n.txt']);
    expect(await after('m%20n.txt')).toEqual(['m%20n.txt']);
    expect(await after('zzz')).toEqual([]);
    expect(await codeOf(host.list({ since: '' }))).toBe('invalid_argument');
    expect(await codeOf(host.list({ since: '/abs' }))).toBe('invalid_argument');
  });

  it('refuses order "newest" with unsupported naming the argument', async () => {
    const host = await provider.host();
    const error = await host.list({ order: 'newest' }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, 'unsupported')).toBe(true);
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({ kind: 'bucket', operation: 'list', argument: 'order' });
  });

  it('refuses a malformed cursor and a cursor from another listing', async () => {
    const host = await provider.host({}, { hostPageSize: 1 });
    await host.write('x/1', streamOf('1'));
    await host.write('x/2', streamOf('2'));
    const page = await host.list({ prefix: 'x/' });
    expect(page.cursor).toBeDefined();
    expect(await codeOf(host.list({ cursor: 'garbage' }))).toBe('invalid_argument');
    expect(await codeOf(host.list({ prefix: 'y/', cursor: page.cursor! }))).toBe('invalid_argument');
  });

  it('reads ranges [start, end), end exclusive and clipped', async () => {
    const host = await provider.host();
    await host.write('r.txt', streamOf('0123456789'));
    expect(await textOf(await host.read('r.txt', { range: [0, 4] }))).toBe('0123');
    expect(await textOf(await host.read('r.txt', { range: [4, 5] }))).toBe('4');
    expect(await textOf(await host.read('r.txt', { range: [7, 1000] }))).toBe('789');
    expect(await textOf(await host.read('r.txt', { range: [3, 3] }))).toBe('');
    expect(await textOf(await host.read('r.txt', { range: [10, 20] }))).toBe('');
    expect(await textOf(await host.read('r.txt', { range: [50, 60] }))).toBe('');
    expect(await codeOf(host.read('r.txt', { range: [5, 2] }))).toBe('invalid_argument');
    expect(await codeOf(host.read('r.txt', { range: [-1, 2] }))).toBe('invalid_argument');
    expect(await codeOf(host.read('missing.txt', { range: [0, 0] }))).toBe('not_found');
    expect(await codeOf(host.read('missing.txt', { range: [0, 4] }))).toBe('not_found');
  });

  it('stores and reads zero-length objects', async () => {
    const host = await provider.host();
    const entry = await host.write('empty.bin', streamOf());
    expect(entry).toMatchObject({ size: 0, etag: md5('') });
    expect(await host.stat('empty.bin')).toMatchObject({ size: 0 });
    expect(await textOf(await host.read('empty.bin'))).toBe('');
    expect(await textOf(await host.read('empty.bin', { range: [0, 10] }))).toBe('');
    expect((await listAll(host)).entries.map((listed) => listed.size)).toEqual([0]);
  });

  it('deletes, and a second delete or a read says not_found', async () => {
    const host = await provider.host();
    await host.write('gone.txt', streamOf('bye'));
    await host.delete('gone.txt');
    expect(await host.stat('gone.txt')).toBeNull();
    expect(await codeOf(host.read('gone.txt'))).toBe('not_found');
    expect(await codeOf(host.delete('gone.txt'))).toBe('not_found');
    expect((await listAll(host)).entries).toEqual([]);
  });

  it('replaces with ifMatch, or refuses without writing', async () => {
    const host = await provider.host();
    const v1 = await host.write('doc.txt', streamOf('version 1'));
    if (name === 'pad') {
      const v2 = await host.write('doc.txt', streamOf('version 2'), { ifMatch: v1.etag! });
      expect(v2.etag).toBe(md5('version 2'));
      expect(await codeOf(host.write('doc.txt', streamOf('version 3'), { ifMatch: v1.etag! }))).toBe('precondition_failed');
      expect(await codeOf(host.write('new.txt', streamOf('x'), { ifMatch: v1.etag! }))).toBe('precondition_failed');
      expect(await textOf(await host.read('doc.txt'))).toBe('version 2');
      expect(await host.stat('new.txt')).toBeNull();
    } else {
      // s3rver ignores If-Match; the store detects that and refuses rather than write unconditionally.
      const error = await host.write('doc.txt', streamOf('version 2'), { ifMatch: v1.etag! }).catch((caught: unknown) => caught);
      expect(hasErrorCode(error, 'unsupported')).toBe(true);
      expect((error as { details: Record<string, unknown> }).details).toMatchObject({ operation: 'write', argument: 'ifMatch' });
      expect(await textOf(await host.read('doc.txt'))).toBe('version 1');
      // The support probe left nothing behind.
      expect((await listAll(host)).entries.map((entry) => entry.path)).toEqual(['doc.txt']);
    }
  });

  it('round-trips awkward names through list, stat and read', async () => {
    const host = await provider.host();
    const names = [
      `hello? sausage/êé/Hello, 世界/" ' @ < > & ?/z.txt`,
      'with space.txt',
      'hash#tag.md',
      '100% sure.txt',
      ' leading and trailing ',
      'plus+sign=and&amp;.txt',
      'emoji 😀/𝄞 clef.txt',
      'UPPER/lower',
    ];
    for (const key of names) await host.write(hostPathOfKey(key), streamOf(`content of ${key}`));
    const { entries } = await listAll(host);
    expect(entries.map((entry) => entry.path).sort()).toEqual(names.map(hostPathOfKey).sort());
    expect(entries.every((entry) => !/[ ?#"'<>&]/.test(entry.path))).toBe(true);
    for (const entry of entries) {
      const stat = await host.stat(entry.path);
      expect(stat).toEqual(entry);
      expect(await textOf(await host.read(entry.path))).toBe(`content of ${keyOfHostPath(entry.path)}`);
    }
  });

  it('refuses paths that are not canonical keys', async () => {
    const host = await provider.host();
    for (const path of ['', '/lead', 'trail/', 'a//b', '../up', 'a/./b', 'a/../b', 'nul\0byte']) {
      expect(await codeOf(host.stat(path)), JSON.stringify(path)).toBe('invalid_path');
      expect(await codeOf(host.write(path, streamOf('x'))), JSON.stringify(path)).toBe('invalid_path');
    }
    expect(await codeOf(host.stat('x'.repeat(1100)))).toBe('invalid_path');
  });
});
