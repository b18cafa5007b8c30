/** Files over SFTP against the real sshd: listing pages, ranges, streaming, binary caps, conditional writes, delete. */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { collect, machinePort } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';
import type { MachinePort } from './port.js';

let sshd: SshdFixture;
let port: MachinePort;
const big = randomBytes(3 * 1024 * 1024 + 17);

beforeAll(async () => {
  sshd = await startSshd();
  port = machinePort(sshd, { textCapBytes: 1024, inlineCaps: { image: 10, binary: 8 * 1024 * 1024 } });
  await mkdir(`${sshd.root}/many`);
  await Promise.all(Array.from({ length: 25 }, (_, i) => writeFile(`${sshd.root}/many/f${String(i).padStart(2, '0')}.txt`, `file ${i}`)));
  await writeFile(`${sshd.root}/big.bin`, big);
  await writeFile(`${sshd.root}/long.txt`, 'x'.repeat(5000));
  await writeFile(`${sshd.root}/pic.png`, randomBytes(64));
});
afterAll(async () => {
  port.dispose();
  await sshd.close();
});

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('listing', () => {
  test('pages through a folder with a cursor, name-sorted, and a bad cursor is invalid_argument', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await port.list('box://many', { limit: 10, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.entries.length).toBeLessThanOrEqual(10);
      seen.push(...page.entries.map((entry) => entry.name));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`));
    await expect(port.list('box://many', { cursor: 'nonsense' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(port.list('box://big.bin')).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(port.list('box://missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('walk honours maxDepth', async () => {
    const shallow = await collect(port.walk('box://', { maxDepth: 1 }));
    expect(shallow.map((entry) => entry.name)).toEqual(['big.bin', 'long.txt', 'many', 'pic.png']);
  });
});

describe('reads', () => {
  test('ranges of a binary file come back exactly, and past the end is empty', async () => {
    const result = await port.read('box://big.bin', { range: { offset: 1_000_000, length: 300_000 } });
    expect(Buffer.from(result.bytes!, 'base64').equals(big.subarray(1_000_000, 1_300_000))).toBe(true);
    expect(result).toMatchObject({ size: big.length, range: { offset: 1_000_000, length: 300_000 } });
    const past = await port.read('box://big.bin', { range: { offset: big.length + 5, length: 10 } });
    expect(past.range).toEqual({ offset: big.length + 5, length: 0 });
    await expect(port.read('box://big.bin', { range: { offset: -1 } })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('a text file over the text cap is too_large without a range, and pages with one', async () => {
    await expect(port.read('box://long.txt')).rejects.toMatchObject({ code: 'too_large', details: { cap: 1024 } });
    const page = await port.read('box://long.txt', { range: { offset: 4000, length: 5000 } });
    expect(page.text).toBe('x'.repeat(1000));
  });

  test('a binary over its inline cap is a marker, not bytes', async () => {
    const result = await port.read('box://pic.png');
    expect(result.bytes).toBeUndefined();
    expect(result.omitted).toEqual({ reason: 'over_inline_cap', cap: 10 });
  });

  test('readStream streams a whole file and a range, in order', async () => {
    const whole = await port.readStream('box://big.bin');
    expect(whole.size).toBe(big.length);
    expect((await bytesOf(whole.stream)).equals(big)).toBe(true);
    const part = await port.readStream('box://big.bin', [12345, 2_000_001]);
    expect((await bytesOf(part.stream)).equals(big.subarray(12345, 2_000_001))).toBe(true);
  });

  test('a folder is is_a_directory and a missing file not_found', async () => {
    await expect(port.read('box://many')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(port.read('box://nope.txt')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('the connection', () => {
  // SFTP reads are small request packets sent while answers are still arriving; with Nagle on, each
  // waited for the previous segment's acknowledgement and a 1 GiB read idled most of its time.
  test('turns Nagle off on its socket to the machine', async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const fresh = machinePort(sshd, {}, 'fresh');
    try {
      await fresh.stat('fresh://');
      const toMachine = noDelay.mock.contexts.findIndex((socket) => (socket as Socket).remotePort === sshd.port);
      expect(toMachine).toBeGreaterThanOrEqual(0);
      expect(noDelay.mock.calls[toMachine]?.[0]).toBe(true);
    } finally {
      noDelay.mockRestore();
      fresh.dispose();
    }
  });
});

describe('writes', () => {
  test('create, replace with ifMatch, stale etag refused, createOnly refused over a file', async () => {
    const first = await port.write('box://w/deep/a.txt', 'one');
    expect(readFileSync(`${sshd.root}/w/deep/a.txt`, 'utf8')).toBe('one');
    // Same size, within the same second: the etag still changes.
    const second = await port.write('box://w/deep/a.txt', 'two', { ifMatch: first.etag! });
    expect(second.etag).not.toBe(first.etag);
    await expect(port.write('box://w/deep/a.txt', 'three', { ifMatch: first.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(readFileSync(`${sshd.root}/w/deep/a.txt`, 'utf8')).toBe('two');
    await expect(port.write('box://w/deep/a.txt', 'four', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    await expect(port.write('box://w/missing.txt', 'x', { ifMatch: first.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(port.write('box://w/deep', 'x')).rejects.toMatchObject({ code: 'is_a_directory' });
    expect((await port.read('box://w/deep/a.txt')).etag).toBe(second.etag);
  });

  test('concurrent create-only writes: exactly one wins', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => port.write('box://race.txt', `writer ${i}`, { createOnly: true })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'rejected').map((result) => (result).reason.code)).toEqual(Array(5).fill('already_exists'));
  });

  test('no temporary file is left behind', async () => {
    const names = (await port.list('box://w/deep')).entries.map((entry) => entry.name);
    expect(names).toEqual(['a.txt']);
  });
});

describe('delete', () => {
  test('a file, a non-empty folder only with recursive, never the root', async () => {
    await port.write('box://d/x/1.txt', '1');
    await port.write('box://d/x/2.txt', '2');
    await expect(port.delete('box://d')).rejects.toMatchObject({ code: 'precondition_failed' });
    await port.delete('box://d/x/1.txt');
    expect(existsSync(`${sshd.root}/d/x/1.txt`)).toBe(false);
    await port.delete('box://d', { recursive: true });
    expect(existsSync(`${sshd.root}/d`)).toBe(false);
    await expect(port.delete('box://')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(port.delete('box://d')).rejects.toMatchObject({ code: 'not_found' });
  });
});
