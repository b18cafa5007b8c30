/**
 * What a crawl of a real folder reads: nothing of a file whose type cannot be indexed, and no file
 * twice. The fs host is the real one; only its read() is wrapped, to count the calls.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsHost } from '@inseam/connector-fs';
import { SqliteStore, type HostRef } from '../store/index.js';
import { Crawler, type CrawlTarget } from './index.js';

const ref: HostRef = { network: 'home', host: 'files' };
let base: string;
let root: string;
let store: SqliteStore;
let hostId: number;

beforeEach(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), 'inseam-crawl-reads-')));
  root = join(base, 'root');
  await mkdir(join(root, 'media'), { recursive: true });
  store = SqliteStore.open({ path: ':memory:' });
  await store.networks.create({ slug: 'home' });
  hostId = (await store.hosts.create('home', { slug: 'files', kind: 'fs' })).id;
});

afterEach(async () => {
  await store.close();
  await rm(base, { recursive: true, force: true });
});

const NUL_BYTES = Buffer.alloc(3000, 0);

/** The real fs host over `root`, its read() calls counted by path. */
function countedHost(): { target: CrawlTarget; reads: Map<string, number> } {
  const host = createFsHost({ packageId: '@inseam/connector-fs', packageRoot: base, source: 'root', config: { root }, projectRoot: base, scope: 'project' });
  const reads = new Map<string, number>();
  const counted = new Proxy(host, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (key !== 'read' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (path: string, ...rest: unknown[]) => {
        reads.set(path, (reads.get(path) ?? 0) + 1);
        return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
      };
    },
  });
  return { target: { ref, connector: counted, description: host.describe() }, reads };
}

function contentStates(): Record<string, string> {
  const rows = store.database.prepare('SELECT path, content_state FROM catalog_entries WHERE host_id = ? ORDER BY path').all(hostId) as { path: string; content_state: string }[];
  return Object.fromEntries(rows.map((row) => [row.path, row.content_state]));
}

describe('what a crawl of a folder reads', () => {
  it('never opens a file whose type cannot be indexed, and sniffs one of unknown type once', async () => {
    await writeFile(join(root, 'notes.txt'), 'plain words');
    // Each named for a binary format no extraction worker reads (the sqlite, gzip-tar and jar
    // types were read and sniffed before).
    for (const name of ['photo.png', 'song.mp3', 'clip.mp4', 'font.woff2', 'data.sqlite', 'logs.tar.xz', 'app.jar', 'old.doc', 'pack.zip']) {
      await writeFile(join(root, 'media', name), NUL_BYTES);
    }
    await writeFile(join(root, 'blob.bin'), NUL_BYTES);
    const { target, reads } = countedHost();
    const run = await new Crawler({ store: store.catalog }).sync(target).result;
    expect(run).toMatchObject({ state: 'completed', counters: { entries: 11, indexed: 1, errors: 0 } });
    // Only the text file and the file of unknown type were opened, each once.
    expect(Object.fromEntries(reads)).toEqual({ 'notes.txt': 1, 'blob.bin': 1 });
    const states = contentStates();
    expect(states['notes.txt']).toBe('indexed');
    for (const [path, state] of Object.entries(states)) if (path !== 'notes.txt') expect(state, path).toBe('binary');
  });

  it('reads no file twice in one crawl, across pages and batches', async () => {
    // More files than a batch and than one listing page, so the crawl commits several times.
    for (let dir = 0; dir < 3; dir += 1) {
      await mkdir(join(root, `d${dir}`));
      for (let i = 0; i < 400; i += 1) await writeFile(join(root, `d${dir}`, `f${i}.md`), `file ${dir} ${i}`);
    }
    const { target, reads } = countedHost();
    const run = await new Crawler({ store: store.catalog, batchSize: 50 }).sync(target).result;
    expect(run).toMatchObject({ state: 'completed', counters: { entries: 1200, indexed: 1200 } });
    expect(reads.size).toBe(1200);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
    // A second full run of the unchanged folder reads nothing: every validator is unchanged.
    reads.clear();
    const again = await new Crawler({ store: store.catalog, batchSize: 50 }).sync(target, { mode: 'full' }).result;
    expect(again.state).toBe('completed');
    expect(reads.size).toBe(0);
  });
});
