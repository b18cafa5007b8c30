/**
 * The sandboxed connector lifecycle over HTTP, with the notes-api example module against its real
 * API on loopback: submit → trial → a person approves → install → first crawl; the refusals at
 * each step (an agent approving, a wrong confirmation, installing without approval, a changed
 * module), and the installed kind registered again after a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorLifecycle, moduleSha } from '../connectors/index.js';
import { openPlatform } from '../platform/index.js';
import { NOTES_SEED, exampleSource } from '../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../trial/__fixtures__/servers/notes-api.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
let notes: NotesApi;
const source = exampleSource('notes-api');
const sha = moduleSha(source);
const changed = `${source}\n// a changed module is a new sha\n`;
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { baseUrl: { type: 'string', minLength: 1 }, pageSize: { type: 'integer', minimum: 1 } },
  required: ['baseUrl'],
};

beforeAll(async () => {
  notes = await startNotesApi(NOTES_SEED);
  api = await startApi();
});

afterAll(async () => {
  await api?.close();
  await notes?.close();
});

function trialBody() {
  return { config: { baseUrl: notes.origin, pageSize: 2 }, credentials: { token: notes.token }, allowPrivateOrigins: [notes.origin] };
}

describe('the connector lifecycle', () => {
  it('stores a submitted module by its sha, once', async () => {
    const denied = await call(api, 'POST', '/v1/connectors', { token: api.reader, body: { module: source } });
    expect(denied.status).toBe(403);
    const submitted = await call(api, 'POST', '/v1/connectors', { token: api.agent, body: { module: source, name: 'Notes API', configSchema: SCHEMA } });
    expect(submitted.status).toBe(201);
    expect(submitted.json()).toMatchObject({ sha, name: 'Notes API', state: 'submitted', trials: [], submittedBy: 'ann/helper' });
    const again = await call(api, 'POST', '/v1/connectors', { token: api.agent, body: { module: source } });
    expect(again.status).toBe(200);
    expect(again.json().sha).toBe(sha);
    const open = await call(api, 'POST', '/v1/connectors', { token: api.agent, body: { module: changed, configSchema: { type: 'object' } } });
    expect(open.status).toBe(400);
    expect(open.json().error.code).toBe('invalid_config');
  });

  it('refuses approval and install before a trial', async () => {
    const approve = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: { confirm: 'approve notes-api x' } });
    expect(approve.status).toBe(412);
    expect(approve.json().error.details.reason).toBe('not_trialled');
    const install = await call(api, 'POST', `/v1/connectors/${sha}/install`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: { host: 'notes', config: { baseUrl: notes.origin } } });
    expect(install.status).toBe(412);
    expect(install.json().error.details.reason).toBe('not_approved');
  });

  it('reads check 10 samples from the trial body, refusing a malformed one by its field', async () => {
    const trial = await call(api, 'POST', `/v1/connectors/${sha}/trial`, {
      token: api.admin,
      headers: { 'inseam-network': 'home' },
      body: { ...trialBody(), samples: [{ mime: 'text/markdown', extension: 'md', body: 'same', replacement: 'same' }] },
    });
    expect(trial.status).toBe(400);
    expect(trial.json().error).toMatchObject({ code: 'invalid_config' });
    expect(trial.json().error.message).toContain('samples[0].replacement');
  });

  it('trials the module against its host and records the trial, never echoing the credential; private origins only for a person', async () => {
    const private_ = await call(api, 'POST', `/v1/connectors/${sha}/trial`, { token: api.agent, body: trialBody() });
    expect(private_.status).toBe(403);
    expect(private_.json().error.details.reason).toBe('agent_cannot_allow_private');
    const trial = await call(api, 'POST', `/v1/connectors/${sha.slice(0, 12)}/trial`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: trialBody() });
    expect(trial.status, trial.text).toBe(200);
    const { report, trial: recorded } = trial.json();
    expect(report).toMatchObject({ kind: 'notes-api', passed: true, phase: 'submit', origins: [notes.origin] });
    expect(report.checks.map((check: { id: number }) => check.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(recorded).toMatchObject({ kind: 'notes-api', passed: true, approvedBy: null });
    expect(trial.text).not.toContain(notes.token);
    const view = (await call(api, 'GET', `/v1/connectors/${sha}`, { token: api.reader })).json();
    expect(view).toMatchObject({ state: 'trialled', kind: 'notes-api', confirmation: `approve notes-api ${sha.slice(0, 12)}` });
  }, 60_000);

  it('lets only a person approve, with the confirmation typed', async () => {
    const agent = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.agent, body: { confirm: `approve notes-api ${sha.slice(0, 12)}` } });
    expect(agent.status).toBe(403);
    expect(agent.json().error.details.reason).toBe('agent_cannot_act');
    const reader = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.reader, body: { confirm: `approve notes-api ${sha.slice(0, 12)}` } });
    expect(reader.status).toBe(403);
    expect(reader.json().error.details.missingFeatures).toEqual(['connectors.approve']);
    const headers = { 'inseam-network': 'home' };
    const wrong = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers, body: { confirm: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json().error.details).toMatchObject({ argument: 'confirm', reason: 'confirmation_mismatch' });
    const missing = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers, body: {} });
    expect(missing.status).toBe(400);
    const approved = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers, body: { confirm: `approve  notes-api ${sha.slice(0, 12)} ` } });
    expect(approved.status).toBe(200);
    // Approval says which phases passed: only the submit phase ran, so writes are not checked yet.
    expect(approved.json()).toMatchObject({ kind: 'notes-api', approvedBy: 'ann', phases: { submit: 'passed', install: 'not_run', declaresWrites: true, writesCheckedOn: [] } });
    const twice = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers, body: { confirm: `approve notes-api ${sha.slice(0, 12)}` } });
    expect(twice.status).toBe(412);
  });

  it('installs exactly the approved sha: the kind, the host and its first crawl', async () => {
    const headers = { 'inseam-network': 'home' };
    const installed = await call(api, 'POST', `/v1/connectors/${sha}/install`, {
      token: api.admin,
      headers,
      body: { host: 'notes', config: { baseUrl: notes.origin, pageSize: 2 }, credentials: { token: notes.token }, privateOrigins: [notes.origin], label: 'Notes' },
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.json().host).toMatchObject({ slug: 'notes', kind: 'notes-api', credentials: { stored: ['token'] } });
    expect(installed.text).not.toContain(notes.token);
    // The trial verified newest-first listing, so the host is crawled newest first.
    expect((await api.platform.store.hosts.get({ network: 'home', host: 'notes' }))?.honoursOrder).toBe(true);
    let crawl = installed.json().crawl;
    for (let attempt = 0; attempt < 200 && crawl.progress?.state !== 'completed'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      crawl = (await call(api, 'GET', '/v1/hosts/home/notes/crawl', { token: api.reader })).json();
    }
    expect(crawl.progress).toMatchObject({ state: 'completed' });
    // The kind's default scope leaves trash/ out.
    expect(crawl.entries).toBe(NOTES_SEED.length - 1);
    const kinds = (await call(api, 'GET', '/v1/source-kinds', { token: api.reader })).json<{ kind: string; sandboxed: boolean; configSchema: unknown }[]>();
    expect(kinds.find((kind) => kind.kind === 'notes-api')).toMatchObject({ sandboxed: true, configSchema: SCHEMA });
    expect((await call(api, 'GET', `/v1/connectors/${sha}`, { token: api.reader })).json().state).toBe('installed');
  }, 60_000);

  it('treats a changed module as a new one, and a kind approved elsewhere as not approved', async () => {
    const submitted = (await call(api, 'POST', '/v1/connectors', { token: api.agent, body: { module: changed } })).json();
    expect(submitted.sha).toBe(moduleSha(changed));
    expect(submitted.state).toBe('submitted');
    const install = await call(api, 'POST', `/v1/connectors/${submitted.sha}/install`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: { host: 'notes2', config: { baseUrl: notes.origin } } });
    expect(install.status).toBe(412);
    await api.platform.networks.init('lab');
    const elsewhere = await call(api, 'POST', '/v1/hosts', {
      token: api.admin,
      headers: { 'inseam-network': 'lab' },
      body: { slug: 'notes', kind: 'notes-api', config: { baseUrl: notes.origin }, credentials: { token: notes.token }, privateOrigins: [notes.origin] },
    });
    expect(elsewhere.status).toBe(412);
    expect(elsewhere.json().error.details.reason).toBe('not_approved');
  });

  it('approves a trial by its id too (as trial_connector records them)', async () => {
    const trial = (await call(api, 'POST', `/v1/connectors/${moduleSha(changed)}/trial`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: trialBody() })).json().trial;
    const shown = await call(api, 'GET', `/v1/trials/${trial.id}`, { token: api.reader });
    expect(shown.json()).toMatchObject({ id: trial.id, moduleHash: moduleSha(changed), confirmation: `approve notes-api ${moduleSha(changed).slice(0, 12)}` });
    expect((await call(api, 'GET', `/v1/trials/${trial.id}`, { token: api.admin, headers: { 'inseam-network': 'lab' } })).status).toBe(404);
    const approved = await call(api, 'POST', `/v1/trials/${trial.id}/approve`, { token: api.admin, headers: { 'inseam-network': 'home' }, body: { confirm: shown.json().confirmation } });
    expect(approved.status).toBe(200);
    expect((await call(api, 'GET', `/v1/connectors/${moduleSha(changed)}`, { token: api.reader })).json().state).toBe('approved');
  }, 60_000);

  it('installs a module that declares writes writable only after the platform ran the install-phase trial on the new host', async () => {
    const headers = { 'inseam-network': 'home' };
    const config = { baseUrl: notes.origin, pageSize: 2 };
    const install = (body: Record<string, unknown>) =>
      call(api, 'POST', `/v1/connectors/${sha}/install`, { token: api.admin, headers, body: { config, credentials: { token: notes.token }, privateOrigins: [notes.origin], ...body } });
    const unnamed = await install({ host: 'notes-rw', writable: true });
    expect(unnamed.status, unnamed.text).toBe(412);
    expect(unnamed.json().error.details).toMatchObject({ reason: 'writes_not_trialled', argument: 'scratchPrefix' });
    // A tree that grants write asks for writes too.
    const tree = await install({ host: 'notes-rw', permissions: { default: { read: true, write: true, exec: false } } });
    expect(tree.status).toBe(412);
    expect(await api.platform.store.hosts.get({ network: 'home', host: 'notes-rw' })).toBeNull();

    // No install-phase trial ran before: installing runs it, with the host's own config and credential.
    const installed = await install({ host: 'notes-rw', writable: true, scratchPrefix: 'scratch/' });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.json().host).toMatchObject({ slug: 'notes-rw', kind: 'notes-api' });
    expect(installed.json().writes).toMatchObject({ writable: true, scratchPrefix: 'scratch', check: null });
    expect(installed.text).not.toContain(notes.token);
    const settings = (await call(api, 'GET', '/v1/hosts/home/notes-rw', { token: api.admin })).json().settings;
    expect(JSON.stringify(settings.permissions)).toContain('"write":true');
    const trial = (await call(api, 'GET', `/v1/trials/${installed.json().writes.trial}`, { token: api.reader })).json();
    expect(trial).toMatchObject({ phase: 'install', passed: true, host: 'notes-rw', scratchPrefix: 'scratch', writesChecked: true, confirmation: null });
    expect(trial.report.checks[9]).toMatchObject({ id: 10, status: 'pass' });
    const approveCheck = await call(api, 'POST', `/v1/trials/${trial.id}/approve`, { token: api.admin, headers, body: { confirm: `approve notes-api ${sha.slice(0, 12)}` } });
    expect(approveCheck.status).toBe(412);
    expect(approveCheck.json().error.details.reason).toBe('not_offered');
    const view = (await call(api, 'GET', `/v1/connectors/${sha}`, { token: api.reader })).json();
    expect(view.phases).toEqual({ submit: 'passed', install: 'passed', declaresWrites: true, writesCheckedOn: ['scratch'] });
    // Read only runs no trial.
    const readOnly = await install({ host: 'notes-ro' });
    expect(readOnly.status, readOnly.text).toBe(201);
    expect(readOnly.json().writes).toBeNull();
  }, 60_000);

  it('makes a read-only host of that kind writable later only through the same trial', async () => {
    const patched = await call(api, 'PATCH', '/v1/hosts/home/notes-ro', { token: api.admin, body: { writable: true } });
    expect(patched.status).toBe(412);
    expect(patched.json().error.details).toMatchObject({ reason: 'writes_not_trialled', argument: 'scratchPrefix' });
    const unnamed = await call(api, 'PUT', '/v1/hosts/home/notes-ro/permissions', { token: api.admin, body: { writable: true } });
    expect(unnamed.status).toBe(412);
    const bad = await call(api, 'PUT', '/v1/hosts/home/notes-ro/permissions', { token: api.admin, body: { writable: true, scratchPrefix: '../up' } });
    expect(bad.status).toBe(400);
    const made = await call(api, 'PUT', '/v1/hosts/home/notes-ro/permissions', { token: api.admin, body: { writable: true, scratchPrefix: 'scratch' } });
    expect(made.status, made.text).toBe(200);
    expect(JSON.stringify(made.json().permissions)).toContain('"write":true');
    expect(made.json().writes).toMatchObject({ writable: true, scratchPrefix: 'scratch' });
    // A writable host's permissions changed again with the same config need no new trial; turning writes off never does.
    const again = await call(api, 'PUT', '/v1/hosts/home/notes-ro/permissions', { token: api.admin, body: { writable: true } });
    expect(again.json().writes).toBeNull();
    const off = await call(api, 'PUT', '/v1/hosts/home/notes-ro/permissions', { token: api.admin, body: { writable: false } });
    expect(off.status).toBe(200);
    expect(off.json().writes).toBeNull();
  }, 60_000);

  it('registers the installed kind again after a restart', async () => {
    await api.stop();
    const platform = await openPlatform({ dataDir: api.dataDir, env: {} });
    try {
      expect(platform.kinds.has('notes-api')).toBe(false);
      const restored = await new ConnectorLifecycle(platform).restore();
      expect(restored).toEqual({ restored: ['notes-api'], failed: [] });
      expect(platform.kinds.get('notes-api')).toMatchObject({ sandboxed: true, label: 'Notes API' });
      const record = await platform.networks.hostRecord({ network: 'home', host: 'notes' });
      const port = await platform.kinds.openPort(record);
      expect((await port.read('notes://journal/2024-05-02.md')).text).toBe('# May the second\n');
    } finally {
      await platform.close();
    }
  }, 30_000);
});
