/**
 * The web page in Chromium: signing in, the hosts list (category chips, liveness, crawl progress,
 * last sync; an offline host dimmed but browsable), and adding hosts through the form rendered
 * from a kind's configSchema — its inline validation errors, the server's refusals placed on
 * their field, keyboard use — and through a source a package offers.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { BROWSER_TEST_MS, eventually, focused, launchChromium, screenshot, signInByLink, startWebServer, stored, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

/** A sandboxed module that declares category "Knowledge base" in its describe(). */
const WIKI_MODULE = `
export function createConnector() {
  return {
    describe() {
      return {
        kind: 'wiki', category: 'Knowledge base', capabilities: ['list', 'read'],
        auth: { acquire: { type: 'none' }, present: [], origins: ['https://wiki.example.com'] },
        dimensions: { path: { type: 'path', from: 'path', ordering: true, description: 'The path.' } },
        listing: 'free',
      };
    },
    async list() { return { entries: [] }; },
    async read() { const error = new Error('nothing here'); error.code = 'not_found'; throw error; },
  };
}
`;

let server: WebServer;
let browser: Browser;
let spare: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  spare = await tempDir('web-spare');
  await writeFile(`${spare}/hello.txt`, 'hello from the new host\n');
  // A host whose folder goes away after its crawl: offline, answered from its synced copy.
  const archive = await tempDir('web-archive');
  await mkdir(`${archive}/2023`);
  await writeFile(`${archive}/2023/minutes.txt`, 'The archive minutes.\n');
  await server.platform.networks.addHost({ network: 'home', slug: 'archive', kind: 'fs', config: { root: archive }, label: 'Archive' });
  await (await server.platform.sync({ network: 'home', host: 'archive' })).result;
  await rm(archive, { recursive: true, force: true });
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  if (spare !== undefined) await removeDir(spare);
});

async function open(colorScheme: 'light' | 'dark' = 'light'): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url, { colorScheme });
  pages.push(watched);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

describe('signing in', () => {
  it('asks for a token, refuses a wrong one, and takes a sign-in link out of the address bar', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${server.url}/`);
    const token = page.getByLabel('API token');
    await eventually(() => token.isVisible()).toBe(true);
    expect(await focused(page, 'id')).toBe('token');
    await screenshot(page, 'signin');
    await token.fill('inseam_not-a-real-token-000000000000000000000000');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByText('This token is not valid').isVisible()).toBe(true);
    expect(await token.getAttribute('aria-invalid')).toBe('true');

    await signInByLink(page, server);
    expect(page.url()).not.toContain('code=');
    expect(page.url()).toMatch(/#\/hosts$/);
    expect(await stored(page, 'inseam:token')).toMatch(/^inseam_ses_/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await eventually(() => page.getByLabel('API token').isVisible()).toBe(true);
    expect(await stored(page, 'inseam:token')).toBeNull();
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('the hosts list', () => {
  it('shows each host with its kind and category, liveness, crawl progress and last sync; offline hosts dimmed but browsable', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server);
    const files = page.locator('tr[data-host="files"]');
    await eventually(() => files.locator('[data-crawl]').getAttribute('data-crawl')).toBe('completed');
    expect(await files.locator('.host-label').textContent()).toBe('Team files');
    expect(await files.locator('[data-category]').textContent()).toBe('Disk');
    expect(await files.locator('.status').textContent()).toBe('Online');
    expect(await files.locator('.cell-crawl').textContent()).toBe('5 entries');
    expect(await files.locator('time').textContent()).toMatch(/just now|seconds? ago/);
    expect(await files.getAttribute('class')).not.toContain('dim');

    const archive = page.locator('tr[data-host="archive"]');
    await eventually(() => archive.getAttribute('data-status')).toBe('offline');
    expect(await archive.getAttribute('class')).toContain('dim');
    expect(await archive.locator('.status').textContent()).toBe('Offline');
    expect(await archive.locator('.dimmable').first().evaluate((node) => Number((globalThis as unknown as { getComputedStyle(element: unknown): { opacity: string } }).getComputedStyle(node).opacity))).toBeLessThan(1);
    expect(await archive.locator('.cell-crawl').textContent()).toBe('1 entry');
    expect(await page.locator('tr[data-host="pad"] .cell-crawl').textContent()).toBe('Not crawled yet');
    await screenshot(page, 'hosts');

    await archive.getByRole('link', { name: 'Browse Archive' }).click();
    const folder = page.locator('.detail-pane article.folder');
    await eventually(() => folder.getAttribute('data-address')).toBe('inseam://home/archive/');
    expect(await folder.getByText('synced copy — host offline').isVisible()).toBe(true);
    expect(await folder.getByRole('link', { name: '2023' }).isVisible()).toBe(true);
    await screenshot(page, 'hosts-offline-browse');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('has a chip for every category, a generic one for unknown categories, and dims runtime-inactive hosts', async () => {
    // A sandboxed kind whose describe() declares a category the page has no chip of: shown as declared.
    const probe = await server.platform.sandbox.load({ source: WIKI_MODULE, label: 'probe', config: {}, egress: { fetch: () => Promise.reject(new Error('unused')) } });
    const description = probe.describe();
    probe.dispose();
    server.platform.kinds.registerSandboxed({ source: WIKI_MODULE, description, configSchema: { type: 'object', additionalProperties: false, properties: {} } });
    await server.platform.networks.addHost({ network: 'home', slug: 'wiki', kind: 'wiki', config: {} });
    const watched = await open('dark');
    const { page } = watched;
    await signInByLink(page, server);
    await page.locator('tr[data-host="files"]').waitFor();
    const wiki = page.locator('tr[data-host="wiki"] [data-category]');
    expect([await wiki.textContent(), await wiki.getAttribute('data-category')]).toEqual(['Knowledge base', 'generic']);
    // The page's own modules, imported in the page (a string, so the test runner leaves the import alone).
    const chips = await page.evaluate(`import('/web/js/dom.js').then(({ categoryChip }) =>
      ['disk', 'vector', 'machine', 'api', 'db', 'quantum', null].map((category) => {
        const chip = categoryChip(category);
        return [chip.textContent, chip.dataset.category];
      }))`);
    expect(chips).toEqual([
      ['Disk', 'disk'],
      ['Vector', 'vector'],
      ['Machine', 'machine'],
      ['API', 'api'],
      ['Database', 'db'],
      ['quantum', 'generic'],
      ['Other', 'generic'],
    ]);
    const states = await page.evaluate(`import('/web/js/hosts.js').then(({ isDimmed, liveness }) =>
      [
        { state: 'online' },
        { state: 'offline', reason: 'fs_unreachable' },
        { state: 'offline', reason: 'runtime_offline', runtimeActive: false },
        { state: 'online', runtimeActive: false },
        { state: 'unknown' },
      ].map((status) => [liveness({ status }).key, isDimmed({ status })]))`);
    expect(states).toEqual([
      ['online', false],
      ['offline', true],
      ['inactive', true],
      ['inactive', true],
      ['unknown', false],
    ]);
    // A crawl queued for a worker (shared store) shows as queued, not as its previous run's end.
    const summaries = await page.evaluate(`import('/web/js/hosts.js').then(({ crawlSummary }) =>
      [
        { host: 'home/a', state: 'queued', running: false, queued: { job: 'j', state: 'waiting', queuedAt: 1, mode: 'auto' }, progress: { state: 'completed', entries: 3 }, entries: 3 },
        { host: 'home/a', state: 'running', running: true, queued: null, progress: { state: 'running', entries: 2, fraction: null }, entries: 2 },
        { host: 'home/a', state: 'idle', running: false, queued: null, progress: { state: 'completed', entries: 3 }, entries: 3 },
      ].map((crawl) => { const cell = crawlSummary(crawl); return [cell.dataset.crawl, cell.textContent]; }))`);
    expect(summaries).toEqual([
      ['queued', expect.stringContaining('Queued for a worker')],
      ['running', expect.stringContaining('Crawling')],
      ['completed', '3 entries'],
    ]);
    await screenshot(page, 'hosts-dark');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});

describe('adding a host', () => {
  it('renders the form from the configSchema, explains each invalid field inline, places the server\'s refusal, and adds the host — by keyboard', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new');
    const folderKind = page.getByRole('radio', { name: /^Folder/ });
    await folderKind.waitFor({ state: 'attached' });
    expect(await page.locator('.pick[data-kind="bucket"] [data-category]').textContent()).toBe('Disk');
    await folderKind.focus();
    await page.keyboard.press('Space');
    const form = page.locator('form[data-kind="fs"]');
    await form.waitFor();
    expect(await form.getByRole('heading', { name: 'New Folder host' }).isVisible()).toBe(true);
    // From the kind, Tab reaches the form's first field.
    for (let press = 0; press < 6 && (await focused(page, 'name')) !== 'slug'; press += 1) await page.keyboard.press('Tab');
    expect(await focused(page, 'name')).toBe('slug');

    await page.keyboard.press('Enter');
    const summary = form.locator('.summary');
    await eventually(() => summary.isVisible()).toBe(true);
    expect(await summary.locator('.alert-title').textContent()).toBe('Fix these 2 fields to add the host:');
    expect(await summary.locator('li').allTextContents()).toEqual(['Slug: Required.', 'Root: Required.']);
    const slug = page.getByLabel('Slug', { exact: true });
    const root = page.getByLabel('Root', { exact: true });
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
    expect(await focused(page, 'name')).toBe('slug');
    expect(await form.locator('[data-path="root"] .field-error').textContent()).toBe('Required.');

    await slug.fill('Team Notes');
    await root.fill('relative/path');
    await form.getByText('Optional settings').click();
    const textCap = page.getByLabel('Text cap bytes');
    await textCap.fill('0');
    await page.keyboard.press('Tab');
    await form.getByRole('button', { name: 'Add host' }).click();
    await eventually(() => summary.locator('li').allTextContents()).toEqual([
      'Slug: Start with a lowercase letter (a–z).',
      'Root: Must match the pattern ^/.',
      'Text cap bytes: Must be at least 1.',
    ]);
    expect(await page.getByLabel('Text cap bytes').getAttribute('aria-invalid')).toBe('true');
    await textCap.fill('12abc');
    expect(await form.locator('[data-path="textCapBytes"] .field-error').textContent()).toBe('Enter a whole number.');
    await screenshot(page, 'add-host-errors');

    // Valid for the form, refused by the server: the slug is taken.
    await slug.fill('files');
    await root.fill(spare);
    await textCap.fill('65536');
    await root.press('Tab');
    await eventually(() => form.locator('.credentials').textContent()).toContain('This host needs no credentials.');
    await form.getByRole('button', { name: 'Add host' }).click();
    await eventually(() => form.locator('.field', { has: slug }).locator('.field-error').textContent()).toBe('A host with this slug exists already; choose another.');
    expect(await slug.getAttribute('aria-invalid')).toBe('true');

    await slug.fill('notes');
    await page.getByLabel('Label').fill('Notes');
    await page.getByLabel('Description').fill('What the team writes down.');
    await slug.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/hosts$/);
    const row = page.locator('tr[data-host="notes"]');
    await eventually(() => row.locator('.host-label').textContent()).toBe('Notes');
    expect(await page.getByText('Host Notes added; its first crawl started.').isVisible()).toBe(true);
    const stored = await server.platform.networks.showHost({ network: 'home', host: 'notes' });
    expect(stored).toMatchObject({ kind: 'fs', label: 'Notes', description: 'What the team writes down.', config: { root: spare, textCapBytes: 65536 } });
    // "Allow changes" was left off: the new host is read only.
    expect(stored.permissions).toEqual({ default: { read: true, write: false, exec: false } });
    await eventually(() => row.locator('[data-crawl]').getAttribute('data-crawl')).toBe('completed');
    expect(await row.locator('.cell-crawl').textContent()).toBe('1 entry');
    await screenshot(page, 'add-host-done');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('turns writes on for a new host only with its "Allow changes" switch, off by default — by keyboard', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new/fs');
    const form = page.locator('form[data-kind="fs"]');
    await form.waitFor();
    const allow = form.getByRole('checkbox', { name: 'Allow changes: callers may write and delete here' });
    expect(await allow.isChecked()).toBe(false);
    expect(await form.getByText("Off: the host is read only. Agents still change only what their token's grants name.").isVisible()).toBe(true);
    await page.getByLabel('Slug', { exact: true }).fill('drafts');
    await page.getByLabel('Root', { exact: true }).fill(spare);
    await page.getByLabel('Root', { exact: true }).press('Tab');
    await eventually(() => form.locator('.credentials').textContent()).toContain('This host needs no credentials.');
    await allow.focus();
    await page.keyboard.press('Space');
    expect(await allow.isChecked()).toBe(true);
    await screenshot(page, 'add-host-writable');
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.waitForURL(/#\/hosts$/);
    expect((await server.platform.networks.showHost({ network: 'home', host: 'drafts' })).permissions).toEqual({ default: { read: true, write: true, exec: false } });
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('offers the sources packages declare, with their description prefilled', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new');
    await page.locator('button.offer', { hasText: 'Reports' }).click();
    const form = page.locator('form[data-offer="test.seeds/reports"]');
    await form.waitFor();
    expect(await page.getByLabel('Slug').inputValue()).toBe('reports');
    expect(await page.getByLabel('Slug').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Description').inputValue()).toBe('Monthly reports, offered for on-demand add.');
    expect(await form.locator('dd').allTextContents()).toEqual(['local', 'data/reports', 'project']);
    await page.getByLabel('Description').fill('Monthly reports, kept by finance.');
    await screenshot(page, 'add-host-offer');
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.waitForURL(/#\/hosts$/);
    await eventually(() => page.locator('tr[data-host="reports"] .host-label').textContent()).toBe('Reports');
    expect(await server.platform.networks.showHost({ network: 'home', host: 'reports' })).toMatchObject({ origin: 'test.seeds', description: 'Monthly reports, kept by finance.' });
    await page.goto(`${server.url}/#/hosts/new`);
    await eventually(() => page.locator('button.offer', { hasText: 'Reports' }).isDisabled()).toBe(true);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
