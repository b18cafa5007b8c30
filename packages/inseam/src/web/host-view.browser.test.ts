/**
 * The web page in Chromium (issue 16, items 3 and 4): the add form's sync fields (the kind's
 * default shown and chosen, the interval sent), a host's own view with its last syncs (when, how
 * long, added, changed, removed, errors), the edit view (a refused change placed on its field and
 * nothing changed; a saved change re-syncing the host) and removing a host after a confirmation.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
let spare: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  spare = await tempDir('web-host-view');
  await mkdir(join(spare, 'one'));
  await mkdir(join(spare, 'two'));
  await writeFile(join(spare, 'one', 'a.md'), 'alpha\n');
  await writeFile(join(spare, 'one', 'b.md'), 'bravo\n');
  await writeFile(join(spare, 'two', 'c.md'), 'charlie\n');
  await writeFile(join(spare, 'plain.txt'), 'a file, not a folder\n');
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  if (spare !== undefined) await removeDir(spare);
});

async function open(): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

const ref = { network: 'home', host: 'notes' };

describe('the add form\'s sync fields', () => {
  it('shows the kind\'s default (a folder syncs automatically), and sends what the person chose', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new/fs');
    const form = page.locator('form[data-kind="fs"]');
    await form.waitFor();
    const automatic = form.getByRole('radio', { name: 'Automatically' });
    const manual = form.getByRole('radio', { name: 'Only when asked' });
    const interval = form.getByLabel('Sync interval');
    // Before the settings are checked nothing is chosen; once they are, the kind's default is.
    expect(await form.locator('[data-sync-default]').textContent()).toBe('The default follows from the connection settings.');
    expect(await automatic.isChecked()).toBe(false);
    expect(await manual.isChecked()).toBe(false);
    await page.getByLabel('Slug', { exact: true }).fill('notes');
    await page.getByLabel('Root', { exact: true }).fill(join(spare, 'one'));
    await page.getByLabel('Root', { exact: true }).press('Tab');
    await eventually(() => form.locator('[data-sync-default]').textContent()).toBe("This kind's default: automatically, every 15 minutes (it can be watched or listed for free).");
    expect(await automatic.isChecked()).toBe(true);
    expect(await interval.isDisabled()).toBe(false);
    await manual.check();
    expect(await interval.isDisabled()).toBe(true);
    await automatic.check();
    await interval.selectOption('PT1H');
    await screenshot(page, 'add-host-sync');
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.waitForURL(/#\/hosts$/);
    expect((await server.platform.networks.showHost(ref)).sync).toEqual({ trigger: 'auto', interval: 'PT1H' });
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('adds a host synced only when asked when the person says so', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new/fs');
    const form = page.locator('form[data-kind="fs"]');
    await form.waitFor();
    await page.getByLabel('Slug', { exact: true }).fill('quiet');
    await page.getByLabel('Root', { exact: true }).fill(join(spare, 'two'));
    await form.getByRole('radio', { name: 'Only when asked' }).check();
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.waitForURL(/#\/hosts$/);
    expect((await server.platform.networks.showHost({ network: 'home', host: 'quiet' })).sync).toEqual({ trigger: 'manual' });
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('a host\'s view', () => {
  it('shows its last syncs: when, how long, what was added, changed and removed, and errors', async () => {
    await (await server.platform.sync(ref)).result;
    await writeFile(join(spare, 'one', 'b.md'), 'bravo, rewritten at more length\n');
    await writeFile(join(spare, 'one', 'new.md'), 'a new note\n');
    await rm(join(spare, 'one', 'a.md'));
    await (await server.platform.sync(ref, { mode: 'full' })).result;
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server);
    await page.getByRole('link', { name: 'Details of notes' }).click();
    await page.waitForURL(/#\/hosts\/notes$/);
    const rows = page.locator('.syncs-table tbody tr');
    await eventually(() => rows.count()).toBeGreaterThanOrEqual(2);
    const newest = rows.first();
    expect(await newest.getAttribute('data-state')).toBe('completed');
    expect(await newest.locator('td').allTextContents()).toEqual([expect.stringMatching(/just now|seconds? ago/), expect.stringMatching(/\d+(\.\d)? (ms|s)/), 'Full', 'Completed', '1', '1', '1', '0']);
    expect(await page.locator('[data-field="sync"]').textContent()).toBe('Automatically, every hour');
    expect(await page.locator('[data-field="access"]').textContent()).toBe('Read only');
    await screenshot(page, 'host-view');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('the edit view', () => {
  it('places a refused change on its field and changes nothing; a saved one changes the host and re-syncs it', async () => {
    const before = await server.platform.networks.showHost(ref);
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/notes');
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.waitForURL(/#\/hosts\/notes\/edit$/);
    const form = page.locator('form[data-edit="notes"]');
    await form.waitFor();
    const label = form.getByLabel('Label', { exact: true });
    const root = form.getByLabel('Root', { exact: true });
    expect(await root.inputValue()).toBe(join(spare, 'one'));
    expect(await form.getByRole('radio', { name: 'Automatically' }).isChecked()).toBe(true);
    expect(await form.getByLabel('Sync interval').inputValue()).toBe('PT1H');

    await label.fill('Renamed notes');
    await root.fill(join(spare, 'plain.txt'));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => form.locator('[data-path="root"] .field-error').textContent()).toBe('field "root" names a file, not a folder; give the folder that holds it.');
    expect(await root.getAttribute('aria-invalid')).toBe('true');
    expect(await form.locator('.summary').textContent()).toContain('nothing was changed');
    await screenshot(page, 'host-edit-refused');
    expect(await server.platform.networks.showHost(ref)).toEqual(before);

    await root.fill(join(spare, 'two'));
    await form.getByRole('radio', { name: 'Only when asked' }).check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(/#\/hosts\/notes$/);
    expect(await page.getByText('Host Renamed notes saved; it is syncing in full.').isVisible()).toBe(true);
    expect(await server.platform.networks.showHost(ref)).toMatchObject({ label: 'Renamed notes', config: { root: join(spare, 'two') }, sync: { trigger: 'manual' } });
    const hostId = (await server.platform.networks.hostRecord(ref)).id;
    await eventually(async () => (await server.platform.store.catalog.listEntries(hostId)).map((entry) => entry.path)).toEqual(['c.md']);
    await eventually(() => page.locator('.syncs-table tbody tr').first().locator('[data-count="added"]').textContent()).toBe('1');
    expect(await page.locator('[data-field="sync"]').textContent()).toBe('Only when asked');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('removing a host', () => {
  it('asks first; Cancel keeps the host, Remove takes it away', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/quiet');
    const remove = page.getByRole('button', { name: 'Remove host' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Remove quiet?' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('The files on the host itself are not touched.');
    await screenshot(page, 'host-remove-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => dialog.isVisible()).toBe(false);
    expect((await server.platform.networks.listHosts('home')).map((host) => host.slug)).toContain('quiet');

    await remove.click();
    await page.getByRole('dialog', { name: 'Remove quiet?' }).getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(/#\/hosts$/);
    expect(await page.getByText('Host quiet removed.').isVisible()).toBe(true);
    expect((await server.platform.networks.listHosts('home')).map((host) => host.slug)).not.toContain('quiet');
    // The list is still loading when the URL changes: wait for the remaining row before asking
    // which rows are absent, or an empty loading panel passes for "quiet is gone".
    await eventually(() => page.locator('tr[data-host="pad"]').count()).toBe(1);
    expect(await page.locator('tr[data-host="quiet"]').count()).toBe(0);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
