/**
 * Filtered search returns what matches, on every surface: `search budget --where
 * mime=text/markdown` over a folder where 1,050 plain-text files rank above the two readable
 * markdown files answers those two on the first page, with no cursor — through the CLI, `GET
 * /v1/search` and the MCP `search` tool (the SDK's client). A filter applied to a window of hits
 * after the query answered an empty page with a cursor instead. Markdown files under a denied
 * path, and a host the caller does not own, never show, on any page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { call, q, startApi, type Api } from '../http/__fixtures__/api.js';
import { openMcpFixture, structured, type McpFixture } from '../mcp/__fixtures__/mcp-fixture.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { cli } from '../cli/commands/__fixtures__/cli.js';

const LOUD = 1050;
const PERMISSIONS = { default: { read: true, write: false, exec: false }, paths: { private: { read: false } } };

/** Plain-text files that say "budget" often (they rank first), two markdown files that say it once, and two more where they may not be read. */
function budgetFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let index = 0; index < LOUD; index++) files[`ledger/l${String(index).padStart(4, '0')}.txt`] = 'budget budget budget budget';
  files['plans/q3.md'] = `budget ${'and other planning words '.repeat(60)}`;
  files['plans/q4.md'] = `budget ${'and more planning words '.repeat(60)}`;
  files['private/salaries.md'] = `budget ${'salary words '.repeat(60)}`;
  return files;
}

async function addBudgetHosts(platform: Platform, folder: string): Promise<void> {
  await platform.networks.addHost({ network: 'home', slug: 'budget', kind: 'fs', config: { root: folder }, permissions: PERMISSIONS });
  await platform.networks.addHost({ network: 'home', slug: 'bobs', kind: 'fs', config: { root: folder }, ownership: 'user', ownerId: 'bob' });
  for (const host of ['budget', 'bobs']) expect((await (await platform.sync({ network: 'home', host })).result).state).toBe('completed');
}

const EXPECTED = ['inseam://home/budget/plans/q3.md', 'inseam://home/budget/plans/q4.md'];

let folder: string;

beforeAll(async () => {
  folder = await tempDir('search-surfaces');
  await writeFiles(folder, budgetFiles());
}, 60_000);

afterAll(async () => {
  await removeDir(folder);
});

describe('the CLI', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await tempDir('search-surfaces-cli');
    const platform = await openTestPlatform(dataDir);
    try {
      await platform.networks.init('home');
      await addBudgetHosts(platform, folder);
    } finally {
      await platform.close();
    }
  }, 120_000);

  afterAll(async () => {
    await removeDir(dataDir);
  });

  it('answers the matching files on the first page, and no cursor', async () => {
    const run = await cli(dataDir, ['search', 'budget', '--network', 'home', '--host', 'budget', '--where', 'mime=text/markdown', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const page = JSON.parse(run.stdout) as { hits: { address: string }[]; next?: string };
    expect(page.hits.map((hit) => hit.address).sort()).toEqual(EXPECTED);
    expect(page.next).toBeUndefined();
    // Without the host filter the CLI (the machine's own person) sees bob's host too.
    const text = await cli(dataDir, ['search', 'budget', '--network', 'home', '--where', 'mime=text/markdown', '--where', 'path^=plans/']);
    expect(text.code).toBe(0);
    expect(text.stderr).not.toContain('next:');
  });

  it('pages a filter one hit at a time, each page full until the last, which has no cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const run = await cli(dataDir, ['search', 'budget', '--network', 'home', '--host', 'budget', '--where', 'mime=text/markdown', '--limit', '1', '--json', ...(cursor === undefined ? [] : ['--cursor', cursor])]);
      const page = JSON.parse(run.stdout) as { hits: { address: string }[]; next?: string };
      expect(page.hits).toHaveLength(1);
      seen.push(page.hits[0]!.address);
      cursor = page.next;
      if (cursor === undefined) break;
    }
    expect(seen.sort()).toEqual(EXPECTED);
    expect(cursor).toBeUndefined();
  });
});

describe('GET /v1/search', () => {
  let api: Api;

  beforeAll(async () => {
    api = await startApi();
    await addBudgetHosts(api.platform, folder);
  }, 120_000);

  afterAll(async () => {
    await api?.close();
  });

  it('answers the matching files on the first page, and no cursor', async () => {
    for (const token of [api.admin, api.reader]) {
      const answer = await call(api, 'GET', `/v1/search?q=budget&mode=keyword&where=${q('mime=text/markdown')}`, { token });
      expect(answer.status).toBe(200);
      const page = answer.json<{ hits: { address: string }[]; next?: string }>();
      // bob (reader) owns "bobs", so his answer has its two plans too; ann's has only the shared host's.
      const expected = token === api.reader ? [...EXPECTED, 'inseam://home/bobs/plans/q3.md', 'inseam://home/bobs/plans/q4.md', 'inseam://home/bobs/private/salaries.md'] : EXPECTED;
      expect(page.hits.map((hit) => hit.address).sort()).toEqual(expected.sort());
      expect(page.next).toBeUndefined();
    }
  });

  it('never pages past what the caller may read into an empty page with a cursor', async () => {
    const first = (await call(api, 'GET', `/v1/search?q=budget&mode=keyword&where=${q('mime=text/markdown')}&limit=2`, { token: api.admin })).json<{ hits: { address: string }[]; next?: string }>();
    expect(first.hits.map((hit) => hit.address).sort()).toEqual(EXPECTED);
    expect(first.next).toBeUndefined();
    const salaries = (await call(api, 'GET', `/v1/search?q=salary&host=budget&mode=keyword`, { token: api.admin })).json<{ hits: unknown[]; next?: string }>();
    expect(salaries).toEqual({ hits: [] });
  });
});

describe('the MCP search tool', () => {
  let fixture: McpFixture;
  let ann: Client;

  beforeAll(async () => {
    fixture = await openMcpFixture();
    await addBudgetHosts(fixture.platform, folder);
    fixture.tokens.set('ann-token', callerOf('ann'));
    ann = await fixture.client('ann-token');
  }, 120_000);

  afterAll(async () => {
    await fixture?.close();
  });

  it('answers the matching files on the first page, and no cursor', async () => {
    const result = (await ann.callTool({ name: 'search', arguments: { query: 'budget', mode: 'keyword', where: ['mime=text/markdown'] } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const page = structured(result) as { hits: { address: string }[]; next?: string };
    expect(page.hits.map((hit) => hit.address).sort()).toEqual(EXPECTED);
    expect(page.next).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain('salaries');
  });
});
