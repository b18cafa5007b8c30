/**
 * A machine host in Chromium, against the private sshd (issue 22): with sshd stopped the host is
 * dimmed in the hosts list and its own view, and its synced entries stay listed and readable
 * (from the catalog); both recover when sshd returns. A machine whose key no person approved
 * shows the fingerprint it presents and an Approve button — to a person only: an agent's token
 * with hosts.manage sees the key and no button, a reader sees neither. Screenshots at desktop
 * and phone (420 px) width.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_CREDENTIALS, MACHINE_PACKAGE_ID } from '@inseam/connector-machine';
import { startSshd, type SshdFixture } from '../../../../connectors/machine/src/__fixtures__/sshd.mjs';
import { deploymentScope } from '../credentials/index.js';
import { FEATURES } from '../platform/authorization.js';
import { BROWSER_TEST_MS, eventually, go, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer, signInWithToken } from './__fixtures__/browser.js';

const README = 'the remote readme mentions wombats';

let sshd: SshdFixture;
let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  await mkdir(`${sshd.root}/logs`);
  await writeFile(`${sshd.root}/readme.md`, `${README}\n`);
  await writeFile(`${sshd.root}/logs/boot.log`, 'booted\n');
  [server, browser] = await Promise.all([
    startWebServer({
      probeTtlMs: 50,
      prepare: async (platform) => {
        await platform.packageCredentials.set(deploymentScope(), MACHINE_PACKAGE_ID, MACHINE_CREDENTIALS[0]!, { privateKey: sshd.privateKey });
        const config = { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, stateDir: `${sshd.base}/runs`, reconnectMs: 100 };
        await platform.networks.addHost({ network: 'home', slug: 'box', kind: 'machine', label: 'Build box', config: { ...config, hostKey: sshd.fingerprint }, sync: { trigger: 'manual' } });
        await platform.networks.addHost({ network: 'home', slug: 'fresh', kind: 'machine', label: 'Fresh box', config, sync: { trigger: 'manual' } });
        await (await platform.sync({ network: 'home', host: 'box' })).result;
      },
    }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await sshd?.close();
});

async function open(width = 1360): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  if (width !== 1360) await watched.page.setViewportSize({ width, height: 860 });
  return watched;
}

/** A page signed in with an API token pasted earlier in this tab (kept in sessionStorage). */
async function openWithToken(token: string, route: string): Promise<WatchedPage> {
  const watched = await open();
  await signInWithToken(watched, server.url, token, route);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  // A live read refused while the machine is down is answered by the catalog; nothing else fails.
  expect(watched.errors, 'page errors').toEqual([]);
}

describe('a machine whose sshd stops', () => {
  it('is dimmed while down, its synced entries listed and readable, and both recover', async () => {
    const watched = await open();
    const { page } = watched;
    await signInByLink(page, server);
    const row = page.locator('tr[data-host="box"]');
    const refresh = page.getByRole('button', { name: 'Refresh' });
    /** The hosts list polls every 10 s when idle; a person's Refresh asks now. */
    const statusNow = async (): Promise<string | null> => {
      await refresh.click();
      return row.getAttribute('data-status');
    };
    await eventually(statusNow).toBe('online');
    expect(await row.getAttribute('class')).not.toContain('dim');

    await sshd.stop();
    try {
      await eventually(statusNow).toBe('inactive');
      expect(await row.getAttribute('class')).toContain('dim');
      expect(await row.locator('.status').textContent()).toBe('Inactive');
      await screenshot(page, 'machine-down-hosts');

      await go(page, '#/hosts/box');
      const view = page.locator('[data-host-view="box"]');
      await eventually(() => view.getAttribute('data-status')).toBe('inactive');
      expect(await view.getAttribute('class')).toContain('dim');
      expect(await view.locator('[data-field="status"]').textContent()).toContain('Inactive');
      // The key is approved; the view says so and asks the machine nothing.
      expect(await view.locator('[data-host-key="pinned"] .fingerprint').textContent()).toBe(sshd.fingerprint);
      await screenshot(page, 'machine-down-view');

      // Browsing: the folder is listed and the file read from the synced copy.
      await go(page, '#/browse/box/');
      const folder = page.locator('article.folder');
      await eventually(() => folder.getAttribute('data-address')).toBe('inseam://home/box/');
      await eventually(() => folder.locator('tbody .entry-link').allTextContents()).toEqual(['logs', 'readme.md']);
      const tree = page.getByRole('tree', { name: 'Hosts and files' });
      expect(await tree.getByRole('treeitem', { name: /Build box/ }).getAttribute('class')).toContain('dim');
      await folder.getByRole('link', { name: 'readme.md' }).click();
      const entry = page.locator('article.entry:not(.folder)');
      await eventually(() => entry.getAttribute('data-address')).toBe('inseam://home/box/readme.md');
      await eventually(() => entry.locator('.code .text').textContent()).toBe(README);
      const facts = Object.fromEntries(await entry.locator('.props dt').evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])));
      expect(facts['Source']).toBe('synced copy — host offline');
      await screenshot(page, 'machine-down-browse');
    } finally {
      await sshd.start();
    }

    await go(page, '#/hosts');
    await eventually(statusNow).toBe('online');
    expect(await row.getAttribute('class')).not.toContain('dim');
    await go(page, '#/browse/box/readme.md');
    const entry = page.locator('article.entry:not(.folder)');
    await eventually(async () => Object.fromEntries(await entry.locator('.props dt').evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])))['Source']).toBe('live');

    // A hit's OS path is the machine's own, and the page says whose it is.
    await page.getByLabel('Search mode').selectOption('keyword');
    await page.getByLabel('Search files').fill('wombats');
    await page.getByLabel('Search files').press('Enter');
    const hit = page.getByRole('region', { name: 'Search results' }).locator('.hit').first();
    await eventually(() => hit.locator('.os-path code').textContent()).toBe(`${sshd.root}/readme.md`);
    expect(await hit.locator('.os-path').textContent()).toBe(`OS path on box's own machine ${sshd.root}/readme.md`);
    expectClean(watched);
  }, BROWSER_TEST_MS * 2);
});

describe('approving a machine\'s host key', () => {
  it('is not offered to an agent (the key shown, no button) nor to a reader', async () => {
    const agent = (await server.tokens.create({ name: 'agent-hosts', userId: 'ann', agentId: 'helper', network: 'home', features: [FEATURES.hostsManage] })).token;
    const reader = (await server.tokens.create({ name: 'reader', userId: 'ann', network: 'home', features: [] })).token;

    const asAgent = await openWithToken(agent, '#/hosts/fresh');
    const agentView = asAgent.page.locator('[data-host-view="fresh"]');
    await eventually(() => agentView.locator('[data-fingerprint]').textContent()).toBe(sshd.fingerprint);
    expect(await agentView.locator('[data-approve="refused"]').textContent()).toContain('agents cannot');
    expect(await agentView.getByRole('button', { name: 'Approve this key' }).count()).toBe(0);
    expectClean(asAgent);

    const asReader = await openWithToken(reader, '#/hosts/fresh');
    const readerView = asReader.page.locator('[data-host-view="fresh"]');
    await eventually(() => readerView.locator('[data-field="kind"], .props').count()).toBeGreaterThan(0);
    expect(await readerView.locator('.host-key').count()).toBe(0);
    expect(asReader.requests.some((request) => request.url.includes('/host-key'))).toBe(false);
    expectClean(asReader);
  }, BROWSER_TEST_MS);

  for (const [width, name] of [[1360, 'desktop'], [420, 'phone']] as const) {
    it(`shows a person the presented fingerprint and pins it on Approve (${name})`, async () => {
      if (name === 'phone') {
        // The desktop run pinned the key: take it away again so the phone run sees it unapproved.
        const record = await server.platform.networks.showHost({ network: 'home', host: 'fresh' });
        const { hostKey: _pinned, ...config } = record.config as Record<string, unknown>;
        await server.platform.networks.updateHost({ network: 'home', host: 'fresh' }, { config });
      }
      const watched = await open(width);
      const { page } = watched;
      await signInByLink(page, server, '#/hosts/fresh');
      const view = page.locator('[data-host-view="fresh"]');
      const card = view.locator('.host-key');
      await eventually(() => card.locator('[data-fingerprint]').textContent()).toBe(sshd.fingerprint);
      expect(await card.textContent()).toContain('No key of this machine is approved yet');
      const approve = card.getByRole('button', { name: 'Approve this key' });
      const box = await approve.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      const cardBox = await card.boundingBox();
      expect(cardBox!.x + cardBox!.width, 'the card fits the width').toBeLessThanOrEqual(width);
      expect(await page.evaluate('document.documentElement.scrollWidth'), 'nothing scrolls sideways').toBeLessThanOrEqual(width);
      await screenshot(page, `machine-host-key-${name}`);

      await approve.click();
      await eventually(() => page.getByText(`Host key ${sshd.fingerprint} approved`).isVisible()).toBe(true);
      await eventually(() => card.locator('[data-host-key]').getAttribute('data-host-key')).toBe('pinned');
      expect((await server.platform.networks.showHost({ network: 'home', host: 'fresh' })).config).toMatchObject({ hostKey: sshd.fingerprint });
      await screenshot(page, `machine-host-key-approved-${name}`);
      expectClean(watched);
    }, BROWSER_TEST_MS);
  }
});
