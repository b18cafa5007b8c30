/**
 * Connecting OAuth 2 hosts from the page, in Chromium, against real authorization servers on
 * loopback: adding a host whose kind authorizes by OAuth, then the Connect button — the
 * authorization-code flow with PKCE in a new window that lands on the server's callback page, and
 * the device-code flow shown as a code and a link. The page itself never leaves the server.
 */
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceAuthorizationServer, startMockAuthorizationServer, type DeviceAuthorizationServer, type MockAuthorizationServer } from '../credentials/__fixtures__/oauth-servers.js';
import { registerOAuthKind } from '../http/__fixtures__/oauth-connector.js';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
let mock: MockAuthorizationServer;
let device: DeviceAuthorizationServer;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [mock, device, browser] = await Promise.all([startMockAuthorizationServer(), startDeviceAuthorizationServer(), launchChromium()]);
  server = await startWebServer({
    oauthClients: [
      { tokenUrl: mock.tokenUrl, clientId: 'inseam-web' },
      { tokenUrl: device.tokenUrl, clientId: 'inseam-tv' },
    ],
    prepare: async (platform) => {
      await registerOAuthKind(platform, { grant: 'authorization_code', authorizationUrl: mock.authorizationUrl, tokenUrl: mock.tokenUrl });
      await platform.networks.addHost({ network: 'home', slug: 'tv', kind: 'cloud-drive', config: { grant: 'device_code', deviceUrl: device.deviceUrl, tokenUrl: device.tokenUrl } });
    },
  });
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await mock?.stop();
  await device?.stop();
});

async function open(route: string): Promise<WatchedPage> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  await signInByLink(watched.page, server, route);
  return watched;
}

describe('connecting an OAuth 2 host', () => {
  it('adds the host, then connects it with the authorization code and PKCE in a new window', async () => {
    const watched = await open('#/hosts/new/cloud-drive');
    const { page, context } = watched;
    const form = page.locator('form[data-kind="cloud-drive"]');
    await form.waitFor();
    expect(await form.locator('.form-head [data-category]').textContent()).toBe('API');
    await page.getByLabel('Slug', { exact: true }).fill('drive');
    await page.getByLabel('Grant', { exact: true }).selectOption({ label: 'authorization_code' });
    await page.getByLabel('Token URL', { exact: true }).fill(mock.tokenUrl);
    await form.getByText('Optional settings').click();
    await page.getByLabel('Authorization URL', { exact: true }).fill(mock.authorizationUrl);
    await page.getByLabel('Authorization URL', { exact: true }).press('Tab');
    await eventually(() => form.locator('.credentials').textContent()).toContain('This host connects with OAuth 2');
    await form.getByRole('button', { name: 'Add host' }).click();

    const connect = page.getByRole('button', { name: 'Connect with OAuth' });
    await connect.waitFor();
    expect(await page.getByRole('heading', { name: 'Connect drive' }).isVisible()).toBe(true);
    await screenshot(page, 'oauth-connect');
    const [popup] = await Promise.all([context.waitForEvent('page'), connect.click()]);
    await popup.waitForURL(/\/v1\/oauth\/callback\?/);
    await popup.waitForLoadState();
    expect(await popup.locator('h1').textContent()).toBe('Host home/drive is connected.');
    expect(await popup.getByText('You can close this window.').isVisible()).toBe(true);
    expect(await popup.content()).not.toMatch(/code=|state=/);
    await screenshot(popup, 'oauth-callback');
    await popup.close();

    await eventually(() => page.locator('.oauth-status .ok-text').textContent()).toBe(' Connected: home/drive holds a grant now.');
    expect(await page.getByRole('button', { name: 'Reconnect' }).isVisible()).toBe(true);
    const exchange = mock.tokenRequests.at(-1)?.body ?? {};
    expect(exchange['grant_type']).toBe('authorization_code');
    expect(exchange['code_verifier']).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    await screenshot(page, 'oauth-connected');
    expect(watched.outside, 'the page itself stays on the server').toEqual([]);
    expect(watched.errors).toEqual([]);
  }, BROWSER_TEST_MS);

  it('shows the credentials for the settings asked about last, whatever order the answers come in', async () => {
    const watched = await open('#/hosts/new/cloud-drive');
    const { page } = watched;
    const held: Route[] = [];
    await page.route('**/v1/source-kinds/*/describe', (route) => {
      held.push(route);
    });
    const form = page.locator('form[data-kind="cloud-drive"]');
    await form.waitFor();
    await page.getByLabel('Grant', { exact: true }).selectOption({ label: 'authorization_code' });
    await page.getByLabel('Token URL', { exact: true }).fill(mock.tokenUrl);
    await form.getByText('Optional settings').click();
    await page.getByLabel('Authorization URL', { exact: true }).fill(mock.authorizationUrl);
    await page.getByLabel('Authorization URL', { exact: true }).press('Tab');
    await eventually(() => held.length).toBeGreaterThan(1);
    const last = held.at(-1) as Route;
    await last.continue();
    await eventually(() => form.locator('.credentials').textContent()).toContain('This host connects with OAuth 2');
    // The earlier questions are answered after it, one at least with other credentials (or none).
    const earlier: unknown[] = [];
    for (const route of held.slice(0, -1)) {
      const answered = page.waitForResponse((response) => response.request() === route.request());
      await route.continue();
      earlier.push(await (await answered).json().catch(() => null));
    }
    expect(earlier.some((body) => (body as { auth?: { acquire?: { type?: string } } } | null)?.auth?.acquire?.type !== 'oauth2')).toBe(true);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(await form.locator('.credentials').textContent()).toContain('This host connects with OAuth 2');
    await page.unroute('**/v1/source-kinds/*/describe');
    expect(watched.errors).toEqual([]);
  }, BROWSER_TEST_MS);

  it('connects a host from its row with the device code, shown as a code and a link', async () => {
    const watched = await open('#/hosts');
    const { page } = watched;
    // A host added earlier is connected from its row.
    const connectRow = page.getByRole('button', { name: 'Connect tv' });
    await connectRow.click();
    expect(await connectRow.getAttribute('aria-expanded')).toBe('true');
    device.interval = 1;
    device.script.push('authorization_pending');
    await page.getByRole('button', { name: 'Connect with a device code' }).click();
    const panel = page.locator('tr[data-connect="tv"]');
    await eventually(() => panel.locator('.device-code').textContent()).toBe('WDJB-MJHT');
    const link = panel.getByRole('link', { name: `${device.origin}/activate` });
    expect(await link.getAttribute('href')).toBe(`${device.origin}/activate?user_code=WDJB-MJHT`);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await panel.locator('.waiting').textContent()).toMatch(/^Waiting for approval… the code expires in \d+:\d\d\.$/);
    await screenshot(page, 'oauth-device');
    await eventually(() => panel.locator('.ok-text').textContent()).toBe(' Connected: home/tv holds a grant now.');
    expect(await page.content()).not.toContain('device-code-secret-0001');
    expect(watched.outside).toEqual([]);
    expect(watched.errors).toEqual([]);
  }, BROWSER_TEST_MS);
});
