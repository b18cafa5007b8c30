/**
 * trial_connector and install_connector through the endpoint, with the SDK's own client: the
 * notes-api example trialled against its real API on loopback (a private origin the operator
 * allowed, never one named in tool input), refused at install until a person approved the trial,
 * installed — kind registered, host added, first crawl started — and read through the filesystem
 * tools; a module that differs from the one approved is refused, and the installation is kept in
 * the lifecycle's records so a restarted process registers the kind again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConnectorLifecycle, type LifecyclePlatform } from '../connectors/index.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import type { SandboxedKindSpec } from '../platform/index.js';
import { NOTES_SEED, exampleSource } from '../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../trial/__fixtures__/servers/notes-api.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';

let api: NotesApi;
let fixture: McpFixture;
let ann: Client;
const source = exampleSource('notes-api');
let trialId: string;

beforeAll(async () => {
  api = await startNotesApi(NOTES_SEED);
  fixture = await openMcpFixture({ routes: { allowPrivateOrigins: [api.origin] } });
  fixture.tokens.set('ann', callerOf('ann', { features: ['connectors.trial', 'hosts.manage'] }));
  ann = await fixture.client('ann');
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await api?.close();
});

function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return ann.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
}

const config = (): Record<string, unknown> => ({ baseUrl: '', pageSize: 2, pollMs: 50 });

describe('trial_connector', () => {
  it('runs the trial, records it and answers the report with the origins used, never the credential', async () => {
    const result = await call('trial_connector', { module: source, config: { ...config(), baseUrl: api.origin }, credentials: { token: api.token } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const answer = structured(result) as { trialId: string; sha: string; report: { kind: string; passed: boolean; checks: { id: number; status: string }[]; origins: string[] }; origins: string[] };
    expect(answer.sha).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.report).toMatchObject({ kind: 'notes-api', passed: true, origins: [api.origin] });
    expect(answer.report.checks.map((check) => check.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(answer.origins).toEqual([api.origin]);
    expect(JSON.stringify(result)).not.toContain(api.token);
    expect(api.requests.every((request) => request.startsWith('GET '))).toBe(true);
    const stored = await fixture.platform.store.trials.get(answer.trialId);
    expect(stored).toMatchObject({ network: 'home', kind: 'notes-api', passed: true, approvedBy: null, moduleHash: answer.sha });
    trialId = answer.trialId;
  }, 120_000);

  it('records a failing module as a failed trial that cannot be installed', async () => {
    const broken = await call('trial_connector', { module: 'export function createConnector() { return {}; }', config: {} });
    expect(broken.isError, textOf(broken)).toBeFalsy();
    const answer = structured(broken) as { trialId: string; report: { passed: boolean } };
    expect(answer.report.passed).toBe(false);
    const refused = await call('install_connector', { trialId: answer.trialId, host: 'broken', config: {} });
    expect(errorCode(refused)).toBe('precondition_failed');
    expect(structured(refused)['error']).toMatchObject({ details: { reason: 'trial_failed' } });
  }, 60_000);
});

describe('install_connector', () => {
  it('is refused until a person has approved the module, and for an unknown trial', async () => {
    const refused = await call('install_connector', { trialId, host: 'notes', config: { ...config(), baseUrl: api.origin }, credentials: { token: api.token } });
    expect(errorCode(refused)).toBe('precondition_failed');
    expect(structured(refused)['error']).toMatchObject({ details: { reason: 'not_approved' } });
    expect(textOf(refused)).toMatch(/person/);
    expect(errorCode(await call('install_connector', { trialId: 'no-such-trial', host: 'notes', config: {} }))).toBe('not_found');
    expect(errorCode(await call('install_connector', { host: 'notes', config: {} }))).toBe('invalid_argument');
    expect(await fixture.platform.store.hosts.get({ network: 'home', host: 'notes' })).toBeNull();
  });

  it('installs an approved trial: registers the kind, adds the host, crawls it; the files are then readable', async () => {
    // A person approves it (the web page or the API, typing the confirmation phrase); never a tool.
    const record = await fixture.connectors.trialRecord('home', trialId);
    await fixture.connectors.approveTrial({ userId: 'a-person' }, 'home', trialId, record.confirmation);
    const installed = await call('install_connector', { trialId, host: 'notes', label: 'Team notes', config: { baseUrl: api.origin, pageSize: 2 }, credentials: { token: api.token } });
    expect(installed.isError, textOf(installed)).toBeFalsy();
    expect(structured(installed)).toMatchObject({ kind: 'notes-api', host: 'notes', address: 'inseam://home/notes/', sha: record.moduleHash, crawl: 'started' });
    // Which phases passed: the read-only one; the host is read only, and writes are a person's to turn on after the install-phase trial.
    expect(structured(installed)['phases']).toEqual({ submit: 'passed', install: 'not_run', declaresWrites: true, writesCheckedOn: [] });
    expect(textOf(installed)).toContain('read-only (submit) phase passed, install phase not run');
    expect(JSON.stringify(installed)).not.toContain(api.token);
    const host = await fixture.platform.store.hosts.get({ network: 'home', host: 'notes' });
    expect(host).toMatchObject({ kind: 'notes-api', privateOrigins: [api.origin] });
    const listing = await call('list', { address: 'notes://journal' });
    expect((structured(listing)['entries'] as { name: string }[]).map((entry) => entry.name)).toEqual(['2024-05-01.md', '2024-05-02.md']);
    expect(textOf(await call('read', { address: 'notes://journal/2024-05-02.md' }))).toBe('# May the second\n');
    // The first crawl indexes the host; search finds its text once it has.
    let hits: unknown[] = [];
    for (let attempt = 0; attempt < 50 && hits.length === 0; attempt += 1) {
      hits = structured(await call('search', { query: 'umlauts', mode: 'keyword' }))['hits'] as unknown[];
      if (hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(hits).toHaveLength(1);
  }, 60_000);

  it('installs exactly the approved module: a changed module is another sha, refused until it is approved itself', async () => {
    const changed = await fixture.connectors.submit({ userId: 'ann', agentId: 'agent' }, 'home', { module: `${source}\n// changed after the trial\n` });
    const approved = await fixture.connectors.trialRecord('home', trialId);
    expect(changed.connector.sha).not.toBe(approved.moduleHash);
    const refused = await call('install_connector', { sha: changed.connector.sha, host: 'changed', config: { baseUrl: api.origin } });
    expect(errorCode(refused)).toBe('precondition_failed');
    expect(structured(refused)['error']).toMatchObject({ details: { sha: changed.connector.sha, reason: 'not_approved' } });
    expect(await fixture.platform.store.hosts.get({ network: 'home', host: 'changed' })).toBeNull();
  });

  it('keeps the installation where every surface sees it, so a restarted process registers the kind again', async () => {
    const { moduleHash } = await fixture.connectors.trialRecord('home', trialId);
    expect(await fixture.connectors.get('home', moduleHash)).toMatchObject({ state: 'installed', installation: { kind: 'notes-api', network: 'home', installedBy: 'ann' } });
    // A new process: a fresh lifecycle over the same data directory, with nothing registered yet.
    const registered: string[] = [];
    const kinds = { registerSandboxed: (spec: SandboxedKindSpec) => void registered.push(spec.description.kind) };
    const restarted = new ConnectorLifecycle({ ...pick(fixture.platform), kinds } as unknown as LifecyclePlatform);
    expect(await restarted.restore()).toEqual({ restored: ['notes-api'], failed: [] });
    expect(registered).toEqual(['notes-api']);
  });
});

function pick(platform: McpFixture['platform']): Omit<LifecyclePlatform, 'kinds'> {
  return { paths: platform.paths, store: platform.store, sandbox: platform.sandbox, networks: platform.networks, credentials: platform.credentials, requestCrawl: platform.requestCrawl.bind(platform) };
}
