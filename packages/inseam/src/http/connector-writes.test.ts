/**
 * Check 10 after install, over HTTP: a host of a sandboxed connector that declares writes becomes
 * writable only once the platform itself ran the install-phase trial against that host (its
 * config, its stored credential, its approved private origin) on the scratch prefix a person
 * named. The module is the notes-api example with the broken corpus's `if-match-ignored` fault
 * switched on by its config (`ignoreIfMatch`), against the real notes API on loopback: installed
 * with the fault, the host stays read only with check 10's message; without it, writes come on;
 * a config change turning the fault on runs the trial again and turns writes off. And the webdav
 * example against the real WebDAV server: moving a writable host's root to a folder without the
 * scratch folder turns writes off until a trial passes again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleSha } from '../connectors/index.js';
import { BROKEN_CONNECTORS, brokenModule } from '../trial/__fixtures__/broken/broken-connectors.js';
import { DAV_SEED, NOTES_SEED, exampleSource } from '../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../trial/__fixtures__/servers/notes-api.js';
import { startDavServer, type DavServer } from '../trial/__fixtures__/servers/webdav.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

const ignoresIfMatch = BROKEN_CONNECTORS.find((connector) => connector.name === 'if-match-ignored')!;
// Its own kind, so it does not collide with other modules; the fault only where the config asks for it.
const source = brokenModule(
  exampleSource('notes-api'),
  `const described = base.describe();
  connector.describe = () => ({ ...described, kind: 'notes-lax' });
  if (config.ignoreIfMatch === true) {
    ${ignoresIfMatch.patch}
  }`,
);
const sha = moduleSha(source);
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { baseUrl: { type: 'string', minLength: 1 }, ignoreIfMatch: { type: 'boolean' } },
  required: ['baseUrl'],
};
const headers = { 'inseam-network': 'home' };

let api: Api;
let notes: NotesApi;
let dav: DavServer;

beforeAll(async () => {
  [notes, dav] = await Promise.all([startNotesApi(NOTES_SEED), startDavServer(DAV_SEED)]);
  api = await startApi();
});

afterAll(async () => {
  await api?.close();
  await notes?.close();
  await dav?.close();
});

function hostConfig(ignoreIfMatch: boolean) {
  return { baseUrl: notes.origin, ignoreIfMatch };
}

async function hostTree(slug: string): Promise<string> {
  return JSON.stringify((await call(api, 'GET', `/v1/hosts/home/${slug}`, { token: api.admin })).json().settings.permissions);
}

describe('writes come on only after the platform trialled the host', () => {
  it('approves the module on its read-only trial, which says the install phase has not run', async () => {
    expect((await call(api, 'POST', '/v1/connectors', { token: api.admin, body: { module: source, configSchema: SCHEMA } })).status).toBe(201);
    const trial = await call(api, 'POST', `/v1/connectors/${sha}/trial`, {
      token: api.admin,
      headers,
      body: { config: hostConfig(true), credentials: { token: notes.token }, allowPrivateOrigins: [notes.origin] },
    });
    expect(trial.status, trial.text).toBe(200);
    // The submit phase never writes, so the fault does not show: check 10 skips.
    expect(trial.json().report).toMatchObject({ passed: true, phase: 'submit' });
    expect(trial.json().report.checks[9]).toMatchObject({ id: 10, status: 'skip' });
    const approved = await call(api, 'POST', `/v1/connectors/${sha}/approve`, { token: api.admin, headers, body: { confirm: `approve notes-lax ${sha.slice(0, 12)}` } });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json().phases).toEqual({ submit: 'passed', install: 'not_run', declaresWrites: true, writesCheckedOn: [] });
  }, 60_000);

  it('installs a host that ignores ifMatch read only, with check 10\'s failure', async () => {
    const install = (body: Record<string, unknown>) =>
      call(api, 'POST', `/v1/connectors/${sha}/install`, { token: api.admin, headers, body: { credentials: { token: notes.token }, privateOrigins: [notes.origin], ...body } });
    const unnamed = await install({ host: 'lax', config: hostConfig(true), writable: true });
    expect(unnamed.status).toBe(412);
    expect(unnamed.json().error.details).toMatchObject({ reason: 'writes_not_trialled', argument: 'scratchPrefix' });
    expect(await api.platform.store.hosts.get({ network: 'home', host: 'lax' })).toBeNull();

    const installed = await install({ host: 'lax', config: hostConfig(true), writable: true, scratchPrefix: 'scratch/' });
    expect(installed.status, installed.text).toBe(201);
    const { writes } = installed.json();
    expect(writes).toMatchObject({ writable: false, check: 10, scratchPrefix: 'scratch' });
    expect(writes.message).toContain('check 10');
    expect(writes.message).toContain('precondition_failed');
    expect(writes.message).toContain('fix:');
    expect(writes.message).toContain('see: docs/connectors/authoring.md#writing-etags');
    expect(installed.text).not.toContain(notes.token);
    expect(await hostTree('lax')).not.toContain('"write":true');
    // The trial the platform ran is recorded, names the host, and is not offered for approval.
    const shown = (await call(api, 'GET', `/v1/trials/${writes.trial}`, { token: api.reader })).json();
    expect(shown).toMatchObject({ phase: 'install', passed: false, host: 'lax', scratchPrefix: 'scratch', confirmation: null });
    const view = (await call(api, 'GET', `/v1/connectors/${sha}`, { token: api.reader })).json();
    expect(view).toMatchObject({ state: 'installed', confirmation: null, phases: { submit: 'passed', install: 'failed', declaresWrites: true, writesCheckedOn: [] } });
    // Nothing the trial wrote is left on the host.
    expect([...notes.files.values()].filter((file) => file.path.startsWith('scratch/'))).toEqual([]);
  }, 60_000);

  it('refuses to make it writable while the fault is there, and allows it once the config drops it', async () => {
    const refused = await call(api, 'PUT', '/v1/hosts/home/lax/permissions', { token: api.admin, body: { writable: true } });
    expect(refused.status).toBe(412);
    // The prefix of the host's last trial is used again; the failure is check 10's.
    expect(refused.json().error.details).toMatchObject({ reason: 'writes_trial_failed', check: 10, scratchPrefix: 'scratch' });
    expect(refused.json().error.message).toContain('see: docs/connectors/authoring.md#writing-etags');
    expect(await hostTree('lax')).not.toContain('"write":true');

    // A config change of a read-only host needs no trial.
    const fixed = await call(api, 'PATCH', '/v1/hosts/home/lax', { token: api.admin, body: { config: hostConfig(false) } });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.json().writes).toBeNull();
    const made = await call(api, 'PUT', '/v1/hosts/home/lax/permissions', { token: api.admin, body: { writable: true } });
    expect(made.status, made.text).toBe(200);
    expect(made.json().writes).toMatchObject({ writable: true, check: null, scratchPrefix: 'scratch' });
    expect(await hostTree('lax')).toContain('"write":true');
    const view = (await call(api, 'GET', `/v1/connectors/${sha}`, { token: api.reader })).json();
    expect(view.phases).toEqual({ submit: 'passed', install: 'passed', declaresWrites: true, writesCheckedOn: ['scratch'] });
  }, 60_000);

  it('runs the trial again when a writable host\'s config changes, and turns writes off when it fails', async () => {
    const broken = await call(api, 'PATCH', '/v1/hosts/home/lax', { token: api.admin, body: { config: hostConfig(true) } });
    expect(broken.status, broken.text).toBe(200);
    expect(broken.json().config).toEqual(hostConfig(true));
    expect(broken.json().writes).toMatchObject({ writable: false, check: 10, scratchPrefix: 'scratch' });
    expect(await hostTree('lax')).not.toContain('"write":true');
    // The same config written again is no change: the host stays as it is, no trial runs.
    const same = await call(api, 'PATCH', '/v1/hosts/home/lax', { token: api.admin, body: { config: { ignoreIfMatch: true, baseUrl: notes.origin } } });
    expect(same.json().writes).toBeNull();

    const again = await call(api, 'PATCH', '/v1/hosts/home/lax', { token: api.admin, body: { config: hostConfig(false), writable: true } });
    expect(again.status, again.text).toBe(200);
    expect(again.json().writes).toMatchObject({ writable: true });
    expect(await hostTree('lax')).toContain('"write":true');
    const renewed = await call(api, 'PATCH', '/v1/hosts/home/lax', { token: api.admin, body: { config: { baseUrl: notes.origin } } });
    expect(renewed.json().writes).toMatchObject({ writable: true, scratchPrefix: 'scratch' });
    expect(await hostTree('lax')).toContain('"write":true');
  }, 90_000);

  it('adds a host of the kind writable with POST /v1/hosts the same way', async () => {
    const add = (slug: string, ignoreIfMatch: boolean) =>
      call(api, 'POST', '/v1/hosts', {
        token: api.admin,
        headers,
        body: { slug, kind: 'notes-lax', writable: true, scratchPrefix: 'scratch', config: hostConfig(ignoreIfMatch), credentials: { token: notes.token }, privateOrigins: [notes.origin] },
      });
    const lax = await add('lax-added', true);
    expect(lax.status, lax.text).toBe(201);
    expect(lax.json().writes).toMatchObject({ writable: false, check: 10 });
    expect(await hostTree('lax-added')).not.toContain('"write":true');
    const strict = await add('strict-added', false);
    expect(strict.status, strict.text).toBe(201);
    expect(strict.json().writes).toMatchObject({ writable: true });
    expect(await hostTree('strict-added')).toContain('"write":true');
  }, 60_000);
});

describe('a writable host whose root changes', () => {
  const webdav = exampleSource('webdav');
  const davSha = moduleSha(webdav);
  const credentials = () => ({ username: dav.username, password: dav.password });

  it('turns writes off when the new root fails the trial, and on again once it passes', async () => {
    expect((await call(api, 'POST', '/v1/connectors', { token: api.admin, body: { module: webdav } })).status).toBe(201);
    const trial = await call(api, 'POST', `/v1/connectors/${davSha}/trial`, { token: api.admin, headers, body: { config: { url: dav.url }, credentials: credentials(), allowPrivateOrigins: [dav.origin] } });
    expect(trial.json().report.passed, trial.text).toBe(true);
    expect((await call(api, 'POST', `/v1/connectors/${davSha}/approve`, { token: api.admin, headers, body: { confirm: `approve webdav ${davSha.slice(0, 12)}` } })).status).toBe(200);
    const installed = await call(api, 'POST', `/v1/connectors/${davSha}/install`, {
      token: api.admin,
      headers,
      body: { host: 'cloud', config: { url: dav.url }, credentials: credentials(), privateOrigins: [dav.origin], writable: true, scratchPrefix: 'scratch' },
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.json().writes).toMatchObject({ writable: true, scratchPrefix: 'scratch' });
    expect(await hostTree('cloud')).toContain('"write":true');

    // Documents/ has no scratch folder: the trial's writes there fail, so the host is read only now.
    const moved = await call(api, 'PATCH', '/v1/hosts/home/cloud', { token: api.admin, body: { config: { url: `${dav.url}Documents/` } } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json().config).toEqual({ url: `${dav.url}Documents/` });
    expect(moved.json().writes).toMatchObject({ writable: false, check: 10, scratchPrefix: 'scratch' });
    expect(moved.json().writes.message).toContain('its folder does not exist on the server');
    expect(moved.json().writes.message).toContain('see: docs/connectors/authoring.md#writing-create-and-replace');
    expect(await hostTree('cloud')).not.toContain('"write":true');

    // Asking for writes again runs it again on the same prefix: still failing there, refused.
    const refused = await call(api, 'PUT', '/v1/hosts/home/cloud/permissions', { token: api.admin, body: { writable: true } });
    expect(refused.status).toBe(412);
    expect(refused.json().error.details).toMatchObject({ reason: 'writes_trial_failed', check: 10 });
    // Back to the root that has the scratch folder, writable: the trial passes and writes come back.
    const back = await call(api, 'PATCH', '/v1/hosts/home/cloud', { token: api.admin, body: { config: { url: dav.url }, writable: true } });
    expect(back.status, back.text).toBe(200);
    expect(back.json().writes).toMatchObject({ writable: true, scratchPrefix: 'scratch' });
    expect(await hostTree('cloud')).toContain('"write":true');
    expect([...dav.files.keys()].filter((path) => path.includes('inseam-trial'))).toEqual([]);
  }, 120_000);
});
