/**
 * A mailbox in Chromium, against the private Dovecot (issue 21): a person adds an imap host from
 * the add form built from the kind's configSchema (the CA as several lines, the password as a
 * secret field never shown back), browses its mailboxes and messages, and previews a message with
 * its envelope — parties by role, direction, the receiving server's authentication results (a
 * forged header from another authserv-id ignored) and the list.
 */
import type { Browser } from 'playwright-core';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type Dovecot } from '../../../../connectors/imap/src/__fixtures__/dovecot.mjs';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

const USER = { name: 'alice', password: `web-${Math.random().toString(36).slice(2)}` };
const AUTHSERV = 'mx.example.com';

const MESSAGES = [
  [
    'Message-ID: <crane@example.org>',
    `Authentication-Results: ${AUTHSERV}; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass header.from=example.org`,
    'Authentication-Results: forged.example.net; dkim=fail; spf=fail; dmarc=fail',
    'List-Id: Harbour crew <crew.harbour.example.org>',
    'From: Bob Porter <bob@example.org>',
    'To: alice@example.com',
    'Cc: Carol <carol@example.org>',
    'Reply-To: crew@harbour.example.org',
    'Subject: Harbour crane schedule',
    'Date: Mon, 04 May 2026 09:00:00 +0000',
    '',
    'Can we move the crane lift to Thursday?',
    '',
  ],
  ['Message-ID: <reply@example.com>', 'From: Alice <alice@example.com>', 'To: bob@example.org', 'Subject: Re: Harbour crane schedule', 'Date: Mon, 04 May 2026 10:00:00 +0000', '', 'Thursday works.', ''],
].map((lines) => lines.join('\r\n'));

let dovecot: Dovecot;
let server: WebServer;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  dovecot = await startDovecot({ users: [USER] });
  const imap = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: true, tls: { ca: dovecot.ca }, auth: { user: USER.name, pass: USER.password }, logger: false });
  imap.on('error', () => undefined);
  await imap.connect();
  for (const message of MESSAGES) await imap.append('INBOX', message);
  await imap.logout();
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
}, 60_000);

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await dovecot?.stop();
});

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

describe('a mailbox on the web page', () => {
  it('is added from the form built from the imap kind\'s configSchema, with its credential', async () => {
    const watched = await watchedPage(browser, server.url);
    pages.push(watched);
    const { page } = watched;
    await signInByLink(page, server, '#/hosts/new/imap');
    const form = page.locator('form[data-kind="imap"]');
    await form.waitFor();
    // The fields read as a person would name them; the CA is text of several lines.
    for (const label of ['Host', 'Port', 'TLS', 'CA', 'Auth', 'Own addresses', 'Authserv ID', 'Mailboxes', 'OAuth scopes']) expect(await form.getByLabel(label, { exact: true }).count(), label).toBe(1);
    const ca = form.getByLabel('CA', { exact: true });
    expect(await ca.evaluate((node) => (node as unknown as { tagName: string }).tagName)).toBe('TEXTAREA');
    expect(await form.getByLabel('TLS', { exact: true }).locator('option').allTextContents()).toEqual(['Default', 'implicit', 'starttls']);

    await page.getByLabel('Slug', { exact: true }).fill('mail');
    await form.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await form.locator('details.optional > summary').click();
    await form.getByLabel('Port', { exact: true }).fill(String(dovecot.port));
    await ca.fill(dovecot.ca);
    await form.getByLabel('Own addresses', { exact: true }).fill('alice@example.com');
    await form.getByLabel('Authserv ID', { exact: true }).fill(AUTHSERV);
    await form.getByLabel('Authserv ID', { exact: true }).press('Tab');
    // The credentials the kind's AuthSpec asks for: a username and a secret password.
    const password = form.getByLabel('Password (or app password)', { exact: true });
    await password.waitFor();
    expect(await password.getAttribute('type')).toBe('password');
    await form.getByLabel('Username', { exact: true }).fill(USER.name);
    await password.fill(USER.password);
    await screenshot(page, 'imap-add-form');
    await form.getByRole('button', { name: 'Add host' }).click();
    await page.waitForURL(/#\/hosts$/);

    const host = await server.platform.networks.showHost({ network: 'home', host: 'mail' });
    expect(host.config).toEqual({ host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca, ownAddresses: ['alice@example.com'], authservId: AUTHSERV });
    expect(JSON.stringify(host)).not.toContain(USER.password);
    expect(await page.content()).not.toContain(USER.password);
    const row = page.locator('tr[data-host="mail"]');
    await eventually(() => row.locator('[data-crawl]').getAttribute('data-crawl')).toBe('completed');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it('browses mailboxes and messages, and previews a message with its envelope', async () => {
    const watched = await watchedPage(browser, server.url);
    pages.push(watched);
    const { page } = watched;
    await signInByLink(page, server, '#/browse/mail/');
    const folder = page.locator('article.folder');
    await eventually(() => folder.getAttribute('data-address')).toBe('inseam://home/mail/');
    await eventually(() => folder.locator('tbody .entry-link').allTextContents()).toContain('INBOX');
    await folder.getByRole('link', { name: 'INBOX', exact: true }).click();
    await eventually(() => folder.getAttribute('data-address')).toBe('inseam://home/mail/INBOX');
    const messages = folder.locator('tbody .entry-link');
    await eventually(() => messages.count()).toBe(2);
    const names = await messages.allTextContents();
    expect(names.every((name) => /^\d+-\d+\.eml$/.test(name))).toBe(true);
    await screenshot(page, 'imap-browse-inbox');

    const first = names.find((name) => name.endsWith('-1.eml'))!;
    await folder.getByRole('link', { name: first, exact: true }).click();
    const entry = page.locator('article.entry:not(.folder)');
    await eventually(() => entry.getAttribute('data-address')).toBe(`inseam://home/mail/INBOX/${first}`);
    const envelope = entry.locator('section.envelope');
    await envelope.waitFor();
    const field = (key: string) => envelope.locator(`[data-envelope="${key}"]`).textContent();
    expect(await field('direction')).toBe('Received');
    expect(await field('from')).toBe('bob@example.org');
    expect(await field('to')).toBe('alice@example.com');
    expect(await field('cc')).toBe('carol@example.org');
    expect(await field('reply-to')).toBe('crew@harbour.example.org');
    // Only the configured authserv-id's results: the forged header's fails are not there.
    expect(await envelope.locator('[data-envelope="auth"] .chip').allTextContents()).toEqual(['DKIM pass', 'SPF pass', 'DMARC pass']);
    expect(await field('list')).toBe('crew.harbour.example.org');
    expect(await envelope.locator('dt').allTextContents()).toEqual(['Direction', 'From', 'Reply-To', 'To', 'Cc', 'Authentication', 'List']);
    await eventually(() => entry.locator('.preview').textContent()).toContain('Can we move the crane lift to Thursday?');
    await screenshot(page, 'imap-message');

    const reply = names.find((name) => name.endsWith('-2.eml'))!;
    await page.evaluate(`location.hash = ${JSON.stringify(`#/browse/mail/INBOX/${reply}`)}`);
    await eventually(() => entry.getAttribute('data-address')).toBe(`inseam://home/mail/INBOX/${reply}`);
    await eventually(() => entry.locator('[data-envelope="direction"]').textContent()).toBe('Sent');
    expect(await entry.locator('[data-envelope="auth"]').textContent()).toBe('No results from the receiving server');
    expect(await entry.locator('[data-envelope="list"]').count()).toBe(0);
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
