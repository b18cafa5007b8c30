/**
 * The Packages view in Chromium (issue 23, item 1): a person installs a connector package from a
 * folder on the server with the trust they give it, sees it listed with its kind, sees a swap the
 * loader refuses leave the old version serving with the reason, swaps it after its folder changed,
 * and removes it after a confirmation (Cancel keeps it). An install the trust
 * does not allow (source kinds from an untrusted package) shows the loader's message at the field
 * and stores nothing. An agent's token sees the list without the controls; a token without
 * packages.manage has no Packages entry in the navigation at all. Screenshots at desktop and
 * 420 px, the page no wider than the window.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { writeSourcePackage } from '../platform/__fixtures__/source-package.js';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer, screenshotsAtTwoWidths, signInWithToken } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
let packages: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  packages = await tempDir('web-packages');
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  if (packages !== undefined) await removeDir(packages);
});

async function open(route = '#/packages'): Promise<WatchedPage> {
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
  // The refusals the test provokes (a 400 install) are answers the page shows, not errors.
  expect(watched.errors, 'page errors').toEqual([]);
}

async function installedIds(): Promise<string[]> {
  return (await server.platform.packages.list()).filter((entry) => !entry.builtin).map((entry) => entry.packageId);
}

describe('the Packages view', () => {
  it('installs a package with the trust the person gives it, lists it with its kind, swaps it and removes it after a confirmation', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1', claimsTrust: 'first-party' });
    const watched = await open('#/hosts');
    const { page } = watched;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Packages' }).click();
    await page.waitForURL(/#\/packages$/);
    // The built-ins are listed, without Swap or Remove.
    const seed = page.locator('tr[data-package]').first();
    await seed.waitFor();
    expect(await seed.locator('[data-cell="origin"]').textContent()).toBe('Built in');
    expect(await seed.getByRole('button').count()).toBe(0);

    const form = page.locator('form[data-form="install-package"]');
    await form.getByLabel('Folder').fill(folder);
    await form.getByRole('radio', { name: 'Trusted', exact: true }).check();
    await form.getByRole('button', { name: 'Install package' }).click();
    const row = page.locator('tr[data-package="acme.board"]');
    await row.waitFor();
    expect(await row.locator('[data-cell="version"]').textContent()).toBe(' 1.0.0');
    // The installer's trust, never the manifest's claim.
    expect(await row.locator('[data-cell="trust"]').textContent()).toBe('trusted');
    expect(await row.locator('[data-cell="kinds"]').textContent()).toBe('board');
    expect(await row.locator('[data-cell="state"]').textContent()).toBe('Loaded');
    expect(await row.locator('[data-cell="origin"]').textContent()).toMatch(new RegExp(`^Installed by ann · (just now|\\d+ seconds? ago)${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(server.platform.kinds.has('board')).toBe(true);
    expect(await installedIds()).toEqual(['acme.board']);
    await screenshotsAtTwoWidths(page, 'packages');

    // A swap the loader refuses (a module path outside the package) leaves the old version serving, and says why.
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    manifest.version = '1.1.0';
    manifest.neuralis.connectors[0].connectorFactory = '../outside.js#create0';
    await writeFile(join(folder, 'package.json'), JSON.stringify(manifest));
    await row.getByRole('button', { name: 'Swap acme.board' }).click();
    const swapError = row.locator('[data-cell="state"] [data-error]');
    await swapError.waitFor();
    expect(await swapError.getAttribute('data-error')).toBe('manifest_invalid');
    expect(await swapError.textContent()).toMatch(/^The last swap failed; the previous version still serves: ./);
    expect(await row.locator('[data-cell="version"]').textContent()).toBe(' 1.0.0');
    expect(await page.locator('.toast.tone-error').textContent()).toContain('acme.board was not swapped');
    await screenshot(page, 'packages-swap-failed');
    await page.locator('.toast.tone-error').getByRole('button', { name: 'Dismiss' }).click();

    // Swap reads the folder again: the new version and its new kind.
    await writeSourcePackage(folder, { id: 'acme.board', version: '2.0.0', kinds: ['board', 'wiki'], text: 'board v2' });
    await row.getByRole('button', { name: 'Swap acme.board' }).click();
    await eventually(() => row.locator('[data-cell="version"]').textContent()).toBe(' 2.0.0');
    expect(await row.locator('[data-cell="kinds"] .chip').allTextContents()).toEqual(['board', 'wiki']);
    expect(await swapError.count()).toBe(0);
    expect(server.platform.kinds.has('wiki')).toBe(true);

    // Remove asks first: Cancel keeps it, Remove takes it out.
    await row.getByRole('button', { name: 'Remove acme.board' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove acme.board?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Hosts of its kinds (board, wiki) stay stored as orphans');
    await screenshot(page, 'packages-remove');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await installedIds()).toEqual(['acme.board']);
    await row.getByRole('button', { name: 'Remove acme.board' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await installedIds()).toEqual([]);
    expect(server.platform.kinds.has('board')).toBe(false);
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('shows a refused install at the field and stores nothing: source kinds need a trusted package', async () => {
    const folder = await writeSourcePackage(join(packages, 'desk'), { id: 'acme.desk', version: '1.0.0', kinds: ['desk'], text: 'desk v1' });
    const watched = await open();
    const { page } = watched;
    const form = page.locator('form[data-form="install-package"]');
    await form.getByLabel('Folder').fill(folder);
    await form.getByRole('radio', { name: 'Untrusted' }).check();
    await form.getByRole('button', { name: 'Install package' }).click();
    const error = form.locator('[data-field="trust"] .field-error');
    await eventually(() => error.isVisible()).toBe(true);
    expect(await error.textContent()).toMatch(/trust/i);
    expect(await form.getByRole('radio', { name: 'Untrusted' }).getAttribute('aria-invalid')).toBe('true');
    expect(await installedIds()).toEqual([]);
    expect(await page.locator('tr[data-package="acme.desk"]').count()).toBe(0);
    expect(server.platform.kinds.has('desk')).toBe(false);
    await screenshotsAtTwoWidths(page, 'packages-refused');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it("lists a network's _packages/ drop with its network and offers it no Swap or Remove", async () => {
    const network = (await server.platform.networks.list())[0]!.slug;
    await writeSourcePackage(join(server.platform.paths.networkRoot(network), '_packages', 'mcp-drop'), { id: 'drop.mcp', version: '0.1.0', kinds: [], text: '' });
    expect((await server.platform.packages.rescan(network)).loaded).toEqual(['drop.mcp']);
    const watched = await open();
    const { page } = watched;
    const row = page.locator('tr[data-package="drop.mcp"]');
    await eventually(() => row.count()).toBe(1);
    expect(await row.locator('[data-cell="origin"]').textContent()).toContain(`Drop in network ${network}`);
    expect(await row.getByRole('button').count()).toBe(0);
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('offers no Packages entry to a token without packages.manage, and no controls to an agent\'s token with it', async () => {
    const plain = (await server.tokens.create({ name: 'hosts-only', userId: 'ann', network: 'home', features: ['hosts.manage'] })).token;
    const asPlain = await openWithToken(plain, '#/hosts');
    const nav = asPlain.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Connectors' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Packages' }).count()).toBe(0);
    expectClean(asPlain);

    const agent = (await server.tokens.create({ name: 'packages-agent', userId: 'ann', agentId: 'helper', network: 'home', features: ['packages.manage'] })).token;
    const asAgent = await openWithToken(agent, '#/packages');
    const { page } = asAgent;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Packages' }).waitFor();
    await page.locator('tr[data-package]').first().waitFor();
    expect(await page.locator('form[data-form="install-package"]').count()).toBe(0);
    expect(await page.locator('[data-packages="read-only"]').textContent()).toContain('a person\'s token');
    expectClean(asAgent);
  }, BROWSER_TEST_MS);
});
