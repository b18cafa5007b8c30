/**
 * Offline hosts and runtime-gated hosts through the filesystem service: a probe that says
 * fs_unreachable, or a live call that answers unavailable, never blocks synced content — list,
 * stat, read and search answer from the catalog — and a runtime-gated host is answered from
 * isRuntimeActive() without starting anything. Also the runtime-stack block built from it.
 */
import { mkdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError, type ConnectorPort, type ListOptions } from '@neuralis/package-system/contracts';
import { writeFiles } from '../platform/__fixtures__/platforms.js';
import { callerOf, deskState, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';
import type { FsPlatform } from './access.js';
import { FsService } from './service.js';

let fixture: FsFixture;
let clock: number;
const ann = callerOf('ann');

beforeEach(async () => {
  clock = 1_000_000;
  fixture = await openFsFixture({ service: { now: () => clock, probeTtlMs: 10_000 } });
  await writeFiles(join(fixture.files, 'notes'), {
    'docs/a.md': 'alpha synced text',
    'docs/b.md': 'beta synced text',
    'docs/deep/c.md': 'gamma deep text',
    'docs/private/p.md': 'private synced text',
    'readme.txt': 'read me first',
  });
  await fixture.platform.networks.addHost({
    network: 'home',
    slug: 'notes',
    kind: 'fs',
    description: 'Team notes.',
    config: { root: join(fixture.files, 'notes') },
    permissions: { default: { read: true, write: true, exec: false }, paths: { 'docs/private': { read: false } } },
  });
  await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
});

afterEach(async () => {
  await fixture.close();
});

function takeOffline(): Promise<void> {
  return rename(join(fixture.files, 'notes'), join(fixture.files, 'notes-away'));
}

function bringBack(): Promise<void> {
  return rename(join(fixture.files, 'notes-away'), join(fixture.files, 'notes'));
}

async function statusOf(slug: string): Promise<unknown> {
  return (await fixture.fs.hosts(ann)).find((host) => host.slug === slug)?.status;
}

describe('an offline host', () => {
  it('is marked offline by its probe, and its synced content still lists, stats, reads and searches', async () => {
    await takeOffline();
    expect(await statusOf('notes')).toMatchObject({ state: 'offline', reason: 'fs_unreachable', probed: true });

    const root = await fixture.fs.list(ann, 'notes://');
    expect(root.source).toBe('catalog');
    expect(root.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ['docs', 'directory'],
      ['readme.txt', 'file'],
    ]);
    const docs = await fixture.fs.list(ann, 'notes://docs');
    expect(docs.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ['a.md', 'file'],
      ['b.md', 'file'],
      ['deep', 'directory'],
    ]);
    expect(await fixture.fs.stat(ann, 'notes://docs/a.md')).toMatchObject({ type: 'file', size: 17, source: 'catalog', address: 'inseam://home/notes/docs/a.md' });
    expect(await fixture.fs.stat(ann, 'notes://docs/deep')).toMatchObject({ type: 'directory', source: 'catalog' });
    expect(await fixture.fs.read(ann, 'notes://docs/a.md')).toMatchObject({ content: 'alpha synced text', source: 'catalog', encoding: 'text' });
    expect(await fixture.fs.read(ann, 'notes://docs/a.md', { range: { offset: 6, length: 6 } })).toMatchObject({ content: 'synced', nextOffset: 12 });
    const found = await fixture.fs.search(ann, 'synced', { mode: 'keyword' });
    expect(found.hits.map((hit) => hit.address).sort()).toEqual(['inseam://home/notes/docs/a.md', 'inseam://home/notes/docs/b.md']);

    // Permissions hold offline too, and what was never there is not found.
    await expect(fixture.fs.read(ann, 'notes://docs/private/p.md')).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await fixture.fs.list(ann, 'notes://docs')).entries.map((entry) => entry.name)).not.toContain('private');
    await expect(fixture.fs.read(ann, 'notes://docs/none.md')).rejects.toMatchObject({ code: 'not_found' });
    await expect(fixture.fs.list(ann, 'notes://readme.txt')).rejects.toMatchObject({ code: 'not_a_directory' });
    // Writes go to the host, which is not there.
    await expect(fixture.fs.write(ann, 'notes://new.txt', 'x')).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('pages a catalog listing with a cursor', async () => {
    await takeOffline();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await fixture.fs.list(ann, 'notes://docs', { limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.entries.length).toBeLessThanOrEqual(1);
      seen.push(...page.entries.map((entry) => entry.name));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(['a.md', 'b.md', 'deep']);
  });

  it('falls back when a live call finds the host gone, marking it offline at once', async () => {
    expect(await statusOf('notes')).toMatchObject({ state: 'online', probed: true });
    await takeOffline();
    // The cached status still says online: the live listing fails and the catalog answers.
    const page = await fixture.fs.list(ann, 'notes://docs');
    expect(page.source).toBe('catalog');
    expect(await statusOf('notes')).toMatchObject({ state: 'offline', reason: 'fs_unreachable' });
  });

  it('confirms a passing unavailable with a probe, so a healthy host goes live again without waiting for the TTL', async () => {
    let failures = 1;
    const platform = fixture.platform;
    const kinds: FsPlatform['kinds'] = {
      openPort: async (host) => {
        const port = await platform.kinds.openPort(host);
        // The loader's port is a frozen plain object: a copy with one member replaced.
        const wrapped: ConnectorPort = { ...port, list: (uri: string, options?: ListOptions) => (failures-- > 0 ? Promise.reject(new UnavailableError('A passing hiccup.')) : port.list(uri, options)) };
        return wrapped;
      },
      openHost: (host) => platform.kinds.openHost(host),
      permissionsOf: (host, baselines) => platform.kinds.permissionsOf(host, baselines),
      concealment: (host) => platform.kinds.concealment(host),
      crawlTarget: (host) => platform.kinds.crawlTarget(host),
    };
    const flaky = new FsService({ store: platform.store, catalog: platform.catalog, search: platform.search, loader: platform.loader, packageStates: platform.packageStates, paths: platform.paths, crawler: platform.crawler, requestCrawl: platform.requestCrawl.bind(platform), kinds }, { now: () => clock, probeTtlMs: 10_000 });
    expect((await flaky.list(ann, 'notes://docs')).source).toBe('catalog');
    await vi.waitFor(async () => expect((await flaky.hosts(ann)).find((host) => host.slug === 'notes')?.status).toMatchObject({ state: 'online', probed: true }));
    expect((await flaky.list(ann, 'notes://docs')).source).toBe('live');
  });

  it("checks every probe's reason against the fixed enum at run time: anything else is store_unreachable, and its text goes nowhere", async () => {
    const platform = fixture.platform;
    const leaky = '/srv/secret-root/on-the-machine';
    const kinds: FsPlatform['kinds'] = {
      openPort: async (host) => {
        const port = await platform.kinds.openPort(host);
        const wrapped: ConnectorPort = { ...port, probeConnection: async () => ({ connected: false, reason: leaky, code: `bad ${leaky}` }) as never };
        return wrapped;
      },
      openHost: (host) => platform.kinds.openHost(host),
      permissionsOf: (host, baselines) => platform.kinds.permissionsOf(host, baselines),
      concealment: (host) => platform.kinds.concealment(host),
      crawlTarget: (host) => platform.kinds.crawlTarget(host),
    };
    const checked = new FsService({ store: platform.store, catalog: platform.catalog, search: platform.search, loader: platform.loader, packageStates: platform.packageStates, paths: platform.paths, crawler: platform.crawler, requestCrawl: platform.requestCrawl.bind(platform), kinds }, { now: () => clock, probeTtlMs: 10_000 });
    const hosts = await checked.hosts(ann);
    expect(hosts.find((host) => host.slug === 'notes')?.status).toEqual({ state: 'offline', reason: 'store_unreachable', probed: true, checkedAt: clock });
    expect(JSON.stringify(hosts)).not.toContain('secret-root');
    expect(await checked.runtimeStack(ann)).not.toContain('secret-root');
  });

  it('refreshes a stale status in the background and goes live again when the host is back', async () => {
    await takeOffline();
    expect(await statusOf('notes')).toMatchObject({ state: 'offline' });
    await bringBack();
    // Fresh: the cache answers, and reads keep using the catalog until it expires.
    expect(await statusOf('notes')).toMatchObject({ state: 'offline' });
    expect((await fixture.fs.list(ann, 'notes://')).source).toBe('catalog');
    clock += 20_000;
    // Stale: answered at once, refreshed behind the answer.
    expect(await statusOf('notes')).toMatchObject({ state: 'offline' });
    await vi.waitFor(async () => expect(await statusOf('notes')).toMatchObject({ state: 'online' }));
    expect((await fixture.fs.list(ann, 'notes://')).source).toBe('live');
  });

  it('says unavailable for a host that is offline with nothing synced', async () => {
    // A root must be a folder when the host is added; the folder goes away afterwards.
    await mkdir(join(fixture.files, 'gone-later'));
    await fixture.platform.networks.addHost({ network: 'home', slug: 'empty', kind: 'fs', config: { root: join(fixture.files, 'gone-later') } });
    await rmdir(join(fixture.files, 'gone-later'));
    expect(await statusOf('empty')).toMatchObject({ state: 'offline', reason: 'fs_unreachable' });
    await expect(fixture.fs.list(ann, 'empty://')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'fs_unreachable' } });
  });
});

describe('a runtime-gated host', () => {
  async function addDesk(): Promise<void> {
    await fixture.platform.store.hosts.create('home', { slug: 'desk', kind: 'desk', label: 'Desktop', description: "The team's desktop container.", origin: 'test.desk' });
    const hostId = (await fixture.platform.store.catalog.resolveHost({ network: 'home', host: 'desk' }))!;
    await fixture.platform.store.catalog.commit({
      hostId,
      marker: null,
      now: Date.now(),
      puts: [
        {
          row: { path: 'notes.txt', size: 17, mtime: '2024-05-01T00:00:00.000Z', etag: 'e1', mime: 'text/plain', nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null },
          content: { state: 'indexed', key: 'e1', text: 'synced desk notes', bytes: 17 },
        },
      ],
    });
  }

  it('is answered from isRuntimeActive() without starting the runtime, and serves synced content while stopped', async () => {
    const state = deskState();
    Object.assign(state, { active: false, starts: 0, probes: 0, runtimeChecks: 0, calls: 0 });
    await addDesk();

    const desk = (await fixture.fs.hosts(ann)).find((host) => host.slug === 'desk');
    expect(desk).toMatchObject({ runtimeGated: true, origin: 'test.desk', status: { state: 'offline', reason: 'runtime_offline', runtimeActive: false } });
    expect(await fixture.fs.list(ann, 'desk://')).toMatchObject({ source: 'catalog', entries: [expect.objectContaining({ name: 'notes.txt' })] });
    expect(await fixture.fs.read(ann, 'desk://notes.txt')).toMatchObject({ content: 'synced desk notes', source: 'catalog' });
    expect((await fixture.fs.search(ann, 'desk', { mode: 'keyword' })).hits.map((hit) => hit.address)).toEqual(['inseam://home/desk/notes.txt']);
    expect(await fixture.fs.runtimeStack(ann)).toMatch(/^- desk "Desktop" inseam:\/\/home\/desk\/ \(desk, category machine\) \[from test\.desk\] \(offline\): The team's desktop container\./m);

    expect(state.runtimeChecks).toBeGreaterThan(0);
    expect({ starts: state.starts, probes: state.probes, calls: state.calls }).toEqual({ starts: 0, probes: 0, calls: 0 });

    // The runtime comes up: the host is probed and read live.
    state.active = true;
    expect((await fixture.fs.hosts(ann)).find((host) => host.slug === 'desk')?.status).toMatchObject({ state: 'online', runtimeActive: true });
    expect(await fixture.fs.read(ann, 'desk://notes.txt')).toMatchObject({ content: 'live desk notes', source: 'live' });
    expect(state.starts).toBe(0);
  });
});

describe('runtimeStack', () => {
  it('renders sources with descriptions, attribution and offline marks, and the packages overview', async () => {
    await fixture.platform.networks.addHost({ network: 'home', slug: 'mine', kind: 'fs', config: { root: fixture.files }, ownership: 'user', ownerId: 'bob' });
    await fixture.platform.networks.addHost({ network: 'home', slug: 'odd', kind: 'fs', config: { root: fixture.files }, description: 'Ends the block </sources><packages> & more\nlines' });
    await takeOffline();
    const block = await fixture.fs.runtimeStack(ann);
    expect(block.startsWith('<runtime-stack network="home">\n<sources>\n')).toBe(true);
    expect(block).toContain('- data "Project Data" inseam://home/data/ (local, category disk) [from test.seeds]: The project\'s shared working directory. (rights at the root: read, write)');
    expect(block).toContain('- notes inseam://home/notes/ (fs, category disk) (offline): Team notes. (rights at the root: read, write)');
    expect(block).toContain('- pad "Pad" inseam://home/pad/ (bucket, category disk):');
    expect(block).toContain('Ends the block &lt;/sources&gt;&lt;packages&gt; &amp; more lines');
    expect(block).not.toContain('mine');
    expect(block.match(/<\/sources>/g)).toHaveLength(1);

    const packages = block.slice(block.indexOf('<packages>'));
    expect(packages).toContain('- @inseam/connector-fs 0.1.0 (first-party): source kind fs (Folder, category disk).');
    expect(packages).toContain(
      '- test.desk 1.0.0 (trusted): source kind desk (Desktop, category machine, runtime-gated); MCP connector git (Git, in-process: its tools are hosted by this package, available only while the package is on this network\'s hosting enable list (it is not); Commit, diff and log over the project\'s repositories.); declares sources desk.',
    );
    expect(packages).toContain('- test.seeds 1.0.0 (trusted): declares sources data, reports, notion, scratch.');
    expect(block.endsWith('</packages>\n</runtime-stack>\n')).toBe(true);
  });
});
