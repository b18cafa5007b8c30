/**
 * The Credentials view in Chromium (issue 23, item 4): the credentials loaded packages declare
 * (the built-in machine package's ssh-key and ssh-password on a fresh server), which of the
 * caller's scopes hold a value, storing one at a scope the caller owns and removing it after a
 * confirmation (Cancel keeps it). A stored value never comes back: not in the page's DOM, not in
 * any answer the page received. An agent's token sees its agent scope only; a write the server
 * refuses shows the API's typed message and stores nothing. Screenshots at desktop and 420 px,
 * the page no wider than the window.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectScope } from '../credentials/index.js';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { writeSourcePackage } from '../platform/__fixtures__/source-package.js';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer, screenshotsAtTwoWidths, signInWithToken } from './__fixtures__/browser.js';

const MACHINE = '@inseam/connector-machine';
const PASSWORD = { id: 'ssh-password', label: 'SSH password', fields: [{ name: 'password', label: 'Password', secret: true }] };
const KEY = { id: 'ssh-key', label: 'SSH private key', fields: [{ name: 'privateKey', label: 'Private key', secret: true }] };

let server: WebServer;
let browser: Browser;
let packages: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchChromium()]);
  packages = await tempDir('web-credentials');
});

afterAll(async () => {
  for (const { context } of pages) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  if (packages !== undefined) await removeDir(packages);
});

/** A watched page that also keeps the text of every answer the server gave it. */
async function watch(): Promise<WatchedPage & { answers: () => Promise<string[]> }> {
  const watched = await watchedPage(browser, server.url);
  pages.push(watched);
  const bodies: Promise<string>[] = [];
  watched.page.on('response', (response: Response) => {
    bodies.push(response.text().catch(() => ''));
  });
  return { ...watched, answers: () => Promise.all(bodies) };
}

async function openWithToken(token: string, route: string) {
  const watched = await watch();
  await signInWithToken(watched, server.url, token, route);
  return watched;
}

function expectClean(watched: WatchedPage): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}

const resolve = (credential: typeof PASSWORD, options: { projectId?: string; userId?: string; agentId?: string }) =>
  server.platform.packageCredentials.resolverFor(MACHINE, [credential]).resolveCredential(credential.id, options);

/** What the table says of one credential at each scope it shows: true, false, or absent. */
async function storedOf(page: Page, packageId: string, credential: string): Promise<Record<string, boolean>> {
  const cells = page.locator(`tr[data-package="${packageId}"][data-credential="${credential}"] td[data-stored]`);
  const out: Record<string, boolean> = {};
  for (const cell of await cells.all()) out[(await cell.getAttribute('data-scope'))!] = (await cell.getAttribute('data-stored')) === 'true';
  return out;
}

describe('the Credentials view', () => {
  it("stores a person's own, the network's and a deployment-wide value, shows them stored but never again, and removes one after a confirmation", async () => {
    const watched = await watch();
    const { page } = watched;
    await signInByLink(page, server);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credentials' }).click();
    await page.waitForURL(/#\/credentials$/);
    const row = page.locator(`tr[data-package="${MACHINE}"][data-credential="ssh-password"]`);
    await row.waitFor();
    // ann's session has every feature: the deployment's, the network's and her own scope; no agent's.
    expect(await page.locator('.credentials-table thead th[data-scope]').allTextContents()).toEqual(['Deployment', 'Network home', 'Yours (ann)']);
    expect(await row.locator('[data-cell="fields"]').textContent()).toBe('Password');
    // What it is for, in the manifest's words, under its label.
    expect(await row.locator('.credential-description').textContent()).toMatch(/^The passw/);
    expect(await storedOf(page, MACHINE, 'ssh-password')).toEqual({ deployment: false, network: false, user: false });

    const form = page.locator('form[data-form="set-credential"]');
    await form.getByLabel('Credential').selectOption({ label: `SSH password — ${MACHINE}` });
    expect(await form.getByLabel('Scope').locator('option').allTextContents()).toEqual(['Deployment', 'Network home', 'Yours (ann)']);
    await form.getByLabel('Scope').selectOption('user');
    const password = form.getByLabel('Password', { exact: true });
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('autocomplete')).toBe('new-password');
    expect(await form.getAttribute('autocomplete')).toBe('off');
    // Nothing typed: the page asks for it and sends nothing.
    await form.getByRole('button', { name: 'Store credential' }).click();
    expect(await form.locator('.field.invalid .field-error').textContent()).toBe('Required.');
    await password.fill('ann-own-secret-91');
    await form.getByRole('button', { name: 'Store credential' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-password')).toEqual({ deployment: false, network: false, user: true });
    expect(await password.inputValue()).toBe('');
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'ann' })).toEqual({ password: 'ann-own-secret-91' });
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'bob' })).toBeNull();

    await form.getByLabel('Scope').selectOption('deployment');
    await password.fill('deployment-secret-47');
    await form.getByRole('button', { name: 'Store credential' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-password')).toEqual({ deployment: true, network: false, user: true });
    expect(await password.inputValue()).toBe('');
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'bob' })).toEqual({ password: 'deployment-secret-47' });
    // hosts.manage in home: the network's own, which bob now resolves before the deployment's.
    await form.getByLabel('Scope').selectOption('network');
    await password.fill('network-secret-58');
    await form.getByRole('button', { name: 'Store credential' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-password')).toEqual({ deployment: true, network: true, user: true });
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'bob' })).toEqual({ password: 'network-secret-58' });

    // A private key comes from a file with its line breaks, which a password input would drop.
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-file-secret\n-----END OPENSSH PRIVATE KEY-----\n';
    await form.getByLabel('Credential').selectOption({ label: `SSH private key — ${MACHINE}` });
    await form.getByLabel('Scope').selectOption('user');
    await form.getByLabel('Or read Private key from a file').setInputFiles({ name: 'id_ed25519', mimeType: 'application/octet-stream', buffer: Buffer.from(key) });
    await form.getByRole('button', { name: 'Store credential' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-key')).toEqual({ deployment: false, network: false, user: true });
    expect(await resolve(KEY, { projectId: 'home', userId: 'ann' })).toEqual({ privateKey: key });
    expect(await form.getByLabel('Or read Private key from a file').inputValue()).toBe('');

    // Never shown again: not in the page, not in any answer it received.
    const html = await page.content();
    const answers = (await watched.answers()).join('\n');
    for (const secret of ['ann-own-secret-91', 'deployment-secret-47', 'network-secret-58', 'file-secret']) {
      expect(html).not.toContain(secret);
      expect(answers).not.toContain(secret);
    }
    await screenshotsAtTwoWidths(page, 'credentials');

    // Remove asks first: Cancel keeps it; Remove deletes ann's own, and the network's serves her again.
    await row.getByRole('button', { name: 'Remove SSH password of @inseam/connector-machine at Yours (ann)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove SSH password?' });
    await dialog.waitFor();
    await screenshot(page, 'credentials-remove');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'ann' })).toEqual({ password: 'ann-own-secret-91' });
    await row.getByRole('button', { name: 'Remove SSH password of @inseam/connector-machine at Yours (ann)' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-password')).toEqual({ deployment: true, network: true, user: false });
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'ann' })).toEqual({ password: 'network-secret-58' });
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it("gives an agent's token its own agent scope only, even with packages.manage", async () => {
    const agent = (await server.tokens.create({ name: 'cred-agent', userId: 'ann', agentId: 'helper', network: 'home', features: ['packages.manage'] })).token;
    const watched = await openWithToken(agent, '#/credentials');
    const { page } = watched;
    await page.locator(`tr[data-package="${MACHINE}"][data-credential="ssh-password"]`).waitFor();
    expect(await page.locator('.credentials-table thead th[data-scope]').allTextContents()).toEqual(['Agent helper']);
    const form = page.locator('form[data-form="set-credential"]');
    await form.getByLabel('Credential').selectOption({ label: `SSH password — ${MACHINE}` });
    expect(await form.getByLabel('Scope').locator('option').allTextContents()).toEqual(['Agent helper']);
    await form.getByLabel('Password', { exact: true }).fill('agent-secret-33');
    await form.getByRole('button', { name: 'Store credential' }).click();
    await eventually(() => storedOf(page, MACHINE, 'ssh-password')).toEqual({ agent: true });
    expect(await resolve(PASSWORD, { projectId: 'home', userId: 'ann', agentId: 'helper' })).toEqual({ password: 'agent-secret-33' });
    expect(await page.content()).not.toContain('agent-secret-33');
    expect((await watched.answers()).join('\n')).not.toContain('agent-secret-33');
    await screenshotsAtTwoWidths(page, 'credentials-agent');
    expectClean(watched);
  }, BROWSER_TEST_MS);

  it("shows a refused write with the API's typed message and stores nothing", async () => {
    // A package declaring a credential, removed while the page still offers it.
    const folder = await writeSourcePackage(join(packages, 'vault'), { id: 'acme.vault', version: '1.0.0', kinds: [], text: '' });
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    manifest.neuralis.credentials = [{ id: 'api-key', label: 'Vault API key' }];
    await writeFile(join(folder, 'package.json'), JSON.stringify(manifest));
    await server.platform.packages.add(folder, 'trusted', 'ann');
    const watched = await watch();
    const { page } = watched;
    await signInByLink(page, server, '#/credentials');
    await page.locator('tr[data-package="acme.vault"][data-credential="api-key"]').waitFor();
    // A credential without fields has one secret, "value", labelled as the credential.
    expect(await page.locator('tr[data-package="acme.vault"] [data-cell="fields"]').textContent()).toBe('Vault API key');
    const form = page.locator('form[data-form="set-credential"]');
    await form.getByLabel('Credential').selectOption({ label: 'Vault API key — acme.vault' });
    await form.getByLabel('Scope').selectOption('network');
    await server.platform.packages.remove('acme.vault');
    await form.getByLabel('Vault API key', { exact: true }).fill('refused-secret-12');
    await form.getByRole('button', { name: 'Store credential' }).click();
    const problem = form.locator('[data-problem]');
    await eventually(() => problem.isVisible()).toBe(true);
    expect(await problem.getByRole('alert').locator('p').allTextContents()).toEqual(['Nothing was stored', 'No package "acme.vault" is loaded; `inseam package ls` lists them.', 'not_found']);
    // What was typed stays for another try, but was never echoed back.
    expect((await watched.answers()).join('\n')).not.toContain('refused-secret-12');
    expect((await server.platform.credentialStore.list(projectScope('home'), 'package/')).filter((id) => id.includes('acme.vault'))).toEqual([]);
    await screenshotsAtTwoWidths(page, 'credentials-refused');
    expectClean(watched);
  }, BROWSER_TEST_MS);
});
