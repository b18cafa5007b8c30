/**
 * Signing in to the web page in Chromium with a one-time link: the code leaves the address bar
 * and the history before anything else, becomes a session kept in sessionStorage, works once, and
 * an ended session brings the sign-in form back with a message. Sign out ends the session on the
 * server. An old `#token=…` link is stripped and not used.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../http/__fixtures__/api.js';
import { BROWSER_TEST_MS, eventually, go, launchChromium, screenshot, startWebServer, stored, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
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

/** Everything the tab keeps: its address, its history's length, and its sessionStorage. */
async function tabState(watched: WatchedPage): Promise<{ url: string; storage: string }> {
  return { url: watched.page.url(), storage: await watched.page.evaluate<string>('JSON.stringify(Object.entries(sessionStorage))') };
}

describe('a sign-in link', () => {
  it('signs in once: the code leaves the address bar and history, a session token stays in the tab', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${server.url}/web/favicon.svg`);
    const link = await server.signInLink();
    const code = link.split('#code=')[1]!;
    await page.goto(link);
    await page.waitForSelector('[data-state="signed-in"]');
    await eventually(() => page.locator('tr[data-host="files"]').isVisible()).toBe(true);
    const state = await tabState(watched);
    expect(state.url).toBe(`${server.url}/#/hosts`);
    expect(state.storage).not.toContain(code);
    const token = await stored(page, 'inseam:token');
    expect(token).toMatch(/^inseam_ses_[A-Za-z0-9_-]{43}$/);
    expect(await stored(page, 'inseam:credential')).toBe('session');
    // The page asked the server to exchange the code, and never sent the code anywhere else.
    expect(watched.requests.filter((request) => request.url.includes(code))).toEqual([]);
    expect(watched.requests.some((request) => request.method === 'POST' && request.url === '/v1/sessions')).toBe(true);
    // Back in history is the page before the link, not the link.
    await page.goBack();
    expect(page.url()).not.toContain('code=');
    expect(page.url()).toBe(`${server.url}/web/favicon.svg`);

    // The same link in another tab does nothing but say why.
    const second = await open();
    await second.page.goto(link);
    await eventually(() => second.page.getByText('This sign-in link does not work').isVisible()).toBe(true);
    expect(second.page.url()).not.toContain('code=');
    expect(await stored(second.page, 'inseam:token')).toBeNull();
    await screenshot(second.page, 'signin-link-used');
    expectClean(watched);
    expectClean(second);
  }, BROWSER_TEST_MS);

  it('brings the sign-in form back with a message when the session ends', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(await server.signInLink());
    await page.waitForSelector('[data-state="signed-in"]');
    const token = (await stored(page, 'inseam:token'))!;
    // The session ends on the server (as after 12 hours unused): the next call the page makes finds out.
    const mine = (await server.sessions.list('ann')).find((item) => item.revokedAt === null && item.lastUsedAt === null);
    await server.sessions.revoke(mine!.id);
    expect((await call(server, 'GET', '/v1/hosts', { token })).status).toBe(401);
    await go(page, '#/browse');
    await eventually(() => page.getByText('Your sign-in session has ended').isVisible()).toBe(true);
    expect(await page.getByText('inseam signin').first().isVisible()).toBe(true);
    expect(await stored(page, 'inseam:token')).toBeNull();
    expect(await page.getByLabel('API token').isVisible()).toBe(true);
    await screenshot(page, 'signin-session-ended');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('signing out ends the session on the server', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(await server.signInLink());
    await page.waitForSelector('[data-state="signed-in"]');
    const token = (await stored(page, 'inseam:token'))!;
    expect((await call(server, 'GET', '/v1/hosts', { token })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await eventually(() => page.getByText('Signed out; the session has ended.').isVisible()).toBe(true);
    expect(watched.requests.some((request) => request.method === 'DELETE' && request.url === '/v1/session')).toBe(true);
    expect((await call(server, 'GET', '/v1/hosts', { token })).status).toBe(401);
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('strips an old #token= link without using the token', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${server.url}/#token=${server.admin}`);
    await eventually(() => page.getByText('never a token').isVisible()).toBe(true);
    expect(page.url()).not.toContain(server.admin);
    expect((await tabState(watched)).storage).not.toContain(server.admin);
    expect(watched.requests.filter((request) => request.url.startsWith('/v1/'))).toEqual([]);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
