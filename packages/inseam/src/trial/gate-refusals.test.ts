/**
 * Check 11 and the gate's new refusals, through a real trial (sandbox process, gate in audit
 * mode, an echo server on 127.0.0.1): a module that sends a secret out, in any part of a request,
 * fails check 11 with the request named by method, origin and part — never the value — and so
 * does a read carrying a method override. The report's refusal lines name the part too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoHandler, startServer } from '../gate/__fixtures__/servers.js';
import type { TestServer } from '../gate/__fixtures__/servers.js';
import { leaks } from '../gate/__fixtures__/spellings.js';
import { TrialSandbox, formatTrialReport, runTrial } from './index.js';
import type { TrialReport } from './index.js';

const TOKEN = 'tok_trial_8f3a61c2d9e04b57';

let server: TestServer;
let sandbox: TrialSandbox;
beforeAll(async () => {
  server = await startServer(echoHandler);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await server.close();
});

/** A read-only module whose list() first runs `send` (with `config` in scope). */
function moduleSending(send: string): string {
  const description = {
    kind: 'leaky',
    capabilities: ['list', 'stat', 'read'],
    auth: { acquire: { type: 'static' }, fields: [{ name: 'token', label: 'Token', secret: true }], present: [{ in: 'header', name: 'X-Api-Key', value: '{{token}}' }], origins: [server.origin] },
    dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
    listing: 'free',
  };
  return `export function createConnector(config) {
    const entry = { path: 'a', size: 1, mtime: '2024-05-01T00:00:00Z' };
    return {
      describe() { return ${JSON.stringify(description)}; },
      async list() { try { ${send} } catch (error) {} return { entries: [entry] }; },
      async stat() { return entry; },
      async read(path, options) { return new ReadableStream({ start(c) { c.enqueue(new Uint8Array([65]).slice(...(options && options.range ? options.range : [0, 1]))); c.close(); } }); },
    };
  }`;
}

async function trialOf(send: string): Promise<TrialReport> {
  return runTrial({
    subject: { module: moduleSending(send), label: 'leaky' },
    config: { origin: server.origin, leak: TOKEN },
    credentials: { token: TOKEN },
    allowPrivateOrigins: [server.origin],
    sandbox,
  });
}

function check11(report: TrialReport): { status: string; detail: string } {
  return report.checks.find((record) => record.id === 11)!;
}

describe('check 11 names a request that carried a secret', () => {
  it.each([
    ['the query string', `await fetch(config.origin + '/collect?k=' + config.leak);`, 'GET', 'url'],
    ['a header', `await fetch(config.origin + '/collect', { headers: { 'X-Data': btoa('x' + config.leak) } });`, 'GET', 'header x-data'],
    ['a PROPFIND body', `await fetch(config.origin + '/collect', { method: 'PROPFIND', body: '<k>' + config.leak.toUpperCase() + '</k>' });`, 'PROPFIND', 'body'],
  ])('in %s: it fails, naming method, origin and part, and the secret appears nowhere', async (_label, send, method, part) => {
    const before = server.requests.filter((request) => request.url.startsWith('/collect')).length;
    const report = await trialOf(send);
    expect(check11(report).status).toBe('fail');
    expect(check11(report).detail).toContain(`${method} to ${server.origin}: it carried the host's credential (in its ${part})`);
    expect(check11(report).detail).toContain('never put a credential');
    expect(report.refusals).toContainEqual({ origin: server.origin, method, reason: 'secret_in_request', part });
    expect(formatTrialReport(report)).toContain(`${method} ${server.origin} (secret_in_request, ${part})`);
    expect(leaks(JSON.stringify(report) + formatTrialReport(report), TOKEN)).toBe(false);
    expect(server.requests.filter((request) => request.url.startsWith('/collect'))).toHaveLength(before);
  });

  it('a module that sends nothing secret passes check 11', async () => {
    const report = await trialOf(`await (await fetch(config.origin + '/collect?k=public')).text();`);
    expect(check11(report).status).toBe('pass');
  });
});

describe('check 11 names a read carrying a method override (audit mode)', () => {
  it.each([
    [`await fetch(config.origin + '/echo', { headers: { 'X-HTTP-Method-Override': 'DELETE' } });`, 'header x-http-method-override'],
    [`await fetch(config.origin + '/echo?_method=DELETE');`, 'url'],
  ])('%s fails check 11 and never reaches the server', async (send, part) => {
    const before = server.requests.length;
    const report = await trialOf(send);
    expect(check11(report).status).toBe('fail');
    expect(check11(report).detail).toContain(`GET to ${server.origin}: a read carrying a method override (in its ${part})`);
    expect(check11(report).detail).toContain('see: docs/connectors/authoring.md#audit-mode');
    expect(server.requests.slice(before).some((request) => request.headers['x-http-method-override'] !== undefined || request.url.includes('_method'))).toBe(false);
  });
});
