/**
 * Changing files from a folder view in Chromium, against the real `files` folder: uploading a
 * file (then listed, and on disk byte for byte; the same name again refused with the API's
 * message), renaming one (onto a name that is taken: refused in the dialog, nothing moved),
 * deleting one after its confirmation (Cancel keeps it). Only the controls the token can use are
 * shown: none to an agent whose token holds no grant, none on a read-only host. Screenshots of
 * each at desktop and phone widths.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, eventually, go, launchChromium, signInByLink, startWebServer, watchedPage, WEB_FILES, type WatchedPage, type WebServer, screenshotsAtTwoWidths, signInWithToken } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  // The same folder again, added without a tree: read only.
  await server.platform.networks.addHost({ network: 'home', slug: 'shelf', kind: 'fs', config: { root: server.folder }, label: 'Shelf' });
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

async function open(route: string): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await signInByLink(watched.page, server, route);
  return watched;
}

/** A page signed in with an API token pasted earlier in this tab (kept in sessionStorage). */
async function openWithToken(token: string, route: string): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await signInWithToken(watched, server.url, token, route);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  // The refusals the test provokes (409) are answers the page shows, not errors.
  expect(watched.errors, 'page errors').toEqual([]);
}

function names(page: Page): Promise<string[]> {
  return page.locator('article.folder .files-table tbody a.entry-link').allTextContents();
}

const UPLOAD = Buffer.from('Uploaded from the page.\nSecond line.\n');

describe('changing files in a folder', () => {
  it('uploads a file: listed, on disk, and the same name again refused with the API message', async () => {
    const watched = await open('#/browse/files/docs');
    const { page } = watched;
    const folder = page.locator('article.folder');
    await eventually(() => names(page)).toEqual(['notes.txt', 'plan.md']);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), folder.getByRole('button', { name: 'Upload files' }).click()]);
    await chooser.setFiles({ name: 'upload.txt', mimeType: 'text/plain', buffer: UPLOAD });
    await eventually(() => names(page)).toEqual(['notes.txt', 'plan.md', 'upload.txt']);
    expect(await readFile(`${server.folder}/docs/upload.txt`)).toEqual(UPLOAD);
    const put = watched.requests.find((request) => request.method === 'PUT');
    expect(put?.url).toBe(`/v1/fs/write?address=${encodeURIComponent('inseam://home/files/docs/upload.txt')}`);
    // The tree lists the folder again too.
    expect(await page.getByRole('tree').getByRole('treeitem', { name: 'upload.txt' }).count()).toBe(1);
    await eventually(() => page.locator('.toast').last().textContent()).toContain('Uploaded upload.txt.');
    await screenshotsAtTwoWidths(page, 'files-upload');

    // Uploading never replaces: the same name is the API's already_exists, shown as it says it.
    const [again] = await Promise.all([page.waitForEvent('filechooser'), folder.getByRole('button', { name: 'Upload files' }).click()]);
    await again.setFiles({ name: 'upload.txt', mimeType: 'text/plain', buffer: Buffer.from('other') });
    const refusal = page.locator('.toast.tone-error');
    await eventually(() => refusal.count()).toBe(1);
    expect(await refusal.textContent()).toMatch(/^upload\.txt: .*exist/i);
    expect(await readFile(`${server.folder}/docs/upload.txt`)).toEqual(UPLOAD);
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('renames a file, and keeps it where the new name is taken', async () => {
    const watched = await open('#/browse/files/docs');
    const { page } = watched;
    await eventually(() => names(page)).toContain('upload.txt');
    await page.getByRole('button', { name: 'Rename upload.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename upload.txt' });
    const field = dialog.getByLabel('New name');
    expect(await field.inputValue()).toBe('upload.txt');
    // Taken: the API's refusal in the dialog, nothing moved.
    await field.fill('plan.md');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await eventually(() => dialog.locator('.field-error').textContent()).toMatch(/exist/i);
    expect(existsSync(`${server.folder}/docs/upload.txt`)).toBe(true);
    expect(await readFile(`${server.folder}/docs/plan.md`, 'utf8')).toBe(WEB_FILES['docs/plan.md']);
    await field.fill('renamed.txt');
    await screenshotsAtTwoWidths(page, 'files-rename');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await eventually(() => names(page)).toEqual(['notes.txt', 'plan.md', 'renamed.txt']);
    expect(await dialog.count()).toBe(0);
    expect(existsSync(`${server.folder}/docs/upload.txt`)).toBe(false);
    expect(await readFile(`${server.folder}/docs/renamed.txt`)).toEqual(UPLOAD);
    const move = watched.requests.find((request) => request.method === 'POST' && request.url === '/v1/fs/move');
    expect(move).toBeDefined();
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('deletes a file only after its confirmation: Cancel keeps it, Delete removes it', async () => {
    const watched = await open('#/browse/files/docs');
    const { page } = watched;
    await eventually(() => names(page)).toContain('renamed.txt');
    await page.getByRole('button', { name: 'Delete renamed.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete renamed.txt?' });
    expect(await dialog.textContent()).toContain('inseam://home/files/docs/renamed.txt');
    await screenshotsAtTwoWidths(page, 'files-delete');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(existsSync(`${server.folder}/docs/renamed.txt`)).toBe(true);
    expect(watched.requests.some((request) => request.method === 'DELETE')).toBe(false);

    // Escape keeps it too.
    await page.getByRole('button', { name: 'Delete renamed.txt' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    expect(await dialog.count()).toBe(0);
    expect(existsSync(`${server.folder}/docs/renamed.txt`)).toBe(true);

    await page.getByRole('button', { name: 'Delete renamed.txt' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => names(page)).toEqual(['notes.txt', 'plan.md']);
    expect(existsSync(`${server.folder}/docs/renamed.txt`)).toBe(false);
    expect(watched.requests.filter((request) => request.method === 'DELETE').map((request) => request.url)).toEqual([`/v1/fs/delete?address=${encodeURIComponent('inseam://home/files/docs/renamed.txt')}`]);
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('shows none of these controls to a token that cannot change files, nor on a read-only host', async () => {
    const controls = (page: Page) => page.locator('article.folder').getByRole('button', { name: /^(Upload files|Rename |Delete )/ });
    // An agent whose token holds no grant reads the folder and changes nothing.
    const agent = (await server.tokens.create({ name: 'reader-agent', userId: 'ann', agentId: 'helper', network: 'home', features: [] })).token;
    const asAgent = await openWithToken(agent, '#/browse/files/docs');
    await eventually(() => names(asAgent.page)).toEqual(['notes.txt', 'plan.md']);
    expect(await controls(asAgent.page).count()).toBe(0);
    expect(await asAgent.page.locator('article.folder th').count()).toBe(4);
    await screenshotsAtTwoWidths(asAgent.page, 'files-read-only-token');
    expectClean(asAgent);

    // A person, on a host added read only: the same folder without the controls; on files, with them.
    const person = await open('#/browse/shelf/docs');
    await eventually(() => names(person.page)).toEqual(['notes.txt', 'plan.md']);
    expect(await controls(person.page).count()).toBe(0);
    await go(person.page, '#/browse/files/docs');
    await eventually(() => person.page.locator('article.folder').getAttribute('data-address')).toBe('inseam://home/files/docs');
    await eventually(() => controls(person.page).count()).toBe(5);
    expectClean(person);
  }, BROWSER_TEST_MS);
});
