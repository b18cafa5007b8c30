/**
 * Approving a machine's host key end to end, over the real HTTP server and the private sshd: a
 * machine host added with no approved key probes offline with `fs_permission` and logs in nowhere;
 * `GET …/host-key` shows the fingerprint it presents; an agent's token is refused (403) even with
 * `hosts.manage`, a fingerprint the machine does not present is refused (412), and a person's
 * `POST …/host-key` pins it, after which the host is online and lists live. No answer carries the
 * private key or a path outside the root.
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { MACHINE_CREDENTIALS, MACHINE_PACKAGE_ID } from '@inseam/connector-machine';
import { startSshd, type SshdFixture } from '../../../../connectors/machine/src/__fixtures__/sshd.mjs';
import { deploymentScope } from '../credentials/index.js';
import { FEATURES } from '../platform/authorization.js';
import { call, q, startApi, type Answer, type Api } from './__fixtures__/api.js';

let sshd: SshdFixture;
let api: Api;
/** An agent's token holding hosts.manage: the feature alone does not make it a person. */
let agentWithHosts: string;

beforeAll(async () => {
  sshd = await startSshd();
  await writeFile(`${sshd.root}/hello.txt`, 'hello from the machine\n');
  api = await startApi();
  await api.platform.packageCredentials.set(deploymentScope(), MACHINE_PACKAGE_ID, MACHINE_CREDENTIALS[0]!, { privateKey: sshd.privateKey });
  agentWithHosts = (await api.tokens.create({ name: 'agent-hosts', userId: 'ann', agentId: 'helper', network: 'home', features: [FEATURES.hostsManage] })).token;
});

afterAll(async () => {
  await api?.close();
  await sshd?.close();
});

/** No answer holds the private key, or a line of it. */
function expectNoKey(answer: Answer): void {
  const body = sshd.privateKey.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'));
  for (const line of body) expect(answer.text).not.toContain(line);
}

/**
 * Nor, outside a host's settings (the config a person gave, shown back to hosts.manage), a path
 * on the machine: statuses, listings and errors name addresses only.
 */
function expectClean(answer: Answer): void {
  expectNoKey(answer);
  expect(answer.text).not.toContain(sshd.base);
}

async function boxStatus(): Promise<Record<string, unknown> | undefined> {
  const answer = await call(api, 'GET', '/v1/hosts', { token: api.admin });
  expect(answer.status).toBe(200);
  expectClean(answer);
  return answer.json<{ slug: string; status: Record<string, unknown> }[]>().find((host) => host.slug === 'box')?.status;
}

describe('a machine host key over HTTP', () => {
  test('unapproved → fs_permission with the presented key → a person approves it → it lists; an agent cannot approve', async () => {
    const added = await call(api, 'POST', '/v1/hosts', {
      token: api.admin,
      body: { network: 'home', slug: 'box', kind: 'machine', config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, stateDir: `${sshd.base}/runs`, reconnectMs: 100 } },
    });
    expect(added.status).toBe(201);

    // Not approved: the host probes as offline with fs_permission, and a live listing is refused.
    await vi.waitFor(async () => expect(await boxStatus()).toMatchObject({ state: 'offline', reason: 'fs_permission', code: 'permission_denied', runtimeActive: true }), { timeout: 10_000 });
    const refused = await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/box/')}`, { token: api.admin });
    expect(refused.status).toBe(503);
    expect(refused.json()).toMatchObject({ error: { code: 'unavailable', details: { host: 'box', reason: 'fs_permission' } } });
    expectClean(refused);

    const shown = await call(api, 'GET', '/v1/hosts/home/box/host-key', { token: api.admin });
    expect(shown.status).toBe(200);
    expect(shown.json()).toEqual({ fingerprint: sshd.fingerprint, canApprove: true });
    // The agent with hosts.manage sees the key but is told it may not approve it.
    const agentShown = await call(api, 'GET', '/v1/hosts/home/box/host-key', { token: agentWithHosts });
    expect(agentShown.json()).toEqual({ fingerprint: sshd.fingerprint, canApprove: false });

    // An agent may not approve, not even with hosts.manage; a token without the feature neither.
    const refusals: [string, Record<string, unknown>][] = [
      [agentWithHosts, { reason: 'agent_cannot_act' }],
      [api.agent, { missingFeatures: [FEATURES.hostsManage] }],
      [api.reader, { missingFeatures: [FEATURES.hostsManage] }],
    ];
    for (const [token, details] of refusals) {
      const denied = await call(api, 'POST', '/v1/hosts/home/box/host-key', { token, body: { fingerprint: sshd.fingerprint } });
      expect(denied.status).toBe(403);
      expect(denied.json()).toMatchObject({ error: { code: 'permission_denied', details } });
    }
    const stillUnpinned = await call(api, 'GET', '/v1/hosts/home/box', { token: api.admin });
    expect(stillUnpinned.json().settings.config).not.toHaveProperty('hostKey');

    // A key the machine does not present is not pinned, and the answer names the one it does.
    const wrong = await call(api, 'POST', '/v1/hosts/home/box/host-key', { token: api.admin, body: { fingerprint: `SHA256:${'A'.repeat(43)}` } });
    expect(wrong.status).toBe(412);
    expect(wrong.json()).toMatchObject({ error: { code: 'precondition_failed', details: { presented: sshd.fingerprint } } });

    const approved = await call(api, 'POST', '/v1/hosts/home/box/host-key', { token: api.admin, body: { fingerprint: sshd.fingerprint } });
    expect(approved.status).toBe(200);
    expectNoKey(approved);
    expect((await call(api, 'GET', '/v1/hosts/home/box', { token: api.admin })).json().settings.config).toMatchObject({ hostKey: sshd.fingerprint });

    await vi.waitFor(async () => expect(await boxStatus()).toMatchObject({ state: 'online' }), { timeout: 10_000 });
    const listed = await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/box/')}`, { token: api.admin });
    expect(listed.status).toBe(200);
    expect(listed.json().entries.map((entry: { name: string }) => entry.name)).toEqual(['hello.txt']);
    expectClean(listed);
  });
});
