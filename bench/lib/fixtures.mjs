// Benchmark fixtures, built once and reused across runs (they are large; rebuilding them each
// time would dominate the run). Each is built under a `.partial` name and renamed when complete,
// so an interrupted build is never mistaken for a finished one.
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { documentMtimeMs, documentPath, documentText } from './text-corpus.mjs';

export const benchRoot = process.env.INSEAM_BENCH_DIR ?? join(tmpdir(), 'inseam-bench');

/** Files written at once while building a fixture (the build is I/O bound, not CPU bound). */
const WRITE_CONCURRENCY = 64;

/** A deterministic pseudo-random sequence in [0, 1), so every machine builds the same fixture. */
function sequence(seed = 1) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** The size of the `index`th small file: 1–4 KiB, the same on every run. */
function smallFileSizes(count) {
  const random = sequence();
  return Array.from({ length: count }, () => 1024 + Math.floor(random() * 3072));
}

async function writeAll(files) {
  for (let i = 0; i < files.length; i += WRITE_CONCURRENCY) {
    await Promise.all(files.slice(i, i + WRITE_CONCURRENCY).map(({ path, size, fill }) => writeFile(path, Buffer.alloc(size, fill))));
  }
}

async function buildOnce(dir, build) {
  if (existsSync(join(dir, '.complete'))) return dir;
  await rm(dir, { recursive: true, force: true });
  const staging = `${dir}.partial`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await build(staging);
  await writeFile(join(staging, '.complete'), '');
  await rename(staging, dir);
  return dir;
}

/**
 * `count` files of 1–4 KiB spread over a tree 3 levels deep (~100 files a directory:
 * `d{0..}/e{0..99}/file-N.txt`), the shape of a real project folder rather than one flat
 * directory. The tree also holds one empty marker file, `.complete`.
 */
export function manySmallFiles(count) {
  return buildOnce(join(benchRoot, `files-${count}`), async (staging) => {
    const perDir = 100;
    const sizes = smallFileSizes(count);
    const files = [];
    for (let i = 0; i < count; i += 1) {
      const d = Math.floor(i / perDir);
      const sub = join(staging, `d${Math.floor(d / 100)}`, `e${d % 100}`);
      if (i % perDir === 0) await mkdir(sub, { recursive: true });
      files.push({ path: join(sub, `file-${i}.txt`), size: sizes[i], fill: 97 + (i % 26) });
    }
    await writeAll(files);
  });
}

/** `count` files of 1–4 KiB in one flat directory (plus the `.complete` marker). */
export function flatFiles(count) {
  return buildOnce(join(benchRoot, `flat-${count}`), async (staging) => {
    const sizes = smallFileSizes(count);
    await writeAll(sizes.map((size, i) => ({ path: join(staging, `file-${i}.txt`), size, fill: 97 + (i % 26) })));
  });
}

/**
 * `count` text files in the tree shape and sizes of `manySmallFiles` (`d{k}/e{j}/file-N.txt`,
 * 1–4 KiB), holding words (text-corpus.mjs) rather than one repeated byte, so a content index has
 * something to search; file N was last modified N minutes after 2024-01-01, so modification times
 * are spread as in a real folder. Separate from `manySmallFiles`, which other benchmarks count:
 * the catalog benchmark changes files in this tree (and puts them back, see `textFileAt`).
 */
export function manyTextFiles(count) {
  return buildOnce(join(benchRoot, `text-${count}`), async (staging) => {
    const sizes = smallFileSizes(count);
    for (let i = 0; i < count; i += WRITE_CONCURRENCY) {
      const batch = [];
      for (let index = i; index < Math.min(count, i + WRITE_CONCURRENCY); index += 1) {
        const path = join(staging, documentPath(index));
        if (index % 100 === 0) await mkdir(join(path, '..'), { recursive: true });
        batch.push(textFileAt(index, sizes[index]));
      }
      await Promise.all(
        batch.map(async (file) => {
          const path = join(staging, file.path);
          await writeFile(path, file.text);
          await utimes(path, file.mtime, file.mtime);
        }),
      );
    }
  });
}

/** File `index` of `manyTextFiles` as built: its relative path, text and modification time (a Date). */
export function textFileAt(index, size = smallFileSizes(index + 1)[index]) {
  return { path: documentPath(index), text: documentText(index, size), mtime: new Date(documentMtimeMs(index)) };
}

/** One file of `bytes` bytes of non-constant data. */
export async function bigFile(bytes) {
  const path = join(benchRoot, `big-${bytes}.bin`);
  if (existsSync(path)) return path;
  await mkdir(benchRoot, { recursive: true });
  await writeBigFile(`${path}.partial`, bytes);
  await rename(`${path}.partial`, path);
  return path;
}

/**
 * A folder holding only `big.bin` (the data of `bigFile`) and the `.complete` marker, for a host
 * whose start-up crawl must not walk the other fixtures under the bench root.
 */
export async function bigFileFolder(bytes) {
  const dir = await buildOnce(join(benchRoot, `big-folder-${bytes}`), (staging) => writeBigFile(join(staging, 'big.bin'), bytes));
  return join(dir, 'big.bin');
}

async function writeBigFile(path, bytes) {
  const handle = await open(path, 'w');
  const chunk = Buffer.alloc(1 << 20);
  for (let i = 0; i < chunk.length; i += 1) chunk[i] = (i * 31 + 7) & 0xff;
  for (let written = 0; written < bytes; written += chunk.length) {
    await handle.write(chunk, 0, Math.min(chunk.length, bytes - written));
  }
  await handle.close();
}

/** Extensions of `manyBinaryFiles`: types that name a binary format, so nothing in them can be indexed. */
const BINARY_EXTENSIONS = ['png', 'jpg', 'zip', 'gz', 'mp4', 'woff2', 'sqlite', 'mp3'];

/**
 * `count` binary files of 1–4 KiB in the tree shape of `manySmallFiles` (`d{k}/e{j}/file-N.<ext>`),
 * each named for a binary type (png, jpg, zip, gz, mp4, woff2, sqlite, mp3, in turn) and holding
 * NUL-laced bytes: a folder whose crawl records metadata only, nothing to index.
 */
export function manyBinaryFiles(count) {
  return buildOnce(join(benchRoot, `binary-${count}`), async (staging) => {
    const perDir = 100;
    const sizes = smallFileSizes(count);
    const files = [];
    for (let i = 0; i < count; i += 1) {
      const d = Math.floor(i / perDir);
      const sub = join(staging, `d${Math.floor(d / 100)}`, `e${d % 100}`);
      if (i % perDir === 0) await mkdir(sub, { recursive: true });
      files.push({ path: join(sub, `file-${i}.${BINARY_EXTENSIONS[i % BINARY_EXTENSIONS.length]}`), size: sizes[i], fill: i % 2 === 0 ? 0 : 0xff });
    }
    await writeAll(files);
  });
}
