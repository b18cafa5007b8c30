/**
 * The connector lifecycle in Chromium, with the notes-api example module against its real API on
 * loopback: an agent submits the module; on the page a person runs its trial (each check and the
 * origins it used are shown), approves it by typing the phrase, installs it, and watches the first
 * crawl to its end. The approval says which phases passed; installing writable on a scratch prefix
 * runs the install-phase trial on the new host first. The API token is typed once, masked, and
 * never comes back. A trial that is not approved can be deleted from the page; the approved one and
 * the platform's check of the host's writes cannot.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleSha } from '../connectors/index.js';
import { NOTES_SEED, exampleSource } from '../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../trial/__fixtures__/servers/notes-api.js';
import { call } from '../http/__fixtures__/api.js';
import { BROWSER_TEST_MS, eventually, launchChromium, screenshot, signInByLink, startWebServer, watchedPage, type WatchedPage, type WebServer } from './__fixtures__/browser.js';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    baseUrl: { type: 'string', minLength: 1, pattern: '^https?://', description: 'Where the notes API answers, e.g. https://notes.example.com.' },
    pageSize: { type: 'integer', minimum: 1, maximum: 1000, description: 'Files per page. Default 100.' },
  },
  required: ['baseUrl'],
};

let server: WebServer;
let browser: Browser;
let notes: NotesApi;
let watched: WatchedPage;
let agent: string;
const source = exampleSource('notes-api');
const sha = moduleSha(source);

beforeAll(async () => {
  [server, browser, notes] = await Promise.all([startWebServer(), launchChromium(), startNotesApi(NOTES_SEED)]);
  agent = (await server.tokens.create({ name: 'helper', userId: 'ann', agentId: 'helper', network: 'home', features: ['connectors.trial'] })).token;
  const submitted = await call(server, 'POST', '/v1/connectors', { token: agent, body: { module: source, name: 'Notes API', configSchema: SCHEMA } });
  expect(submitted.status, submitted.text).toBe(201);
  watched = await watchedPage(browser, server.url);
});

afterAll(async () => {
  await watched?.context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await notes?.close();
});

describe('a submitted connector, from trial to its first crawl', () => {
  it('runs the trial from the page and shows each check and the origins used', async () => {
    const { page } = watched;
    await signInByLink(page, server, '#/connectors');
    const item = page.locator(`.module-item[data-sha="${sha}"]`);
    await eventually(() => item.locator('[data-state]').textContent()).toBe('submitted');
    expect(await item.textContent()).toContain('by ann/helper');
    await item.click();
    await page.waitForURL(new RegExp(`#/connectors/${sha}$`));
    await eventually(() => page.getByRole('heading', { name: 'No trial yet' }).isVisible()).toBe(true);
    await screenshot(page, 'connector-submitted');

    const baseUrl = page.getByLabel('Base URL', { exact: true });
    await baseUrl.fill('notes.example.com');
    await page.getByRole('button', { name: 'Run trial' }).click();
    expect(await page.locator('[data-path="baseUrl"] .field-error').textContent()).toBe('Must match the pattern ^https?://.');

    await baseUrl.fill(notes.origin);
    await baseUrl.press('Tab');
    const token = page.getByLabel('API token');
    await token.waitFor();
    expect(await token.getAttribute('type')).toBe('password');
    expect(await page.locator('.credentials .instructions').textContent()).toBe('Create an API token with read and write access and paste it here.');
    await token.fill(notes.token);
    await page.getByRole('checkbox', { name: `Allow ${notes.origin} on a private address (this machine, the LAN)` }).check();
    await page.getByRole('button', { name: 'Run trial' }).click();

    const report = page.locator('section.report');
    await eventually(() => report.getAttribute('data-passed')).toBe('true');
    expect(await report.getByRole('heading', { name: 'Trial passed' }).isVisible()).toBe(true);
    const checks = await report.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-check'), row.getAttribute('data-status')]));
    expect(checks.map(([id]) => id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(checks.every(([, status]) => status === 'pass' || status === 'skip')).toBe(true);
    expect(await report.locator('tbody tr[data-check="1"] td').nth(1).textContent()).toMatch(/describe/i);
    expect(await report.locator('.origins-used .chip').allTextContents()).toEqual([notes.origin]);
    expect(await page.locator(`.module-item[data-sha="${sha}"] [data-state]`).textContent()).toBe('trialled');
    expect(await page.content()).not.toContain(notes.token);
    await screenshot(page, 'connector-trial');
    expectClean();
  }, BROWSER_TEST_MS);

  it('lets the person approve it only with the phrase typed', async () => {
    const { page } = watched;
    const approval = page.locator('section.approval');
    const phrase = `approve notes-api ${sha.slice(0, 12)}`;
    expect(await approval.locator('.phrase').textContent()).toBe(phrase);
    expect(await approval.textContent()).toContain(`reach ${notes.origin}`);
    const confirm = page.getByLabel('Confirmation phrase');
    await confirm.fill('yes');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => approval.locator('.field-error').textContent()).toBe(`Approval needs a person to confirm it: type "${phrase}" in the confirmation field.`);
    expect(await confirm.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'connector-approve');
    await confirm.fill(phrase);
    await confirm.press('Enter');
    await eventually(() => page.locator('section.approval .ok-text').textContent()).toMatch(/^ Approved by ann /);
    // The approval says which phases passed: the read-only one; writes wait for the install phase on a host.
    const phases = page.locator('section.approval [data-phases]');
    expect(await phases.locator('li').allTextContents()).toEqual(['Read-only trial (submit phase): passed', 'Install trial (writes on a scratch prefix): not run']);
    expect(await phases.textContent()).toContain('a host of it becomes writable only after the install-phase trial passes on that host');
    expect(await page.locator(`.module-item[data-sha="${sha}"] [data-state]`).textContent()).toBe('approved');
    expectClean();
  }, BROWSER_TEST_MS);

  it('installs it, starting the first crawl, and follows the crawl to its end', async () => {
    const { page } = watched;
    const install = page.locator('section.install');
    // The settings card kept what was typed; the secret is asked for again only if it was cleared.
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe(notes.origin);
    await install.getByLabel('Host slug').fill('Notes');
    await install.getByRole('button', { name: 'Install and crawl' }).click();
    expect(await install.locator('.field-error:not([hidden])').textContent()).toBe('Start with a lowercase letter (a–z).');
    await install.getByLabel('Host slug').fill('notes');
    await install.getByLabel('Label').fill('Team notes');
    // The module declares writes: writable only on a scratch prefix, where the platform runs the install-phase trial first.
    const prefix = install.getByLabel('Scratch prefix');
    expect(await prefix.isDisabled()).toBe(true);
    await install.getByLabel('Make the host writable').check();
    await install.getByRole('button', { name: 'Install and crawl' }).click();
    expect(await install.locator('.field-error:not([hidden])').textContent()).toBe('Name the folder the trial may write in.');
    await prefix.fill('scratch');
    await install.getByRole('button', { name: 'Install and crawl' }).click();
    const writes = install.locator('.writes-outcome [data-writable]');
    await eventually(() => writes.getAttribute('data-writable')).toBe('true');
    expect(await writes.textContent()).toContain('The install-phase trial passed on scratch prefix "scratch"');
    const crawl = install.locator('.crawl-card');
    await eventually(() => crawl.getAttribute('data-crawl-state')).toBe('completed');
    expect(await crawl.locator('strong').textContent()).toBe('First crawl of notes: completed');
    // The kind's default scope leaves trash/ out.
    expect(await crawl.locator('.crawl').textContent()).toBe(`${NOTES_SEED.length - 1} entries`);
    expect(await crawl.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await eventually(() => page.locator(`.module-item[data-sha="${sha}"] [data-state]`).textContent()).toBe('installed');
    expect(await install.getByRole('button', { name: 'Installed' }).isDisabled()).toBe(true);
    await screenshot(page, 'connector-install');

    const stored = await server.platform.networks.showHost({ network: 'home', host: 'notes' });
    expect(stored).toMatchObject({ kind: 'notes-api', label: 'Team notes', privateOrigins: [notes.origin], credentials: { stored: ['token'] } });
    expect(stored.permissions?.default.write).toBe(true);
    await page.getByRole('link', { name: 'Hosts' }).click();
    const row = page.locator('tr[data-host="notes"]');
    await eventually(() => row.locator('[data-category]').textContent()).toBe('API');
    expect(await row.locator('.cell-crawl').textContent()).toBe(`${NOTES_SEED.length - 1} entries`);
    await screenshot(page, 'hosts-with-connector');
    expect(await page.content()).not.toContain(notes.token);
    expectClean();
  }, BROWSER_TEST_MS);
});

describe('trial records', () => {
  it('deletes a trial that is not approved from the page, and offers no Delete for the approved one', async () => {
    const { page } = watched;
    // The agent trials the module again against an origin it may not reach: a failed trial.
    const failed = await call(server, 'POST', `/v1/connectors/${sha}/trial`, { token: agent, body: { config: { baseUrl: 'http://127.0.0.1:9' }, credentials: { token: 'x' } } });
    expect(failed.status, failed.text).toBe(200);
    const failedId = failed.json().trial.id as string;
    await page.goto(`${server.url}/#/connectors/${sha}`);
    await page.reload();
    const remove = page.locator(`[data-delete-trial="${failedId}"]`);
    await eventually(() => remove.isVisible()).toBe(true);
    expect(await remove.getAttribute('aria-label')).toMatch(/^Delete the failed trial of /);
    await screenshot(page, 'connector-trial-delete');
    await remove.click();
    await eventually(() => page.getByText('The trial was deleted.').isVisible()).toBe(true);
    expect(await server.platform.store.trials.get(failedId)).toBeNull();
    await eventually(() => page.locator('[data-delete-trial]').count()).toBe(0);
    // What is left stays, with no Delete: the approved trial, and the platform's check of the host's writes at install.
    await eventually(() => page.locator('section.report').getAttribute('data-passed')).toBe('true');
    const left = (await call(server, 'GET', `/v1/connectors/${sha}`, { token: agent })).json().trials as { approvedAt: number | null; host: string | null; phase: string }[];
    expect(left.map((trial) => [trial.phase, trial.host, trial.approvedAt !== null])).toEqual([
      ['install', 'notes', false],
      ['submit', null, true],
    ]);
    const refused = await call(server, 'DELETE', `/v1/trials/${(left[0] as unknown as { id: string }).id}`, { token: agent });
    expect(refused.status).toBe(412);
    expect(refused.json().error.details.reason).toBe('host_check');
    expectClean();
  }, BROWSER_TEST_MS);
});

function expectClean(): void {
  expect(watched.outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'page errors').toEqual([]);
}
