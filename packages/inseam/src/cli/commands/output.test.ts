/**
 * Output as Unix tools write it: `inseam cat` streams every byte exactly through a pipe (whole and
 * by range, across chunk boundaries), and a command whose reader closes the pipe early — `cat`,
 * `ls`, and any other, however it writes — stops quietly with exit 0: no EPIPE message, no stack. The commands run as child
 * processes (the sources through the TypeScript hooks) with a real pipe on stdout.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { cli } from './__fixtures__/cli.js';
import { COPY_CHUNK_BYTES, OutputClosedError, copyToOutput } from './output.js';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const HOOKS = new URL('../../crawl/__fixtures__/ts-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(HOOKS)});`;

let dataDir: string;
let folder: string;
// Not a whole number of chunks, so the last read is a short one.
const big = randomBytes(3 * COPY_CHUNK_BYTES + 12_345);

interface Piped {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs `inseam --data <dir> …args` with stdout on a pipe; `closeAfter` bytes read (0: at once), the pipe is closed. */
function piped(args: readonly string[], closeAfter?: number, closeStderr = false): Promise<Piped> {
  const child = spawn(process.execPath, ['--conditions=inseam-source', '--import', REGISTER, MAIN, '--data', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir },
  });
  if (closeAfter === 0) child.stdout.destroy();
  if (closeStderr) child.stderr.destroy();
  const chunks: Buffer[] = [];
  let received = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
    if (closeAfter !== undefined && received >= closeAfter) child.stdout.destroy();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(chunks), stderr })));
}

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  dataDir = await tempDir('cli-output');
  folder = await tempDir('cli-output-root');
  await writeFile(join(folder, 'big.bin'), big);
  // Enough entries that `ls` overflows a pipe's buffer before its reader closes it.
  const many: Record<string, string> = {};
  for (let index = 0; index < 1500; index += 1) many[`many/entry-with-a-long-name-${String(index).padStart(5, '0')}.txt`] = 'x';
  await writeFiles(folder, many);
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/files', '--kind', 'fs', '--config', JSON.stringify({ root: folder })],
  ]) {
    const done = await cli(dataDir, args);
    expect(done.code, done.stderr).toBe(0);
  }
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(folder);
});

describe('inseam cat through a pipe', () => {
  it('writes every byte, whole and by range', async () => {
    const whole = await piped(['cat', 'files://big.bin']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.length).toBe(big.length);
    expect(sha(whole.stdout)).toBe(sha(big));

    const start = COPY_CHUNK_BYTES - 7;
    const end = 2 * COPY_CHUNK_BYTES + 9;
    const ranged = await piped(['cat', '--range', `${start}-${end}`, 'files://big.bin']);
    expect(ranged.code, ranged.stderr).toBe(0);
    expect(sha(ranged.stdout)).toBe(sha(big.subarray(start, end + 1)));
  });

  it('exits 0 quietly when the reader closes the pipe early', async () => {
    const cat = await piped(['cat', 'files://big.bin'], 64 * 1024);
    expect({ code: cat.code, signal: cat.signal, stderr: cat.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(cat.stdout.length).toBeLessThan(big.length);
    expect(sha(cat.stdout)).toBe(sha(big.subarray(0, cat.stdout.length)));

    const ls = await piped(['ls', 'files://many/'], 1024);
    expect({ code: ls.code, signal: ls.signal, stderr: ls.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('every command exits 0 quietly when its reader is gone before it writes', async () => {
    for (const args of [['stat', '--json', 'files://big.bin'], ['host', 'ls', 'home'], ['host', 'ls', 'home', '--json'], ['ls', '--json', 'files://many/'], ['host', 'show', 'home/files', '--json']]) {
      const closed = await piped(args, 0);
      expect({ args, code: closed.code, signal: closed.signal, stderr: closed.stderr }).toEqual({ args, code: 0, signal: null, stderr: '' });
    }
  }, 120_000);

  it('a command whose stderr reader is gone (`2>&1 | head`) finishes as it would', async () => {
    const crawled = await piped(['crawl', 'home/files'], undefined, true);
    expect({ code: crawled.code, signal: crawled.signal }).toEqual({ code: 0, signal: null });
    expect(crawled.stdout.toString()).not.toMatch(/EPIPE|unexpected/);
  }, 60_000);

  it('still fails on a path the host does not have, with the typed error', async () => {
    const missing = await piped(['cat', 'files://nothing-here.bin']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\[not_found\]/);
  });
});

describe('copyToOutput', () => {
  function byteStream(bytes: Uint8Array): { readonly stream: ReadableStream<Uint8Array>; readonly cancelled: () => boolean } {
    let offset = 0;
    let cancelled = false;
    const stream = new ReadableStream({
      type: 'bytes',
      pull(controller) {
        const request = controller.byobRequest!;
        const view = request.view!;
        const length = Math.min(view.byteLength, bytes.length - offset, 100_000);
        if (length === 0) {
          controller.close();
          request.respond(0);
          return;
        }
        new Uint8Array(view.buffer, view.byteOffset, length).set(bytes.subarray(offset, offset + length));
        offset += length;
        request.respond(length);
      },
      cancel() {
        cancelled = true;
      },
    });
    return { stream, cancelled: () => cancelled };
  }

  // Through a pipe (a file descriptor) the buffers are reused: the child-process cases above.
  it('copies a byte stream and a plain stream exactly to an in-process stream, which keeps the chunks it gets', async () => {
    const bytes = randomBytes(2 * COPY_CHUNK_BYTES + 777);
    for (const source of [
      byteStream(bytes).stream,
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 300_000) controller.enqueue(bytes.slice(at, at + 300_000));
          controller.close();
        },
      }),
    ]) {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (chunk: Buffer) => chunks.push(chunk));
      await copyToOutput(source, out);
      expect(sha(Buffer.concat(chunks))).toBe(sha(bytes));
    }
  });

  it('stops the source and throws OutputClosedError when the output breaks with EPIPE; other errors pass through', async () => {
    const failing = (code: string): Writable =>
      new Writable({
        write(_chunk, _encoding, callback) {
          callback(Object.assign(new Error(`write ${code}`), { code }));
        },
      }).on('error', () => undefined);
    const closed = byteStream(randomBytes(3 * COPY_CHUNK_BYTES));
    await expect(copyToOutput(closed.stream, failing('EPIPE'))).rejects.toBeInstanceOf(OutputClosedError);
    expect(closed.cancelled()).toBe(true);
    const full = byteStream(randomBytes(3 * COPY_CHUNK_BYTES));
    await expect(copyToOutput(full.stream, failing('ENOSPC'))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(full.cancelled()).toBe(true);
  });
});
