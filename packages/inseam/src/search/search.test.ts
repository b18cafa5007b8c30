/**
 * Search across the hosts of a network on a real platform: global addresses and snippets, host
 * and dimension filters, paging, and never a hit the host's permission tree (or the caller's own
 * check) does not let the caller read — across index pages too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import type { SearchPage } from './search.js';

let dataDir: string;
let docs: string;
let other: string;
let platform: Platform;

beforeAll(async () => {
  dataDir = await tempDir('search');
  docs = await tempDir('search-docs');
  other = await tempDir('search-other');
  const denied: Record<string, string> = {};
  for (let index = 0; index < 130; index++) denied[`private/bulk/n${String(index).padStart(3, '0')}.md`] = 'needle needle needle needle';
  await writeFiles(docs, {
    'a.md': 'the needle in the open',
    'private/b.md': 'a needle kept private',
    'private/open/c.md': 'a needle shared from the private folder',
    'privateer.md': 'a needle in a file whose name only starts like the folder',
    'big.txt': `needle ${'padding '.repeat(400)}`,
    ...denied,
  });
  await writeFiles(other, { 'o.txt': 'another needle elsewhere' });
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({
    network: 'home',
    slug: 'docs',
    kind: 'fs',
    config: { root: docs },
    permissions: { default: { read: true, write: false, exec: false }, paths: { private: { read: false }, 'private/open': { read: true } } },
  });
  await platform.networks.addHost({ network: 'home', slug: 'other', kind: 'fs', config: { root: other } });
  await platform.networks.init('work');
  await platform.networks.addHost({ network: 'work', slug: 'other', kind: 'fs', config: { root: other } });
  for (const [network, host] of [['home', 'docs'], ['home', 'other'], ['work', 'other']] as const) {
    expect((await (await platform.sync({ network, host })).result).state).toBe('completed');
  }
});

afterAll(async () => {
  await platform.close();
  await removeDir(dataDir);
  await removeDir(docs);
  await removeDir(other);
});

async function all(text: string, options: Parameters<Platform['search']['search']>[1]): Promise<string[]> {
  const addresses: string[] = [];
  let page: SearchPage = await platform.search.search(text, options);
  for (;;) {
    addresses.push(...page.hits.map((hit) => hit.address));
    if (page.next === undefined) return addresses.sort();
    page = await platform.search.search(text, { ...options, cursor: page.next });
  }
}

describe('search', () => {
  it('returns global addresses with snippets, across every host of the network', async () => {
    const page = await platform.search.search('elsewhere', { network: 'home' });
    expect(page.hits).toEqual([
      expect.objectContaining({ address: 'inseam://home/other/o.txt', network: 'home', host: 'other', path: 'o.txt', snippet: 'another needle elsewhere', mime: 'text/plain', size: 24 }),
    ]);
    const [hit] = page.hits;
    expect(hit!.highlights.map(([start, end]) => hit!.snippet.slice(start, end))).toEqual(['elsewhere']);
    expect((await platform.search.search('elsewhere', {})).hits.map((found) => found.address).sort()).toEqual(['inseam://home/other/o.txt', 'inseam://work/other/o.txt']);
  });

  it('never returns what the permission tree denies, whatever the page size', async () => {
    const expected = ['inseam://home/docs/a.md', 'inseam://home/docs/big.txt', 'inseam://home/docs/private/open/c.md', 'inseam://home/docs/privateer.md', 'inseam://home/other/o.txt'];
    expect(await all('needle', { network: 'home', limit: 100 })).toEqual(expected);
    expect(await all('needle', { network: 'home', limit: 1 })).toEqual(expected);
    expect(await all('kept private', { network: 'home' })).toEqual([]);
  });

  it("applies the caller's own permission tree on top", async () => {
    const access = (host: { slug: string }) => Promise.resolve(host.slug === 'other' ? null : { default: { read: true, write: false, exec: false }, paths: { 'a.md': { read: false } } });
    const found = await all('needle', { network: 'home', access });
    expect(found).toEqual(['inseam://home/docs/big.txt', 'inseam://home/docs/private/open/c.md', 'inseam://home/docs/privateer.md']);
  });

  it('filters by host', async () => {
    expect(await all('needle', { network: 'home', hosts: ['other'] })).toEqual(['inseam://home/other/o.txt']);
    await expect(platform.search.search('needle', { network: 'home', hosts: ['nope'] })).rejects.toMatchObject({ code: 'not_found' });
    await expect(platform.search.search('needle', { hosts: ['other'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.search.search('needle', { network: 'nowhere' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('filters by dimensions, typed or written as text', async () => {
    expect(await all('needle', { network: 'home', where: [{ dim: 'mime', op: 'eq', value: 'text/markdown' }] })).toEqual([
      'inseam://home/docs/a.md',
      'inseam://home/docs/private/open/c.md',
      'inseam://home/docs/privateer.md',
    ]);
    expect(await all('needle', { network: 'home', whereText: ['size>1000'] })).toEqual(['inseam://home/docs/big.txt']);
    expect(await all('needle', { network: 'home', whereText: ['path^=private', 'mime=text/markdown'] })).toEqual(['inseam://home/docs/private/open/c.md', 'inseam://home/docs/privateer.md']);
    expect(await all('needle', { network: 'home', whereText: ['mtime>=2024-05-04'] })).toEqual(['inseam://home/docs/big.txt', 'inseam://home/docs/privateer.md']);
    expect(await all('needle', { network: 'home', whereText: ['mtime<2024-05-02'] })).toEqual(['inseam://home/docs/a.md', 'inseam://home/other/o.txt']);
  });

  it('refuses a filter no host can evaluate, and bad limits, cursors and queries', async () => {
    await expect(platform.search.search('needle', { network: 'home', whereText: ['colour=red'] })).rejects.toMatchObject({ code: 'scope_invalid', message: expect.stringContaining('colour') });
    await expect(platform.search.search('needle', { network: 'home', whereText: ['size>big'] })).rejects.toMatchObject({ code: 'scope_invalid' });
    await expect(platform.search.search('needle', { network: 'home', whereText: ['size'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.search.search('needle', { network: 'home', limit: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.search.search('needle', { network: 'home', cursor: 'forged' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.search.search('   ', { network: 'home' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
