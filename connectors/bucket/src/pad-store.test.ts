import { hostPathOfKey, keyOfHostPath } from './keys.js';
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry } from '@inseam/connector';
import { createBucketHost, createBucketPort } from './factory.js';
import type { BucketHost } from './host.js';
import { streamOf, textOf } from './__fixtures__/providers.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

async function listAll(host: BucketHost, prefix?: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await host.list({ ...(prefix === undefined ? {} : { prefix }), ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return entries;
}

/** Every name below `dir`, relative, depth first (the pad's on-disk layout). */
async function diskNames(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    out.push(entry.name);
    if (entry.isDirectory()) out.push(...(await diskNames(join(dir, entry.name))).map((name) => `${entry.name}/${name}`));
  }
  return out.sort();
}

describe('the pad on disk', () => {
  let base: string;
  let padDir: string;
  let host: BucketHost;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'inseam-pad-test-'));
    padDir = join(base, 'pad');
    host = await createBucketHost({ provider: 'pad', path: padDir }, { hostPageSize: 2 });
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('lists in UTF-8 byte order, across folders and astral characters, page by page', async () => {
    const keys = ['😀', 'k0', 'k/01', 'k-top', '\uFF21x', 'k/02/deep', 'A', 'a'];
    for (const key of keys) await host.write(hostPathOfKey(key), streamOf(key));
    const keysOf = (entries: readonly { path: string }[]) => entries.map((entry) => keyOfHostPath(entry.path));
    expect(keysOf(await listAll(host))).toEqual(['A', 'a', 'k-top', 'k/01', 'k/02/deep', 'k0', '\uFF21x', '😀']);
    expect(keysOf(await listAll(host, 'k/0'))).toEqual(['k/01', 'k/02/deep']);
    expect(keysOf(await listAll(host, 'k'))).toEqual(['k-top', 'k/01', 'k/02/deep', 'k0']);
  });

  it('keeps keys that differ only in case or normalisation apart, with names no filesystem folds together', async () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    for (const key of ['Readme', 'readme', nfc, nfd]) await host.write(key, streamOf(`is ${key}`));
    for (const key of ['Readme', 'readme', nfc, nfd]) expect(await textOf(await host.read(key))).toBe(`is ${key}`);
    const names = await diskNames(padDir);
    expect(new Set(names.map((name) => name.normalize('NFC').toLowerCase())).size).toBe(names.length);
  });

  it('stores over-long segments under hashed names and still lists them by their real key', async () => {
    const long = 'é'.repeat(300);
    await host.write(hostPathOfKey(`${long}/inner.txt`), streamOf('inside'));
    await host.write(hostPathOfKey(`dir/${long}.txt`), streamOf('leaf'));
    expect((await listAll(host)).map((entry) => keyOfHostPath(entry.path))).toEqual([`dir/${long}.txt`, `${long}/inner.txt`]);
    expect(await textOf(await host.read(hostPathOfKey(`${long}/inner.txt`)))).toBe('inside');
    expect((await diskNames(padDir)).every((name) => name.split('/').every((part) => Buffer.byteLength(part) <= 255))).toBe(true);
    const port = await createBucketPort({ packageId: 'p', packageRoot: '/', source: 'pad', config: { provider: 'pad', path: padDir }, scope: 'project' });
    const root = await port.list('pad://');
    expect(root.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ['dir', 'directory'],
      [long, 'directory'],
    ]);
    await host.delete(`${long}/inner.txt`);
    expect((await diskNames(padDir)).filter((name) => /^dir\.d\/~[0-9a-f]{64}\.o$/.test(name))).toHaveLength(1);
    await host.delete(`dir/${long}.txt`);
    expect(await diskNames(padDir)).toEqual([]);
  });

  it('lets exactly one of many concurrent ifMatch writers win', async () => {
    const v1 = await host.write('race.txt', streamOf('v1'));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) => host.write('race.txt', streamOf(`writer ${index}`), { ifMatch: v1.etag! })),
    );
    const winners = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect((result.reason as { code: string }).code).toBe('precondition_failed');
    }
    expect(await textOf(await host.read('race.txt'))).toBe(`writer ${winners[0]}`);
  });

  it('keeps the old object whole when a write fails midway, and leaves no temp file', async () => {
    await host.write('doc.txt', streamOf('the original'));
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('partial new content'));
        controller.error(new Error('client went away'));
      },
    });
    await expect(host.write('doc.txt', failing)).rejects.toThrow('client went away');
    expect(await textOf(await host.read('doc.txt'))).toBe('the original');
    expect(await diskNames(padDir)).toEqual(['doc.txt.o']);
  });

  it('serves the old content to a reader while a replacement is still streaming in', async () => {
    await host.write('live.txt', streamOf('old'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('new '));
        await gate;
        controller.enqueue(new TextEncoder().encode('content'));
        controller.close();
      },
    });
    const writing = host.write('live.txt', slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await textOf(await host.read('live.txt'))).toBe('old');
    release();
    await writing;
    expect(await textOf(await host.read('live.txt'))).toBe('new content');
  });

  it('never follows a symlink planted in the pad out of it', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    const victim = await createBucketHost({ provider: 'pad', path: outside });
    await victim.write('secret.txt', streamOf('outside secret'));
    await symlink(outside, join(padDir, 'evil.d'));
    await symlink(join(outside, 'secret.txt.o'), join(padDir, 'link.txt.o'));
    await host.write('fine.txt', streamOf('inside'));
    expect(await codeOf(host.read('evil/secret.txt'))).toBe('containment_violation');
    expect(await codeOf(host.read('link.txt'))).toBe('containment_violation');
    expect((await listAll(host)).map((entry) => entry.path)).toEqual(['fine.txt']);
  });

  it('removes emptied folders after a delete, never the pad root', async () => {
    await host.write('a/b/c.txt', streamOf('x'));
    await host.write('a/keep.txt', streamOf('y'));
    await host.delete('a/b/c.txt');
    expect(await diskNames(padDir)).toEqual(['a.d', 'a.d/keep.txt.o']);
    await host.delete('a/keep.txt');
    expect(await diskNames(padDir)).toEqual([]);
    expect((await listAll(host)).length).toBe(0);
  });

  it('leaves damaged files and foreign names out of listings, sweeps stale temp files, keeps fresh ones', async () => {
    await host.write('ok.txt', streamOf('fine'));
    await writeFile(join(padDir, 'broken.o'), 'not a pad header');
    await writeFile(join(padDir, 'Not-Canonical.o'), 'whatever');
    await writeFile(join(padDir, '%61.o'), 'an alias of "a"');
    const stale = join(padDir, '.deadbeef.tmp');
    await writeFile(stale, 'left by a crash');
    const old = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
    await utimes(stale, old, old);
    await writeFile(join(padDir, '.fresh.tmp'), 'a write in progress');
    await mkdir(join(padDir, '.cafe.tmpdir'));
    await utimes(join(padDir, '.cafe.tmpdir'), old, old);
    expect((await listAll(host)).map((entry) => entry.path)).toEqual(['ok.txt']);
    expect(await codeOf(host.read('broken'))).toBe('unavailable');
    const names = await diskNames(padDir);
    expect(names).not.toContain('.deadbeef.tmp');
    expect(names).not.toContain('.cafe.tmpdir');
    expect(names).toContain('.fresh.tmp');
  });

  it('probes the pad directory: connected, or fs_unreachable once it is gone', async () => {
    const port = await createBucketPort({ packageId: 'p', packageRoot: '/', source: 'pad', config: { provider: 'pad', path: padDir }, scope: 'project' });
    expect(await port.probeConnection()).toEqual({ connected: true });
    await rm(padDir, { recursive: true });
    expect(await port.probeConnection()).toEqual({ connected: false, reason: 'fs_unreachable', code: 'not_found' });
  });

  it('honours delete with ifMatch on the port', async () => {
    const port = await createBucketPort({ packageId: 'p', packageRoot: '/', source: 'pad', config: { provider: 'pad', path: padDir }, scope: 'project' });
    const written = await port.write('pad://d.txt', 'v1');
    expect(await codeOf(port.delete('pad://d.txt', { ifMatch: 'not-the-etag' }))).toBe('precondition_failed');
    await port.delete('pad://d.txt', { ifMatch: written.etag! });
    expect(await codeOf(port.stat('pad://d.txt'))).toBe('not_found');
  });
});
