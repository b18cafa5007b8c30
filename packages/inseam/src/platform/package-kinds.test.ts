/**
 * Kinds from packages: a kind any loaded in-process package provides (here desk-package's
 * runtime-gated `desk`) is a host kind like the built-ins — added, listed and read through the
 * filesystem service, crawled into the catalog — and follows the package as it is loaded after a
 * network's registry exists, swapped, and unloaded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DESK_PACKAGE, callerOf, deskState, openFsFixture, type FsFixture } from '../fs/__fixtures__/fs-service.js';
import { FsService } from '../fs/index.js';
import { openTestPlatform, removeDir, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const ann = callerOf('ann');

beforeEach(() => {
  Object.assign(deskState(), { active: true, starts: 0, probes: 0, runtimeChecks: 0, calls: 0 });
});

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('a kind from a loaded package', () => {
  let fixture: FsFixture;

  beforeEach(async () => {
    fixture = await openFsFixture();
  });

  afterEach(async () => {
    await fixture.close();
  });

  it('is listed beside the built-ins and described from its declared capabilities, without binding it', async () => {
    const { kinds } = fixture.platform;
    expect(kinds.list().map((kind) => kind.kind)).toEqual(['bucket', 'desk', 'fs', 'imap', 'local', 'machine', 'vector']);
    expect(kinds.get('desk')).toMatchObject({ kind: 'desk', label: 'Desktop', providerPackageId: 'test.desk', sandboxed: false, capabilities: ['list', 'read'] });
    const description = await kinds.describe({ network: 'home', slug: 'desk', kind: 'desk', config: {}, ownership: 'project', ownerId: null, privateOrigins: [] });
    expect(description).toMatchObject({ kind: 'desk', capabilities: ['list', 'read'], auth: { acquire: { type: 'none' }, present: [], origins: [] }, listing: 'free' });
    expect(description.dimensions['mtime']).toMatchObject({ ordering: true });
    expect(deskState().calls).toBe(0);
  });

  it('is added as a host, listed and read through the filesystem service, and crawled into the catalog', async () => {
    const { platform, fs } = fixture;
    const view = await platform.networks.addHost({ network: 'home', slug: 'desk', kind: 'desk', config: {} });
    expect(view).toMatchObject({ kind: 'desk', origin: 'test.desk', kindRegistered: true });
    expect(deskState().calls).toBe(0);

    expect(await fs.list(ann, 'desk://')).toMatchObject({ source: 'live', entries: [expect.objectContaining({ name: 'notes.txt', type: 'file' })] });
    expect(await fs.read(ann, 'desk://notes.txt')).toMatchObject({ content: 'live desk notes', source: 'live' });
    const download = await fs.readStream(ann, 'desk://notes.txt', { range: { offset: 5, length: 4 } });
    expect(download).toMatchObject({ size: 15, offset: 5, length: 4, source: 'live' });
    expect(await textOf(download.stream)).toBe('desk');

    const run = await (await platform.sync({ network: 'home', host: 'desk' })).result;
    expect(run).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: 1, indexed: 1 }) });
    const found = await platform.search.search('live', { network: 'home' });
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/desk/notes.txt']);
  });
});

describe('a package loaded, swapped and unloaded while the platform runs', () => {
  let dataDir: string;
  let platform: Platform;

  beforeEach(async () => {
    dataDir = await tempDir('package-kinds');
    platform = await openTestPlatform(dataDir);
    await platform.networks.init('home');
  });

  afterEach(async () => {
    await platform.close();
    await removeDir(dataDir);
  });

  it('binds the kind in a registry made before the package was loaded, re-binds after a swap, and says kind_not_registered once it is gone', async () => {
    // The network's registry exists before desk-package is loaded.
    await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'data' }));
    expect(platform.kinds.has('desk')).toBe(false);
    await expect(platform.networks.addHost({ network: 'home', slug: 'desk', kind: 'desk', config: {} })).rejects.toMatchObject({ code: 'kind_not_registered' });

    await platform.loader.loadPackage(DESK_PACKAGE, { trust: 'trusted' });
    expect(platform.kinds.has('desk')).toBe(true);
    await platform.networks.addHost({ network: 'home', slug: 'desk', kind: 'desk', config: {} });
    const record = await platform.networks.hostRecord({ network: 'home', host: 'desk' });
    const fs = new FsService(platform);
    expect(await fs.read(ann, 'desk://notes.txt')).toMatchObject({ content: 'live desk notes', source: 'live' });

    const host = await platform.kinds.openHost(record);
    const port = await platform.kinds.openPort(record);
    expect(await platform.kinds.openPort(record)).toBe(port);
    await platform.loader.swapPackage(DESK_PACKAGE, { trust: 'trusted' });
    const swapped = await platform.kinds.openPort(record);
    expect(swapped).not.toBe(port);
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['notes.txt']);

    // A host connector still held after its host was forgotten never binds it again.
    platform.kinds.forget({ network: 'home', host: 'desk' });
    await expect(host.list({})).rejects.toMatchObject({ code: 'unavailable' });
    const reopened = await platform.kinds.openHost(record);
    expect(await textOf(await reopened.read('notes.txt'))).toBe('live desk notes');

    await platform.loader.unloadPackage('test.desk');
    expect(platform.kinds.has('desk')).toBe(false);
    expect(platform.kinds.list().map((kind) => kind.kind)).toEqual(['bucket', 'fs', 'imap', 'local', 'machine', 'vector']);
    expect(() => platform.kinds.get('desk')).toThrow(expect.objectContaining({ code: 'kind_not_registered' }));
    await expect(platform.kinds.openPort(record)).rejects.toMatchObject({ code: 'kind_not_registered' });
    await expect(reopened.list({})).rejects.toMatchObject({ code: 'kind_not_registered' });
    await expect(fs.read(ann, 'desk://notes.txt')).rejects.toMatchObject({ code: 'kind_not_registered', details: { kind: 'desk' } });
  });
});
