/**
 * Other pages in Chromium cannot drive the server.
 *
 * - **DNS rebinding.** Chromium resolves `evil.example` to 127.0.0.1 (`--host-resolver-rules`),
 *   as after the attacker's DNS re-pointed the name: the page at `http://evil.example:<port>/`
 *   is then same-origin with the server, free to read what it answers. The server refuses it for
 *   its Host: the web page does not load, and the page's own same-origin fetches (a sign-in code
 *   it got hold of, the OpenAPI description) are refused — the code stays unspent.
 * - **Another local origin.** A page served by another server on loopback tries fetch() against
 *   the API with a stolen admin token and a sign-in code: every try fails in the page, and nothing
 *   changed on the server.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../http/__fixtures__/api.js';
import { BROWSER_TEST_MS, CHROMIUM_ARGS, chromiumPath, screenshot, startWebServer, type WebServer } from './__fixtures__/browser.js';

let server: WebServer;
let browser: Browser;
let attacker: Server;
let attackerUrl: string;
let port: number;

beforeAll(async () => {
  server = await startWebServer({ mcp: true });
  port = Number(new URL(server.url).port);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP evil.example 127.0.0.1'] });
  attacker = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>A page elsewhere</title><p>Nothing to see here.</p>');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => attacker?.close(resolve));
});

/** Code the attacking page runs: each fetch's status, or the error the browser gave the page instead. */
const ATTEMPTS = (base: string, token: string, code: string): string => `(async () => {
  const attempt = async (path, init) => {
    try {
      const response = await fetch(${JSON.stringify(base)} + path, init);
      return response.type === 'opaque' ? 'opaque' : String(response.status) + ' ' + (await response.text());
    } catch (error) {
      return error.name;
    }
  };
  const bearer = { authorization: 'Bearer ${token}' };
  return {
    read: await attempt('/v1/openapi.json', {}),
    hosts: await attempt('/v1/hosts', { headers: bearer }),
    write: await attempt('/v1/fs/write?address=' + encodeURIComponent('files://planted.txt'), { method: 'PUT', headers: bearer, body: 'planted' }),
    network: await attempt('/v1/networks', { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'evil' }) }),
    exchange: await attempt('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: '${code}' }) }),
    exchangeBlind: await attempt('/v1/sessions', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ code: '${code}' }) }),
    mcp: await attempt('/mcp', { method: 'POST', headers: { ...bearer, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } }) }),
  };
})()`;

async function unchanged(code: string): Promise<void> {
  await expect(readFile(join(server.folder, 'planted.txt'))).rejects.toThrow();
  expect(await server.platform.store.networks.get('evil')).toBeNull();
  // The code was never spent: the person it was made for can still use it.
  expect((await call(server, 'POST', '/v1/sessions', { body: { code } })).status).toBe(201);
}

describe('pages elsewhere', () => {
  it('a rebound name: the page is not served, and its same-origin calls are refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const rebound = `http://evil.example:${port}`;
      const answer = await page.goto(`${rebound}/`);
      expect(answer?.status()).toBe(403);
      expect(JSON.parse(await answer!.text())).toMatchObject({ error: { code: 'permission_denied', details: { reason: 'host_not_allowed' } } });
      expect(await page.locator('#app').count()).toBe(0);
      await screenshot(page, 'rebinding-refused');
      const code = (await server.signInLink()).split('#code=')[1]!;
      const outcomes = await page.evaluate<Record<string, string>>(ATTEMPTS(rebound, server.admin, code));
      // Same-origin now, so the page reads every answer: each is the refusal.
      for (const [name, outcome] of Object.entries(outcomes)) {
        if (outcome === 'opaque') continue;
        expect(outcome, name).toMatch(/^403 /);
        expect(outcome, name).toContain('host_not_allowed');
      }
      await unchanged(code);
    } finally {
      await context.close();
    }
  }, BROWSER_TEST_MS);

  it('another local origin: every fetch with a stolen token or code fails, and nothing changes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${attackerUrl}/`);
      const code = (await server.signInLink()).split('#code=')[1]!;
      const outcomes = await page.evaluate<Record<string, string>>(ATTEMPTS(server.url, server.admin, code));
      // The browser hands the page nothing: no CORS grant, preflights refused; blind requests are opaque.
      expect(outcomes).toEqual({
        read: 'TypeError',
        hosts: 'TypeError',
        write: 'TypeError',
        network: 'TypeError',
        exchange: 'TypeError',
        exchangeBlind: 'opaque',
        mcp: 'TypeError',
      });
      await unchanged(code);
    } finally {
      await context.close();
    }
  }, BROWSER_TEST_MS);
});
