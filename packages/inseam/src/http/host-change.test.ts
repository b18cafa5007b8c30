/**
 * Hosts over `/v1` (issue 16, items 3 and 4): `POST /v1/hosts` gives a folder the auto sync by
 * default, `describe` tells a form that default, `PATCH /v1/hosts/{network}/{host}` changes a host
 * as strictly as adding checks it (a refused change changes nothing; permissions stay a person's
 * act), and `GET …/syncs` answers the host's last syncs with what they changed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startApi, type Api } from './__fixtures__/api.js';

let api: Api;

beforeAll(async () => {
  api = await startApi();
  await mkdir(join(api.folder, 'more'));
  await writeFile(join(api.folder, 'more', 'x.md'), 'ex');
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const admin = (): { token: string } => ({ token: api.admin });

describe('POST /v1/hosts', () => {
  it('gives a folder host the auto sync unless the body chooses, and refuses a root that is missing or a file', async () => {
    const added = await call(api, 'POST', '/v1/hosts', { ...admin(), body: { slug: 'auto', kind: 'fs', config: { root: join(api.folder, 'more') } } });
    expect(added.status, added.text).toBe(201);
    expect(added.json().sync).toEqual({ trigger: 'auto' });
    const manual = await call(api, 'POST', '/v1/hosts', { ...admin(), body: { slug: 'hand', kind: 'fs', config: { root: join(api.folder, 'more') }, sync: { trigger: 'manual' } } });
    expect(manual.json().sync).toEqual({ trigger: 'manual' });
    const missing = await call(api, 'POST', '/v1/hosts', { ...admin(), body: { slug: 'gone', kind: 'fs', config: { root: join(api.folder, 'nope') } } });
    expect(missing.status).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_config', details: { fields: ['root'], reason: 'root_missing' } });
    const file = await call(api, 'POST', '/v1/hosts', { ...admin(), body: { slug: 'file', kind: 'fs', config: { root: join(api.folder, 'more', 'x.md') } } });
    expect(file.json().error).toMatchObject({ code: 'invalid_config', details: { reason: 'root_not_a_folder' } });
    expect((await call(api, 'GET', '/v1/hosts/home/gone', admin())).status).toBe(404);
  });

  it('tells a form the sync a host with this config gets by default', async () => {
    const described = await call(api, 'POST', '/v1/source-kinds/fs/describe', { ...admin(), body: { config: { root: api.folder } } });
    expect(described.status, described.text).toBe(200);
    expect(described.json().defaultSync).toEqual({ trigger: 'auto' });
  });
});

describe('PATCH /v1/hosts/{network}/{host}', () => {
  it('changes what it is given, and nothing at all when a part is refused', async () => {
    const path = '/v1/hosts/home/hand';
    const before = (await call(api, 'GET', path, admin())).json().settings;
    for (const [body, code] of [
      [{ label: 'Hand', config: { root: join(api.folder, 'more'), bogus: 1 } }, 'invalid_config'],
      [{ label: 'Hand', config: { root: join(api.folder, 'nope') } }, 'invalid_config'],
      [{ label: 'Hand', sync: { trigger: 'sometimes' } }, 'invalid_argument'],
      [{ label: 'Hand', slug: 'renamed' }, 'invalid_argument'],
      [{ label: 'Hand', scope: { window: { last: 'forever' } } }, 'scope_invalid'],
    ] as const) {
      const refused = await call(api, 'PATCH', path, { ...admin(), body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code, JSON.stringify(body)).toBe(code);
    }
    expect((await call(api, 'GET', path, admin())).json().settings).toEqual(before);

    const changed = await call(api, 'PATCH', path, { ...admin(), body: { label: 'By hand', description: 'Synced when asked.', sync: { trigger: 'auto', interval: 'PT1H' } } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json()).toMatchObject({ label: 'By hand', description: 'Synced when asked.', sync: { trigger: 'auto', interval: 'PT1H' }, config: before.config });
    expect((await call(api, 'PATCH', '/v1/hosts/home/nosuch', { ...admin(), body: { label: 'x' } })).status).toBe(404);
  });

  it('lets only a person change permissions; an agent with hosts.manage may change the rest', async () => {
    const agent = (await api.tokens.create({ name: 'agent-manager', userId: 'ann', agentId: 'helper', network: 'home', features: ['hosts.manage'] })).token;
    const refused = await call(api, 'PATCH', '/v1/hosts/home/hand', { token: agent, body: { label: 'Agent was here', writable: true } });
    expect(refused.status).toBe(403);
    expect(refused.json().error.details.reason).toBe('agent_cannot_act');
    expect((await call(api, 'GET', '/v1/hosts/home/hand', admin())).json().settings).toMatchObject({ label: 'By hand', permissions: { default: { write: false } } });
    const label = await call(api, 'PATCH', '/v1/hosts/home/hand', { token: agent, body: { label: 'Named by the agent' } });
    expect(label.status, label.text).toBe(200);
    const reader = await call(api, 'PATCH', '/v1/hosts/home/hand', { token: api.reader, body: { label: 'x' } });
    expect(reader.status).toBe(403);
    const person = await call(api, 'PATCH', '/v1/hosts/home/hand', { ...admin(), body: { writable: true } });
    expect(person.json().permissions).toEqual({ default: { read: true, write: true, exec: false } });
  });

  it('re-binds and syncs a host whose root changed; its syncs say what changed', async () => {
    const crawl = await call(api, 'POST', '/v1/hosts/home/hand/crawl', { ...admin(), body: { mode: 'full' } });
    expect(crawl.status, crawl.text).toBe(202);
    await vi.waitFor(async () => expect((await call(api, 'GET', '/v1/hosts/home/hand/crawl', admin())).json().progress?.state).toBe('completed'));
    const changed = await call(api, 'PATCH', '/v1/hosts/home/hand', { ...admin(), body: { config: { root: api.folder } } });
    expect(changed.status, changed.text).toBe(200);
    await vi.waitFor(
      async () => {
        const syncs = (await call(api, 'GET', '/v1/hosts/home/hand/syncs', { token: api.reader })).json();
        expect(syncs).toHaveLength(2);
        expect(syncs[0]).toMatchObject({ mode: 'full', state: 'completed', removed: 1, errors: 0, error: null });
        expect(syncs[0].added).toBeGreaterThan(1);
        expect(syncs[1]).toMatchObject({ mode: 'full', state: 'completed', added: 1, changed: 0, removed: 0 });
        expect(syncs[0].startedAt).toBeGreaterThanOrEqual(syncs[1].endedAt);
      },
      { timeout: 10_000 },
    );
    expect((await call(api, 'GET', '/v1/hosts/home/hand/syncs?limit=1', { token: api.reader })).json()).toHaveLength(1);
    expect((await call(api, 'GET', '/v1/hosts/home/hand/syncs?limit=0', { token: api.reader })).status).toBe(400);
    expect((await call(api, 'GET', '/v1/hosts/home/nosuch/syncs', { token: api.reader })).status).toBe(404);
  });
});
