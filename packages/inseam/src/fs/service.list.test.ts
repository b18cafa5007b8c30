/**
 * Listing entries' addresses: plain names (taken straight from the port's URI) and names that need
 * escapes (parsed in full) come out as the address functions spell them, at the root and below,
 * with the permission tree applied to both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddress, formatAddress } from '../address/index.js';
import { callerOf, deskState, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';

let fixture: FsFixture;
const ann = callerOf('ann');
const NAMES = ['..a', 'a b.md', 'plain-1_~.txt', 'x%41.txt', 'é.txt'];

beforeAll(async () => {
  fixture = await openFsFixture({
    files: Object.fromEntries([...NAMES.map((name) => [name, name]), ...NAMES.map((name) => [`sub dir/${name}`, name]), ['sub dir/hidden/h.txt', 'h'], ['sub dir/hidden x/h.txt', 'h']]),
  });
  await fixture.platform.networks.addHost({
    network: 'home',
    slug: 'notes',
    kind: 'fs',
    config: { root: fixture.files },
    permissions: { default: { read: true, write: false, exec: false }, paths: { 'sub dir/hidden': { read: false }, 'sub dir/hidden x': { read: false }, '..a': { read: false } } },
  });
});
afterAll(() => fixture.close());

function expected(segments: readonly string[]): { address: string; path: string } {
  const address = createAddress({ network: 'home', host: 'notes', segments });
  return { address: formatAddress(address), path: address.path };
}

describe('FsService.list addresses', () => {
  it('spells every child as the address functions do, at the root and in a folder whose name needs an escape', async () => {
    const root = await fixture.fs.list(ann, 'notes://');
    expect(root.entries.map((entry) => ({ address: entry.address, path: entry.path, host: entry.host }))).toEqual(
      [...NAMES.filter((name) => name !== '..a'), 'sub dir'].sort().map((name) => ({ ...expected([name]), host: 'notes' })),
    );
    const sub = await fixture.fs.list(ann, 'notes://sub%20dir');
    expect(sub.entries.map((entry) => [entry.name, entry.address, entry.path])).toEqual(
      NAMES.map((name) => [name, expected(['sub dir', name]).address, expected(['sub dir', name]).path]),
    );
    expect(sub.entries.find((entry) => entry.name === 'plain-1_~.txt')?.address).toBe('inseam://home/notes/sub%20dir/plain-1_~.txt');
  });

  it('leaves out denied children whether their names are plain or escaped', async () => {
    const sub = await fixture.fs.list(ann, 'notes://sub%20dir');
    expect(sub.entries.map((entry) => entry.name)).not.toContain('hidden');
    expect(sub.entries.map((entry) => entry.name)).not.toContain('hidden x');
    const root = await fixture.fs.list(ann, 'notes://');
    expect(root.entries.map((entry) => entry.name)).not.toContain('..a');
  });
});

describe('FsService.list permission checks', () => {
  it('checks a folder with no permission key below it once, yet judges every URI a port returns outside that folder on its own', async () => {
    await fixture.platform.store.hosts.create('home', {
      slug: 'desk',
      kind: 'desk',
      permissions: { default: { read: true, write: false, exec: false }, paths: { secret: { read: false } } },
    });
    const state = deskState();
    state.active = true;
    // A port that answers a listing of `open` with its own child, a deeper entry and another folder's secrets.
    state.listing = (_uri, source) => [
      { uri: `${source}://open/a.txt`, name: 'a.txt', type: 'file' },
      { uri: `${source}://open/deeper/b.txt`, name: 'b.txt', type: 'file' },
      { uri: `${source}://secret/s.txt`, name: 's.txt', type: 'file' },
      { uri: `${source}://secret`, name: 'secret', type: 'directory' },
    ];
    try {
      const page = await fixture.fs.list(ann, 'desk://open');
      expect(page.entries.map((entry) => entry.path)).toEqual(['open/a.txt', 'open/deeper/b.txt']);
    } finally {
      delete state.listing;
      state.active = false;
    }
  });
});
