/**
 * A host's view in Chromium (issue 20, item 4): the catalog over its syncs — after real crawls of a
 * folder that grows between them, the chart has one point per sync with the entries and bytes the
 * catalog held when it stopped, and its table and sentence say the same; the catalog's size now;
 * a running crawl (paced: each document's extraction waits a little) shows its rate. Screenshots
 * at desktop and phone widths, with nothing scrolling sideways.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedExtractor, type DocumentExtractor } from '../extract/index.js';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { BROWSER_TEST_MS, eventually, launchChromium, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer, screenshotsAtTwoWidths } from './__fixtures__/browser.js';

/** Each document waits this long before the real extractor reads it: a crawl slow enough to watch. */
const PACE_MS = 40;
const PACED_FILES = 160;

const paced: DocumentExtractor = {
  extract: async (kind, bytes, options) => {
    await delay(PACE_MS);
    return sharedExtractor().extract(kind, bytes, options);
  },
};

let server: WebServer;
let browser: Browser;
let folders: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer({ crawler: { batchSize: 4, readConcurrency: 1, extractor: paced } }), launchChromium()]);
  folders = await tempDir('web-host-chart');
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  if (folders !== undefined) await removeDir(folders);
});

async function open(route: string): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await signInByLink(watched.page, server, route);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

/** A folder host synced only when asked, so every sync in its history is one the test started. */
async function addFolderHost(slug: string, root: string): Promise<void> {
  await server.platform.networks.addHost({ network: 'home', slug, kind: 'fs', config: { root }, label: slug, sync: { trigger: 'manual' } });
}

/** The files' count and total size, as the catalog should hold them. */
async function folderSize(root: string, names: readonly string[]): Promise<{ entries: number; bytes: number }> {
  let bytes = 0;
  for (const name of names) bytes += (await stat(join(root, name))).size;
  return { entries: names.length, bytes };
}

describe('the catalog over a host\'s syncs', () => {
  it('has one point per sync with the entries and bytes the catalog held after it, and the same numbers as text', async () => {
    const root = join(folders, 'growing');
    await mkdir(root);
    const ref = { network: 'home', host: 'growing' };
    await writeFile(join(root, 'a.md'), 'alpha\n');
    await writeFile(join(root, 'b.md'), 'bravo, a little longer\n');
    await addFolderHost('growing', root);
    const expected: { entries: number; bytes: number }[] = [];
    await (await server.platform.sync(ref)).result;
    expected.push(await folderSize(root, ['a.md', 'b.md']));
    await writeFile(join(root, 'c.md'), 'charlie\n'.repeat(40));
    await (await server.platform.sync(ref)).result;
    expected.push(await folderSize(root, ['a.md', 'b.md', 'c.md']));
    await writeFile(join(root, 'd.md'), 'delta\n'.repeat(500));
    await writeFile(join(root, 'e.md'), 'echo\n');
    await (await server.platform.sync(ref, { mode: 'full' })).result;
    expected.push(await folderSize(root, ['a.md', 'b.md', 'c.md', 'd.md', 'e.md']));
    const hostId = (await server.platform.networks.hostRecord(ref)).id;
    const runs = (await server.platform.store.syncHistory.list(hostId)).map((sync) => String(sync.runId)).reverse();
    expect(runs).toHaveLength(3);

    const watched = await open('#/hosts/growing');
    const { page } = watched;
    const chart = page.locator('[data-section="catalog-chart"] .sync-chart');
    await eventually(() => chart.getAttribute('data-points')).toBe('3');
    const values = (series: string) => chart.locator(`svg[data-chart="${series}"] circle.chart-point`).evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-value'))));
    expect(await values('entries')).toEqual(expected.map((size) => size.entries));
    expect(await values('bytes')).toEqual(expected.map((size) => size.bytes));
    expect(await chart.locator('svg[data-chart="entries"] circle.chart-point').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-run')))).toEqual(runs);
    expect(await chart.locator('svg[data-chart="entries"]').getAttribute('role')).toBe('img');
    expect(await chart.locator('svg[data-chart="entries"] > title').textContent()).toBe('Entries in the catalog after each sync');

    // The table fallback: the same numbers, one row per sync, oldest first.
    const rows = chart.locator('.sync-chart-table tbody tr');
    expect(await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-run')))).toEqual(runs);
    expect(await rows.locator('[data-count="entries"]').allTextContents()).toEqual(expected.map((size) => String(size.entries)));
    expect(await rows.locator('[data-count="bytes"]').evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-bytes'))))).toEqual(expected.map((size) => size.bytes));
    const [first, last] = [expected[0]!, expected[2]!];
    expect(await chart.locator('[data-chart-summary]').textContent()).toMatch(new RegExp(`^Over 3 syncs, from .+ to .+, the catalog went from 2 entries \\(${first.bytes} B\\) to 5 entries \\(${(last.bytes / 1000).toFixed(1)} KB\\)\\.$`));

    // The catalog's size now, exact in its title.
    const size = page.locator('[data-field="size"]');
    expect(await size.textContent()).toBe(`5 entries · ${(last.bytes / 1000).toFixed(1)} KB`);
    expect(await size.getAttribute('title')).toBe(`${last.bytes.toLocaleString('en')} bytes`);
    // Nothing runs: no rate.
    expect(await page.locator('[data-field="rate"]').count()).toBe(0);
    await page.locator('.sync-chart-numbers > summary').click();
    await screenshotsAtTwoWidths(page, 'host-chart');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('a crawl in progress', () => {
  it('shows its rate in entries per second while it runs, and the finished sync on the chart after', async () => {
    const root = join(folders, 'paced');
    await mkdir(root);
    for (let n = 0; n < PACED_FILES; n += 1) await writeFile(join(root, `page-${String(n).padStart(3, '0')}.html`), `<html><body><h1>Page ${n}</h1><p>Harbour notes, page ${n}.</p></body></html>\n`);
    await addFolderHost('paced', root);
    const ref = { network: 'home', host: 'paced' };
    const handle = await server.platform.sync(ref);

    const watched = await open('#/hosts/paced');
    const { page } = watched;
    const rate = page.locator('[data-field="rate"]');
    await eventually(async () => Number((await rate.count()) === 0 ? 0 : await rate.getAttribute('data-rate'))).toBeGreaterThan(0);
    expect(await rate.textContent()).toMatch(/^\d+(\.\d)? entries\/s$/);
    expect(await page.locator('[data-crawl="running"]').textContent()).toContain('Crawling');
    await screenshotsAtTwoWidths(page, 'host-crawl-rate');
    expect(await rate.count(), 'still crawling after the screenshots (make the crawl slower if not)').toBe(1);

    await handle.result;
    await eventually(() => rate.count()).toBe(0);
    await eventually(() => page.locator('[data-section="catalog-chart"] .sync-chart').getAttribute('data-points')).toBe('1');
    expect(await page.locator('svg[data-chart="entries"] circle.chart-point').getAttribute('data-value')).toBe(String(PACED_FILES));
    expect(await page.locator('[data-field="size"]').textContent()).toMatch(new RegExp(`^${PACED_FILES} entries · `));
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
