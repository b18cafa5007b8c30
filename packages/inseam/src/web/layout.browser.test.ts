/**
 * Layout in Chromium: a toast stack that lets clicks through to the controls under it, and a
 * folder of 650 entries listed 200 at a time with every entry reachable.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, eventually, go, launchChromium, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

const MANY = 650;

let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  await mkdir(`${server.folder}/many`);
  await Promise.all(Array.from({ length: MANY }, (_, index) => writeFile(`${server.folder}/many/item-${String(index).padStart(4, '0')}.txt`, `entry ${index}\n`)));
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

async function open(width: number): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await watched.page.setViewportSize({ width, height: 800 });
  await signInByLink(watched.page, server);
  return watched;
}

describe('layout', () => {
  it('lets clicks through the toast stack to the controls under it', async () => {
    const { page } = await open(420);
    await go(page, '#/browse/files/README.md');
    await page.getByRole('button', { name: 'Download', exact: true }).first().waitFor();
    const events = await page.evaluate<string>(`getComputedStyle(document.querySelector('.toasts')).pointerEvents`);
    expect(events).toBe('none');
  }, BROWSER_TEST_MS);

  it('lists a folder of 650 entries 200 at a time, every entry reachable', async () => {
    const { page, errors } = await open(1280);
    await go(page, '#/browse/files/many');
    const links = page.locator('article.folder .files-table tbody a.entry-link');
    await eventually(() => links.count()).toBe(200);
    const more = page.getByRole('button', { name: 'Show more entries' });
    while (await more.isVisible()) {
      const before = await links.count();
      await more.click();
      await eventually(() => links.count()).toBeGreaterThan(before);
    }
    await eventually(() => links.count()).toBe(MANY);
    const names = (await links.allTextContents()).map((text) => text.trim());
    expect(new Set(names).size).toBe(MANY);
    expect(names).toContain('item-0649.txt');
    expect(errors).toEqual([]);
  }, BROWSER_TEST_MS * 2);
});
