/**
 * Layout in Chromium: every view at a phone's width (420 px) and a desktop's (1280 px) with no
 * sideways scrolling of the page (a wide table scrolls inside its panel) and its main control
 * reachable, a screenshot of each (in the OS temp dir, printed); a toast stack that lets clicks
 * through to the controls under it; and a folder of 650 entries listed 200 at a time with every
 * entry reachable.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, eventually, go, launchChromium, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

const MANY = 650;
const SHOTS = join(tmpdir(), 'inseam-web-layout');

let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  await mkdir(`${server.folder}/many`);
  await Promise.all(Array.from({ length: MANY }, (_, index) => writeFile(`${server.folder}/many/item-${String(index).padStart(4, '0')}.txt`, `entry ${index}\n`)));
  await mkdir(SHOTS, { recursive: true });
  console.log(`layout screenshots: ${SHOTS}`);
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
  /** Each view, and a control it must show inside the viewport (clicked into view where its table scrolls). */
  const VIEWS: readonly (readonly [string, string, string])[] = [
    ['hosts', '#/hosts', 'Refresh'],
    ['host', '#/hosts/files', ''],
    ['add-host', '#/hosts/new', ''],
    ['browse', '#/browse/files/docs', ''],
    ['preview', '#/browse/files/docs/plan.md', 'Download'],
    ['search', '#/browse?q=harbour', ''],
    ['connectors', '#/connectors', ''],
  ];
  for (const width of [420, 1280]) {
    it(`shows every view at ${width} px without sideways scrolling of the page`, async () => {
      const { page, outside } = await open(width);
      for (const [name, hash, control] of VIEWS) {
        await go(page, hash);
        await page.waitForSelector('main h1, main h2');
        await page.waitForTimeout(300);
        if (control !== '') {
          const box = await page.getByRole('button', { name: control }).first().boundingBox();
          expect(box, `${name}: ${control}`).not.toBeNull();
          expect(box!.x + box!.width, `${name}: ${control} inside the viewport`).toBeLessThanOrEqual(width);
        }
        await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true, animations: 'disabled' });
        const [scroll, inner] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, innerWidth]');
        expect(scroll, `${name} at ${width} px is ${scroll} px wide`).toBeLessThanOrEqual(inner);
      }
      // The hosts list's actions, past the phone's width, are reached by scrolling the panel.
      await go(page, '#/hosts');
      const remove = page.locator('.hosts-table tr.host-row .actions .btn').last();
      await remove.scrollIntoViewIfNeeded();
      const box = await remove.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      expect(outside).toEqual([]);
    }, BROWSER_TEST_MS * 2);
  }

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
