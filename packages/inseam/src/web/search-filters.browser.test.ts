/**
 * Search filters in Chromium against real indexed hosts (the `files` folder and the pad): by
 * host, by type (a MIME family), by modification date and by path prefix, each narrowing the
 * hits to what it names, sent as the search API's `host` and `where` filters, kept in the
 * route's query so a reload searches the same; backwards dates are refused in the form. Screenshots
 * at desktop and phone widths.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, eventually, go, launchChromium, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer, screenshotsAtTwoWidths } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

const ALL = ['files://data/ferry.json', 'files://docs/ferry.md', 'files://old/ferry-1999.txt', 'pad://ferry-notes.txt'];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  const { folder, platform } = server;
  await writeFile(`${folder}/docs/ferry.md`, '# Ferry\n\nThe ferry leaves at noon.\n');
  await mkdir(`${folder}/old`);
  await writeFile(`${folder}/old/ferry-1999.txt`, 'The old ferry timetable.\n');
  const longAgo = new Date('2020-01-15T12:00:00Z');
  await utimes(`${folder}/old/ferry-1999.txt`, longAgo, longAgo);
  await writeFile(`${folder}/data/ferry.json`, '{ "ferry": "crossing times" }\n');
  const written = await fetch(`${server.url}/v1/fs/write?address=${encodeURIComponent('pad://ferry-notes.txt')}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${server.admin}`, 'inseam-network': 'home', 'content-type': 'text/plain' },
    body: 'Notes on the ferry crossing.\n',
  });
  expect(written.status).toBe(200);
  for (const host of ['files', 'pad']) await (await platform.sync({ network: 'home', host })).result;
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

/** The hits shown, as `host://path`, sorted. */
async function hits(page: Page): Promise<string[]> {
  return (await page.getByRole('region', { name: 'Search results' }).locator('.hit-link').allTextContents()).sort();
}

/** The `host` and `where` parameters of the newest search request the page made. */
function lastSearch(watched: WatchedPage): { host: string[]; where: string[] } {
  const request = watched.requests.filter((item) => item.url.startsWith('/v1/search?')).at(-1)!;
  const params = new URL(request.url, server.url).searchParams;
  return { host: params.getAll('host'), where: params.getAll('where') };
}

describe('search filters', () => {
  it('narrow the hits by host, type, date and path, and stay in the route across a reload', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse?q=ferry&mode=keyword');
    await eventually(() => hits(page)).toEqual(ALL);
    const form = page.getByRole('form', { name: 'Search filters' });
    const apply = () => form.getByRole('button', { name: 'Apply filters' }).click();

    // Host: the pad only.
    await form.getByLabel('Host', { exact: true }).selectOption('pad');
    await apply();
    await page.waitForURL(/#\/browse\?q=ferry&mode=keyword&host=pad$/);
    await eventually(() => hits(page)).toEqual(['pad://ferry-notes.txt']);
    expect(lastSearch(watched)).toEqual({ host: ['pad'], where: [] });

    // Type: documents and data (application/…), on every host.
    await form.getByLabel('Host', { exact: true }).selectOption('');
    await form.getByLabel('Type').selectOption('application');
    await apply();
    await eventually(() => hits(page)).toEqual(['files://data/ferry.json']);
    expect(lastSearch(watched)).toEqual({ host: [], where: ['mime^=application/'] });

    // Text modified before 2021: the old timetable; from 2021 on: the rest of the text.
    await form.getByLabel('Type').selectOption('text');
    await form.getByLabel('Modified before').fill('2021-01-01');
    await apply();
    await eventually(() => hits(page)).toEqual(['files://old/ferry-1999.txt']);
    expect(lastSearch(watched).where).toEqual(['mime^=text/', 'mtime<2021-01-01']);
    await form.getByLabel('Modified before').fill('');
    await form.getByLabel('Modified on or after').fill('2021-01-01');
    await apply();
    await eventually(() => hits(page)).toEqual(['files://docs/ferry.md', 'pad://ferry-notes.txt']);

    // Path: a prefix of the path inside the host, with the type and date still applied.
    await form.getByLabel('Path starts with').fill('docs');
    await apply();
    await page.waitForURL(/#\/browse\?q=ferry&mode=keyword&type=text&after=2021-01-01&path=docs$/);
    await eventually(() => hits(page)).toEqual(['files://docs/ferry.md']);
    expect(lastSearch(watched).where).toEqual(['mime^=text/', 'mtime>=2021-01-01', 'path^=docs']);
    expect(await page.locator('[data-filters]').textContent()).toBe('3 filters');
    await screenshotsAtTwoWidths(page, 'search-filters');

    // A reload keeps the filters: in the form and in what is searched.
    await page.reload();
    await page.waitForSelector('[data-state="signed-in"]');
    await eventually(() => hits(page)).toEqual(['files://docs/ferry.md']);
    expect(await form.getByLabel('Type').inputValue()).toBe('text');
    expect(await form.getByLabel('Modified on or after').inputValue()).toBe('2021-01-01');
    expect(await form.getByLabel('Path starts with').inputValue()).toBe('docs');

    // New words keep the filters; Clear filters searches everything again.
    const box = page.getByLabel('Search files');
    await box.fill('timetable');
    await box.press('Enter');
    await page.waitForURL(/q=timetable&mode=keyword&type=text&after=2021-01-01&path=docs$/);
    await eventually(() => page.locator('.detail-pane .empty-title').textContent()).toBe('Nothing matches');
    await form.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL(/#\/browse\?q=timetable&mode=keyword$/);
    await eventually(() => hits(page)).toEqual(['files://old/ferry-1999.txt']);
    expectClean(watched);
  }, BROWSER_TEST_MS * 2);

  it('refuses a date range that ends before it starts, searching nothing', async () => {
    const watched = await open();
    const { page } = watched;
    await go(page, '#/browse?q=ferry&mode=keyword');
    await eventually(() => hits(page)).toEqual(ALL);
    const searches = watched.requests.filter((item) => item.url.startsWith('/v1/search?')).length;
    const form = page.getByRole('form', { name: 'Search filters' });
    await form.getByLabel('Modified on or after').fill('2022-05-01');
    await form.getByLabel('Modified before').fill('2022-04-01');
    await form.getByRole('button', { name: 'Apply filters' }).click();
    expect(await form.locator('.field-error').textContent()).toContain('The first day must come before the last');
    expect(await form.getByLabel('Modified on or after').getAttribute('aria-invalid')).toBe('true');
    expect(watched.requests.filter((item) => item.url.startsWith('/v1/search?')).length).toBe(searches);
    expect(page.url()).toMatch(/#\/browse\?q=ferry&mode=keyword$/);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
