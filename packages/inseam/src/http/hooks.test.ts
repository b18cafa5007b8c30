/**
 * Webhooks over real HTTP on the embedded store: minting a host's URL, deliveries applied in
 * process through the connector's own webhook() (which checks a signature over the untouched body
 * and headers), and the attacks: wrong key, another host's key, no key, an unknown host, a
 * replayed URL after re-minting or revoking, an oversized body, and a host that takes no webhooks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startApi, type Api } from './__fixtures__/api.js';
import { registerHooked, signed } from './__fixtures__/hooked-connector.js';
import { hashWebhookKey } from './webhook-keys.js';
import { MAX_WEBHOOK_BYTES } from '../platform/index.js';

let api: Api;

beforeAll(async () => {
  api = await startApi();
  await registerHooked(api.platform);
  for (const slug of ['hooked', 'other']) {
    await api.platform.networks.addHost({ network: 'home', slug, kind: 'hooked', config: {} });
    await (await api.platform.sync({ network: 'home', host: slug })).result;
  }
}, 60_000);

afterAll(async () => {
  await api?.close();
});

async function paths(host: string): Promise<string[]> {
  const id = (await api.platform.store.catalog.resolveHost({ network: 'home', host }))!;
  return (await api.platform.store.catalog.listEntries(id, { limit: 100 })).map((entry) => entry.path);
}

async function mint(host: string): Promise<{ url: string; path: string; replaced: boolean }> {
  const answer = await call(api, 'POST', `/v1/hosts/home/${host}/webhook-url`, { token: api.admin });
  expect(answer.status, answer.text).toBe(201);
  return answer.json();
}

function deliver(path: string, body: string, headers: Record<string, string> = signed(body)) {
  return call(api, 'POST', path, { body, headers });
}

describe('webhook URLs', () => {
  it('are minted only with hosts.manage, only for hosts whose connector takes webhooks, and keep only the key\'s hash', async () => {
    expect((await call(api, 'POST', '/v1/hosts/home/hooked/webhook-url', { token: api.reader })).json().error.code).toBe('permission_denied');
    expect((await call(api, 'POST', '/v1/hosts/home/hooked/webhook-url')).status).toBe(401);
    const folder = await call(api, 'POST', '/v1/hosts/home/files/webhook-url', { token: api.admin });
    expect([folder.status, folder.json().error.code]).toEqual([501, 'unsupported']);
    expect((await call(api, 'POST', '/v1/hosts/home/nope/webhook-url', { token: api.admin })).json().error.code).toBe('not_found');
    const minted = await mint('hooked');
    expect(minted.url).toBe(`${api.url}${minted.path}`);
    const key = minted.path.split('/').pop()!;
    expect(key).toMatch(/^whk_[A-Za-z0-9_-]{43}$/);
    const stored = await api.platform.store.webhookKeys.get({ network: 'home', host: 'hooked' });
    expect(stored?.hash).toBe(hashWebhookKey(key));
    expect(JSON.stringify(stored)).not.toContain(key);
    expect((await call(api, 'GET', '/v1/hosts/home/hooked/webhook-url', { token: api.admin })).json()).toEqual({ active: true, createdAt: stored!.createdAt });
  });
});

describe('webhook deliveries', () => {
  it('reach the connector with their body and headers unchanged and are applied at once', async () => {
    const { path } = await mint('hooked');
    const body = JSON.stringify({ deleted: ['a.txt'] });
    const answer = await deliver(path, body);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json()).toEqual({ state: 'applied', written: 0, moved: 0, deleted: 1, ignored: 0, errors: 0, rescan: false });
    expect(await paths('hooked')).toEqual(['b.txt', 'c.txt']);
    // A delivery the connector refuses (its signature does not match) changes nothing.
    const forged = await deliver(path, JSON.stringify({ deleted: ['b.txt'] }), signed('{"deleted":[]}'));
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.json().error.message).toContain('bad signature');
    expect(await paths('hooked')).toEqual(['b.txt', 'c.txt']);
  });

  it('answer the same 404 for a wrong key, another host\'s key, a malformed key and an unknown host', async () => {
    const { path } = await mint('hooked');
    const other = await mint('other');
    const otherKey = other.path.split('/').pop()!;
    const body = JSON.stringify({ deleted: ['b.txt'] });
    const attempts = [
      `/v1/hooks/home/hooked/whk_${'A'.repeat(43)}`,
      `/v1/hooks/home/hooked/${otherKey}`,
      `/v1/hooks/home/hooked/${path.split('/').pop()!.slice(0, -1)}`,
      '/v1/hooks/home/hooked/not-a-key',
      `/v1/hooks/home/nope/${otherKey}`,
      `/v1/hooks/nowhere/hooked/${otherKey}`,
      `/v1/hooks/home/files/${otherKey}`,
    ];
    const answers = await Promise.all(attempts.map((attempt) => deliver(attempt, body)));
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, attempts[index]).toBe(404);
      expect(answer.json(), attempts[index]).toEqual(answers[0]!.json());
    }
    expect(answers[0]!.json().error).toMatchObject({ code: 'not_found', details: { reason: 'no_webhook' } });
    // No key at all is no route: it says nothing about the host either.
    expect((await deliver('/v1/hooks/home/hooked', body)).status).toBe(404);
    expect(await paths('hooked')).toEqual(['b.txt', 'c.txt']);
  });

  it('stop working for the old URL once the host\'s URL is minted again or revoked', async () => {
    const first = await mint('hooked');
    const second = await mint('hooked');
    expect(second.replaced).toBe(true);
    const body = JSON.stringify({ deleted: [] });
    expect((await deliver(first.path, body)).status).toBe(404);
    expect((await deliver(second.path, body)).status).toBe(200);
    expect((await call(api, 'DELETE', '/v1/hosts/home/hooked/webhook-url', { token: api.reader })).json().error.code).toBe('permission_denied');
    expect((await call(api, 'DELETE', '/v1/hosts/home/hooked/webhook-url', { token: api.admin })).status).toBe(204);
    expect((await deliver(second.path, body)).status).toBe(404);
    expect((await call(api, 'DELETE', '/v1/hosts/home/hooked/webhook-url', { token: api.admin })).json().error.code).toBe('not_found');
    expect((await call(api, 'GET', '/v1/hosts/home/hooked/webhook-url', { token: api.admin })).json()).toEqual({ active: false, createdAt: null });
  });

  it('refuse a body over the cap with too_large, applying nothing', async () => {
    const { path } = await mint('hooked');
    const body = JSON.stringify({ deleted: ['b.txt'], padding: 'x'.repeat(MAX_WEBHOOK_BYTES) });
    const answer = await deliver(path, body);
    expect([answer.status, answer.json().error.code]).toEqual([413, 'too_large']);
    expect(await paths('hooked')).toEqual(['b.txt', 'c.txt']);
    // Without the key the body is not even read: the same 404 as every other bad key.
    expect((await deliver(`/v1/hooks/home/hooked/whk_${'B'.repeat(43)}`, body)).status).toBe(404);
  });

  it('are described in the OpenAPI document', async () => {
    const document = (await call(api, 'GET', '/v1/openapi.json')).json();
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/hooks/{network}/{host}/{key}', '/v1/hosts/{network}/{host}/webhook-url']));
    expect(document.paths['/v1/hooks/{network}/{host}/{key}'].post.security).toEqual([]);
  });
});
