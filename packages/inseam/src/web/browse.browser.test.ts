/**
 * Browsing in Chromium: the file tree by mouse and keyboard, an entry's details, text, image and
 * document (PDF, DOCX) previews, downloads fetched in byte ranges (and a range of one's own), and search over the
 * synced content.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxOf, pdfOf } from '../extract/__fixtures__/documents.js';
import { BROWSER_TEST_MS, bandsPng, eventually, focused, go, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, WEB_FILES, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

/** Larger than two download pieces (4 MiB each), so a download takes three ranged requests. */
const BIG_BYTES = 9_000_000;

let server: WebServer;
let browser: Browser;
let big: Buffer;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  big = Buffer.alloc(BIG_BYTES);
  for (let index = 0; index < BIG_BYTES; index += 1) big[index] = (index * 31 + (index >> 12)) & 0xff;
  await writeFile(`${server.folder}/data/archive.bin`, big);
  await writeFile(`${server.folder}/data/report.pdf`, pdfOf([['Zebra census totals'], ['Counted in spring']]));
  await writeFile(`${server.folder}/data/minutes.docx`, docxOf(['Minutes of the budget committee']));
  await writeFile(`${server.folder}/data/broken.pdf`, pdfOf([['Hello']]).subarray(0, 200));
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

async function open(): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await signInByLink(watched.page, server, '#/browse');
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

/** The parts of an <img> the tests read (the tests type-check without the DOM's declarations). */
interface Picture {
  readonly complete: boolean;
  readonly naturalWidth: number;
  readonly naturalHeight: number;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the file tree', () => {
  it('walks hosts and folders by mouse and keyboard, and shows an entry\'s details with a text preview', async () => {
    const watched = await open();
    const { page } = watched;
    const tree = page.getByRole('tree', { name: 'Hosts and files' });
    // The pad, the seed package's data source, the vector source and the test's files.
    await eventually(() => tree.getByRole('treeitem').count()).toBe(4);
    expect(await page.locator('.detail-pane .empty-title').textContent()).toBe('Choose a host');

    await tree.getByRole('treeitem', { name: 'Team files' }).locator('.tree-row').first().click();
    const folder = page.locator('article.folder');
    await eventually(() => folder.getAttribute('data-address')).toBe('inseam://home/files/');
    expect(await folder.locator('tbody .entry-link').allTextContents()).toEqual(['data', 'docs', 'images', 'README.md']);
    expect(await tree.getByRole('treeitem', { name: 'Team files' }).getAttribute('aria-expanded')).toBe('true');

    // Keyboard: down to docs, open it, into it, down to plan.md, Enter.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page, 'data-address')).toBe('inseam://home/files/docs');
    await page.keyboard.press('ArrowRight');
    await eventually(() => focused(page, 'aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page, 'data-address')).toBe('inseam://home/files/docs/plan.md');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/browse\/files\/docs\/plan\.md$/);
    const entry = page.locator('article.entry:not(.folder)');
    await eventually(() => entry.getAttribute('data-address')).toBe('inseam://home/files/docs/plan.md');
    expect(await entry.getByRole('heading', { level: 2 }).textContent()).toBe('plan.md');
    const facts = Object.fromEntries(await entry.locator('.props dt').evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])));
    expect(facts).toMatchObject({ Type: 'text/markdown', Size: `${WEB_FILES['docs/plan.md']!.length} B (${WEB_FILES['docs/plan.md']!.length} bytes)`, Source: 'live' });
    expect(facts['Address']).toContain('inseam://home/files/docs/plan.md');
    await eventually(() => entry.locator('.code .text').textContent()).toBe(WEB_FILES['docs/plan.md']!.trimEnd());
    expect(await entry.locator('.code .gutter').textContent()).toBe('1\n2\n3\n4');
    expect(await tree.getByRole('treeitem', { name: 'plan.md' }).getAttribute('aria-selected')).toBe('true');
    await screenshot(page, 'browse-text');

    await page.keyboard.press('ArrowLeft');
    expect(await focused(page, 'data-address')).toBe('inseam://home/files/docs');
    await page.keyboard.press('ArrowLeft');
    expect(await tree.getByRole('treeitem', { name: 'docs' }).getAttribute('aria-expanded')).toBe('false');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('previews an image from its bytes, and says when a type has no preview', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse/files/images');
    await page.locator('article.folder').getByRole('link', { name: 'bands.png' }).click();
    const image = page.getByRole('img', { name: 'Preview of bands.png' });
    await eventually(() => image.evaluate((node) => (node as unknown as Picture).complete && (node as unknown as Picture).naturalWidth)).toBe(96);
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    expect(await image.evaluate((node) => (node as unknown as Picture).naturalHeight)).toBe(64);
    expect(watched.requests.some((request) => request.url.startsWith('/v1/fs/read?address=inseam%3A%2F%2Fhome%2Ffiles%2Fimages%2Fbands.png') && request.range === `bytes=0-${bandsPng().length - 1}`)).toBe(true);
    await screenshot(page, 'browse-image');

    await go(page, '#/browse/files/data/archive.bin');
    await eventually(() => page.locator('.preview').textContent()).toContain('No preview for application/octet-stream');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('document previews', () => {
  it('previews a PDF and a DOCX as their text, and says why a damaged one has none', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse/files/data/report.pdf');
    const entry = page.locator('article.entry:not(.folder)');
    await eventually(() => entry.locator('.code .text').textContent()).toMatch(/Zebra census totals[\s\S]*Counted in spring/u);
    expect(await page.locator('.preview').textContent()).toContain('The text in this document');
    expect(watched.requests.some((request) => request.url.startsWith('/v1/fs/text?address=inseam%3A%2F%2Fhome%2Ffiles%2Fdata%2Freport.pdf'))).toBe(true);
    await screenshot(page, 'browse-document');

    await go(page, '#/browse/files/data/minutes.docx');
    await eventually(() => page.locator('article.entry:not(.folder) .code .text').textContent()).toBe('Minutes of the budget committee');

    await go(page, '#/browse/files/data/broken.pdf');
    await eventually(() => page.locator('.preview').textContent()).toContain('could not be read as text');
    expect(watched.errors, 'page errors').toEqual([]);
    expect(watched.outside, 'requests outside the server').toEqual([]);
  }, BROWSER_TEST_MS);
});

describe('downloads', () => {
  it('fetch a large file in byte ranges and hand the whole file over', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse/files/data/archive.bin');
    const entry = page.locator('article.entry');
    await eventually(() => entry.getAttribute('data-address')).toBe('inseam://home/files/data/archive.bin');
    const [download] = await Promise.all([page.waitForEvent('download'), entry.getByRole('button', { name: 'Download', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('archive.bin');
    const saved = await readFile(await download.path());
    expect(saved.length).toBe(BIG_BYTES);
    expect(sha(saved)).toBe(sha(big));
    const ranges = watched.requests.filter((request) => request.url.includes('archive.bin') && request.url.startsWith('/v1/fs/read')).map((request) => request.range);
    expect(ranges).toEqual(['bytes=0-4194303', 'bytes=4194304-8388607', `bytes=8388608-${BIG_BYTES - 1}`]);
    await eventually(() => entry.locator('.download-status').textContent()).toBe(' Downloaded 9.0 MB.');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('download a byte range the person names, and refuse a backwards one', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse/files/README.md');
    const entry = page.locator('article.entry');
    await eventually(() => entry.getAttribute('data-address')).toBe('inseam://home/files/README.md');
    await entry.getByText('Byte range…').click();
    const first = page.getByLabel('First byte');
    const last = page.getByLabel('Last byte');
    expect(await last.inputValue()).toBe(String(WEB_FILES['README.md']!.length - 1));
    await first.fill('10');
    await last.fill('2');
    await entry.getByRole('button', { name: 'Download range' }).click();
    expect(await entry.locator('.range-form .field-error').textContent()).toBe('The first byte must not come after the last.');
    expect(await first.getAttribute('aria-invalid')).toBe('true');
    await first.fill('2');
    await last.fill('9');
    expect(await entry.locator('.range-form .field-error').isHidden()).toBe(true);
    expect(await first.getAttribute('aria-invalid')).toBeNull();
    await screenshot(page, 'browse-range');
    const [download] = await Promise.all([page.waitForEvent('download'), entry.getByRole('button', { name: 'Download range' }).click()]);
    expect(download.suggestedFilename()).toBe('README.md.bytes-2-9');
    expect((await readFile(await download.path())).toString('utf8')).toBe(WEB_FILES['README.md']!.slice(2, 10));
    expect(watched.requests.filter((request) => request.url.includes('README.md') && request.url.startsWith('/v1/fs/read')).map((request) => request.range)).toEqual(['bytes=2-9']);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('search', () => {
  it('finds synced content, marks the matched words, and opens a hit', async () => {
    const watched = await open();
    const { page } = watched;
    const box = page.getByLabel('Search files');
    expect(await page.getByLabel('Search mode').inputValue()).toBe('hybrid');
    await page.getByLabel('Search mode').selectOption('keyword');
    await box.fill('harbour');
    await box.press('Enter');
    await page.waitForURL(/#\/browse\?q=harbour&mode=keyword$/);
    const results = page.getByRole('region', { name: 'Search results' });
    await eventually(() => results.locator('.hit').count()).toBe(1);
    expect(await results.getByRole('heading', { level: 2 }).textContent()).toBe('Results for “harbour”');
    expect(await results.locator('.hit-link').textContent()).toBe('files://docs/plan.md');
    expect(await results.locator('mark').allTextContents()).toEqual(['harbour']);
    await screenshot(page, 'search');
    await results.locator('.hit-link').click();
    await eventually(() => page.locator('article.entry').getAttribute('data-address')).toBe('inseam://home/files/docs/plan.md');

    await box.fill('"no such words anywhere"');
    await box.press('Enter');
    await eventually(() => page.locator('.detail-pane .empty-title').textContent()).toBe('Nothing matches');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('finds by meaning what no word matches, with the passage and the OS path', async () => {
    // What `inseam up` does in the background after the crawl, waited for here.
    await server.platform.vectors.request('home');
    const watched = await open();
    const { page } = watched;
    const box = page.getByLabel('Search files');
    await page.getByLabel('Search mode').selectOption('semantic');
    await box.fill('boat harbor equipment');
    await box.press('Enter');
    await page.waitForURL(/#\/browse\?q=boat\+harbor\+equipment&mode=semantic$/);
    const results = page.getByRole('region', { name: 'Search results' });
    await eventually(async () => (await results.locator('.hit-link').allTextContents())[0]).toBe('files://docs/plan.md');
    const first = results.locator('.hit').first();
    expect(await first.locator('.snippet').textContent()).toContain('Ship the harbour crane on Tuesday.');
    expect(await first.textContent()).toContain('by meaning');
    expect(await first.locator('.os-path code').textContent()).toBe(`${server.folder}/docs/plan.md`);
    await screenshot(page, 'search-by-meaning');
    // The same question by exact words finds nothing.
    await page.getByLabel('Search mode').selectOption('keyword');
    await box.press('Enter');
    await eventually(() => page.locator('.detail-pane .empty-title').textContent()).toBe('Nothing matches');
    // A link that names no mode searches as every surface does by default: hybrid, so by meaning too.
    await go(page, '#/browse?q=boat+harbor+equipment');
    await eventually(async () => (await results.locator('.hit-link').allTextContents())[0]).toBe('files://docs/plan.md');
    expect(await page.getByLabel('Search mode').inputValue()).toBe('hybrid');
    expect(watched.requests.filter((request) => request.url.startsWith('/v1/search?') && request.url.includes('boat')).map((request) => new URL(request.url, server.url).searchParams.get('mode'))).toEqual(['semantic', 'keyword', 'hybrid']);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
