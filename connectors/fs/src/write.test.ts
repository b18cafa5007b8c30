import { readFileSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFsConnector } from './index.js';
import { makeSandbox, streamBytes } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

function tempFilesIn(directory: string): string[] {
  return readdirSync(directory).filter((name) => name.startsWith('.inseam-'));
}

describe('write', () => {
  test('creates a file (and its missing parents) from a string or bytes and returns its entry', async () => {
    const entry = await box.connector.write('box://a/b/c/new.txt', 'fresh');
    expect(entry).toMatchObject({ uri: 'box://a/b/c/new.txt', name: 'new.txt', type: 'file', size: 5, mime: 'text/plain' });
    expect(readFileSync(`${box.root}/a/b/c/new.txt`, 'utf8')).toBe('fresh');
    expect(entry.etag).toBe((await box.connector.stat('box://a/b/c/new.txt')).etag);
    const bytes = await box.connector.write('box://a/raw.bin', new Uint8Array([1, 2, 3]));
    expect(bytes.size).toBe(3);
    expect(readFileSync(`${box.root}/a/raw.bin`)).toEqual(Buffer.from([1, 2, 3]));
    expect(tempFilesIn(`${box.root}/a`)).toEqual([]);
  });

  test('names with spaces and unicode round-trip through their encoded URI', async () => {
    const entry = await box.connector.write('box://docs/my%20n%C3%B6te%20%231.md', 'hi');
    expect(entry.uri).toBe('box://docs/my%20n%C3%B6te%20%231.md');
    expect(readFileSync(`${box.root}/docs/my nöte #1.md`, 'utf8')).toBe('hi');
  });

  test('replacing keeps the permission bits and changes the etag', async () => {
    const first = await box.connector.write('box://mode.sh', 'echo 1');
    await chmod(`${box.root}/mode.sh`, 0o750);
    const second = await box.connector.write('box://mode.sh', 'echo 2');
    expect(statSync(`${box.root}/mode.sh`).mode & 0o777).toBe(0o750);
    expect(second.etag).not.toBe(first.etag);
  });

  test('same-size writes in quick succession always get a new etag, so a stale ifMatch never matches', async () => {
    const etags = new Set<string>();
    let previous = (await box.connector.write('box://tick.txt', 'v000')).etag!;
    etags.add(previous);
    for (let index = 1; index < 60; index++) {
      const entry = await box.connector.write('box://tick.txt', `v${String(index).padStart(3, '0')}`, { ifMatch: previous });
      expect(entry.size).toBe(4);
      etags.add(entry.etag!);
      await expect(box.connector.write('box://tick.txt', 'nope', { ifMatch: previous })).rejects.toMatchObject({ code: 'precondition_failed' });
      previous = entry.etag!;
    }
    expect(etags.size).toBe(60);
    expect(readFileSync(`${box.root}/tick.txt`, 'utf8')).toBe('v059');
  });

  test('a replacement always gets a later mtime than the version it replaces, even when the clock is behind it', async () => {
    await box.connector.write('box://future.txt', 'same');
    const future = Date.now() / 1000 + 3600;
    await utimes(`${box.root}/future.txt`, future, future);
    const before = statSync(`${box.root}/future.txt`);
    const replaced = await box.connector.write('box://future.txt', 'same', { ifMatch: (await box.connector.stat('box://future.txt')).etag! });
    const after = statSync(`${box.root}/future.txt`);
    expect(after.mtimeMs).toBeGreaterThan(before.mtimeMs);
    expect(after.mtimeMs - before.mtimeMs).toBeLessThan(1);
    expect(replaced.etag).toBe((await box.connector.stat('box://future.txt')).etag);
  });

  test('two concurrent writes with the same ifMatch: exactly one wins, the file is the winner, never torn', async () => {
    const other = createFsConnector(box.context());
    for (let round = 0; round < 20; round++) {
      const base = await box.connector.write('box://race.txt', 'base');
      const a = 'A'.repeat(64 * 1024);
      const b = 'B'.repeat(64 * 1024);
      // Half the rounds race two instances over the same folder: the lock is per real path.
      const second = round % 2 === 0 ? box.connector : other;
      const results = await Promise.allSettled([
        box.connector.write('box://race.txt', a, { ifMatch: base.etag! }),
        second.write('box://race.txt', b, { ifMatch: base.etag! }),
      ]);
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result) => result.status === 'rejected');
      expect(won).toHaveLength(1);
      expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'precondition_failed' });
      const content = readFileSync(`${box.root}/race.txt`, 'utf8');
      expect(content).toBe(results[0].status === 'fulfilled' ? a : b);
    }
    expect(tempFilesIn(box.root)).toEqual([]);
  });

  test('readers see the old or the new content, never a mix', async () => {
    const versions = ['x'.repeat(512 * 1024), 'y'.repeat(512 * 1024)];
    await box.connector.write('box://swap.txt', versions[0]!);
    let writing = true;
    const writer = (async () => {
      for (let index = 0; index < 30; index++) await box.connector.write('box://swap.txt', versions[index % 2]!);
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const content = readFileSync(`${box.root}/swap.txt`, 'utf8');
      expect(versions).toContain(content);
      reads += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });

  test('createOnly creates a new file and refuses an existing one, writing nothing', async () => {
    await box.connector.write('box://once.txt', 'first', { createOnly: true });
    await expect(box.connector.write('box://once.txt', 'second', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    expect(readFileSync(`${box.root}/once.txt`, 'utf8')).toBe('first');
    expect(tempFilesIn(box.root)).toEqual([]);
  });

  test('refusals: a folder, the root, a file as parent, ifMatch on nothing', async () => {
    await mkdir(`${box.root}/folder`, { recursive: true });
    await writeFile(`${box.root}/plain.txt`, 'plain');
    await expect(box.connector.write('box://folder', 'x')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(box.connector.write('box://', 'x')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(box.connector.write('box://plain.txt/child.txt', 'x')).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(box.connector.write('box://ghost.txt', 'x', { ifMatch: 'anything' })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(box.connector.write('box://plain.txt', 'x', { ifMatch: 'stale' })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(readFileSync(`${box.root}/plain.txt`, 'utf8')).toBe('plain');
    expect(() => statSync(`${box.root}/ghost.txt`)).toThrow();
  });

  test('the host write streams its body and honours ifMatch', async () => {
    const host = box.connector.host();
    const body = new Blob(['streamed ', 'body']).stream();
    const entry = await host.write!('host/dir/file.txt', body);
    expect(entry).toMatchObject({ path: 'host/dir/file.txt', size: 13, mime: 'text/plain' });
    expect(await streamBytes(await host.read('host/dir/file.txt'))).toEqual(Buffer.from('streamed body'));
    await expect(host.write!('host/dir/file.txt', new Blob(['x']).stream(), { ifMatch: 'stale' })).rejects.toMatchObject({ code: 'precondition_failed' });
    const replaced = await host.write!('host/dir/file.txt', new Blob(['new']).stream(), { ifMatch: entry.etag! });
    expect(replaced.etag).not.toBe(entry.etag);
    expect(await host.stat('host/dir/file.txt')).toEqual(replaced);
  });
});

describe('delete', () => {
  test('files, missing files, folders with and without recursive, the root, ifMatch', async () => {
    await box.connector.write('box://del/one.txt', '1');
    await box.connector.write('box://del/deep/two.txt', '2');
    await box.connector.delete('box://del/one.txt');
    expect(() => statSync(`${box.root}/del/one.txt`)).toThrow();
    await expect(box.connector.delete('box://del/one.txt')).rejects.toMatchObject({ code: 'not_found' });
    await expect(box.connector.delete('box://del')).rejects.toMatchObject({ code: 'precondition_failed' });
    const two = await box.connector.stat('box://del/deep/two.txt');
    await expect(box.connector.delete('box://del/deep/two.txt', { ifMatch: 'stale' })).rejects.toMatchObject({ code: 'precondition_failed' });
    await box.connector.delete('box://del/deep/two.txt', { ifMatch: two.etag! });
    await box.connector.delete('box://del/deep');
    await box.connector.write('box://del/three.txt', '3');
    await box.connector.delete('box://del', { recursive: true });
    await expect(box.connector.stat('box://del')).rejects.toMatchObject({ code: 'not_found' });
    await expect(box.connector.delete('box://')).rejects.toMatchObject({ code: 'permission_denied' });
  });

  test('the host deletes files and refuses folders', async () => {
    const host = box.connector.host();
    await box.connector.write('box://hd/file.txt', 'x');
    await expect(host.delete!('hd')).rejects.toMatchObject({ code: 'is_a_directory' });
    await host.delete!('hd/file.txt');
    expect(await host.stat('hd/file.txt')).toBeNull();
    await expect(host.delete!('hd/file.txt')).rejects.toMatchObject({ code: 'not_found' });
  });
});
