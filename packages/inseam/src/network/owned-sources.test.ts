/**
 * User- and agent-owned sources through the real loader, store and surfaces: a declared source
 * owned per user or agent is attached by each owner as their own clone under the re-qualified
 * slug `{source}+{user|agent}.{owner}`, attributed to its package, with a folder of its own for a
 * rooted local source; only its owner creates it (no one may create one "for" another, so no
 * one's credential is resolved for a config they did not choose); only its owner's tokens list,
 * read or search it on /v1 and MCP (an agent of ann naming bob's slug is refused: the
 * confused deputy); the package's credential resolver gets the owner from the platform, never
 * from the connector; and the runtime-stack block names the owner.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { deploymentScope, projectScope, userScope, agentScope } from '../credentials/index.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { FsService } from '../fs/index.js';
import { call, q, startApi, type Api } from '../http/__fixtures__/api.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from '../mcp/__fixtures__/mcp-fixture.js';
import { openTestPlatform, removeDir, SEED_PACKAGE, tempDir } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { cli } from '../cli/commands/__fixtures__/cli.js';
import { canonicalSlug, ownedSlug } from './owned-slug.js';

const OWNED_PACKAGE = fileURLToPath(new URL('./__fixtures__/owned-package', import.meta.url));
const VAULT_TOKEN = { id: 'vault-token', label: 'Vault token' };
const PACKAGES = [
  { folder: SEED_PACKAGE, trust: 'trusted' as const },
  { folder: OWNED_PACKAGE, trust: 'trusted' as const },
];

describe('the re-qualified slug', () => {
  it('is {source}+{user|agent}.{owner}, hashed for an owner id that is not a slug word, and maps back to the canonical slug', () => {
    expect(ownedSlug('scratch', 'user', 'bob')).toBe('scratch+user.bob');
    expect(ownedSlug('scratch', 'agent', 'agent-7')).toBe('scratch+agent.agent-7');
    expect(ownedSlug('scratch', 'project', null)).toBe('scratch');
    const odd = ownedSlug('scratch', 'user', 'Bob@example.org');
    expect(odd).toMatch(/^scratch\+user\.0[0-9a-f]{16}$/);
    // Two ids that would fold to one spelling stay two slugs.
    expect(ownedSlug('scratch', 'user', 'bob@example.org')).not.toBe(odd);
    expect(ownedSlug('scratch', 'user', 'x'.repeat(60))).toMatch(/^scratch\+user\.0[0-9a-f]{16}$/);
    expect(canonicalSlug({ slug: odd, ownership: 'user', ownerId: 'Bob@example.org' })).toBe('scratch');
    expect(canonicalSlug({ slug: 'scratch+user.bob', ownership: 'user', ownerId: 'ann' })).toBe('scratch+user.bob');
    expect(() => ownedSlug('s'.repeat(60), 'user', 'bob')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('attaching an owned source (NetworkService on a real platform)', () => {
  let dataDir: string;
  let platform: Platform;

  beforeAll(async () => {
    dataDir = await tempDir('owned');
    platform = await openTestPlatform(dataDir, { packages: PACKAGES });
    await platform.networks.init('home');
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
    await removeDir(dataDir);
  });

  it("gives each owner their own clone, re-qualified, attributed, in a folder of its own, and says who has one", async () => {
    const bob = await platform.networks.addDeclared('home', 'test.seeds', 'scratch', { adder: { userId: 'bob', agentId: null } });
    expect(bob).toMatchObject({ slug: 'scratch+user.bob', address: 'inseam://home/scratch+user.bob/', ownership: 'user', ownerId: 'bob', origin: 'test.seeds', config: { root: 'data/scratch/user.bob' } });
    const ann = await platform.networks.addDeclared('home', 'test.seeds', 'scratch', { adder: { userId: 'ann', agentId: null } });
    expect(ann).toMatchObject({ slug: 'scratch+user.ann', ownerId: 'ann', origin: 'test.seeds', config: { root: 'data/scratch/user.ann' } });
    const agent = await platform.networks.addDeclared('home', 'test.seeds', 'scratch', { ownership: 'agent', adder: { userId: 'ann', agentId: 'helper' } });
    expect(agent).toMatchObject({ slug: 'scratch+agent.helper', ownership: 'agent', ownerId: 'helper', origin: 'test.seeds' });
    // The same owner attaching again is the slug taken.
    await expect(platform.networks.addDeclared('home', 'test.seeds', 'scratch', { adder: { userId: 'bob', agentId: null } })).rejects.toMatchObject({ code: 'already_exists' });

    const scratchFor = async (adder: { userId: string; agentId: string | null }) =>
      (await platform.networks.discoverable('home', adder)).find((offer) => offer.source === 'scratch');
    expect(await scratchFor({ userId: 'bob', agentId: null })).toMatchObject({ ownership: 'user', added: true });
    expect(await scratchFor({ userId: 'carol', agentId: null })).toMatchObject({ ownership: 'user', added: false });
  });

  it('lets no one create an owned host for another owner', async () => {
    const adders = [
      // An agent of ann asking for a user's clone (bob's, or its own person's).
      [{ userId: 'ann', agentId: 'helper' }, { ownerId: 'bob' }],
      [{ userId: 'ann', agentId: 'helper' }, {}],
      // A person naming another person.
      [{ userId: 'ann', agentId: null }, { ownerId: 'bob' }],
      // A person asking for an agent's.
      [{ userId: 'ann', agentId: null }, { ownership: 'agent' as const }],
    ] as const;
    for (const [adder, extra] of adders) {
      await expect(platform.networks.addDeclared('home', 'test.seeds', 'scratch', { ...extra, adder })).rejects.toMatchObject({ code: 'permission_denied' });
    }
    // Hand-added hosts of a kind that allows user ownership are held to the same rule.
    await expect(
      platform.networks.addHost({ network: 'home', slug: 'mine', kind: 'local', config: { root: 'data/mine' }, ownership: 'user', ownerId: 'bob', adder: { userId: 'ann', agentId: null } }),
    ).rejects.toMatchObject({ code: 'permission_denied' });
    const own = await platform.networks.addHost({ network: 'home', slug: 'mine', kind: 'local', config: { root: 'data/mine' }, ownership: 'user', adder: { userId: 'ann', agentId: null } });
    expect(own).toMatchObject({ ownership: 'user', ownerId: 'ann' });
    expect((await platform.networks.listHosts('home')).map((host) => host.slug)).not.toContain('scratch+user.carol');
  });

  it("resolves the package credential at the owner's scope for the owner's clone, without the connector naming anyone", async () => {
    await platform.packageCredentials.set(deploymentScope(), 'test.owned', VAULT_TOKEN, { value: 'deployment-secret' });
    await platform.packageCredentials.set(userScope('home', 'bob'), 'test.owned', VAULT_TOKEN, { value: 'bob-secret' });
    await platform.packageCredentials.set(userScope('home', 'ann'), 'test.owned', VAULT_TOKEN, { value: 'ann-secret' });
    await platform.packageCredentials.set(agentScope('home', 'helper'), 'test.owned', VAULT_TOKEN, { value: 'helper-secret' });
    await platform.packageCredentials.set(projectScope('home'), 'test.owned', VAULT_TOKEN, { value: 'network-secret' });
    const fs = new FsService(platform);
    const bobHost = await platform.networks.addDeclared('home', 'test.owned', 'vault', { adder: { userId: 'bob', agentId: null } });
    const annHost = await platform.networks.addDeclared('home', 'test.owned', 'vault', { adder: { userId: 'ann', agentId: null } });
    const agentHost = await platform.networks.addDeclared('home', 'test.owned', 'vault', { ownership: 'agent', adder: { userId: 'ann', agentId: 'helper' } });
    const shared = await platform.networks.addHost({ network: 'home', slug: 'team-vault', kind: 'vault', ownership: 'project' });
    expect([bobHost.slug, annHost.slug, agentHost.slug]).toEqual(['vault+user.bob', 'vault+user.ann', 'vault+agent.helper']);
    const text = async (caller: ReturnType<typeof callerOf>, host: string) => (await fs.read(caller, `inseam://home/${host}/token.txt`)).content;
    expect(await text(callerOf('bob'), 'vault+user.bob')).toBe('bob-secret');
    expect(await text(callerOf('ann'), 'vault+user.ann')).toBe('ann-secret');
    expect(await text(callerOf('ann', { agentId: 'helper' }), 'vault+agent.helper')).toBe('helper-secret');
    // A project host's connector resolves as it asked (no network, no owner): the deployment's.
    expect(await text(callerOf('ann'), shared.slug)).toBe('deployment-secret');
    // Reading the owner's clone as someone else never runs it.
    await expect(text(callerOf('ann', { agentId: 'helper' }), 'vault+user.bob')).rejects.toMatchObject({ code: 'permission_denied' });
  });
});

describe('an owned source on /v1', () => {
  let api: Api;
  let bobManager: string;
  let annAgentManager: string;

  beforeAll(async () => {
    api = await startApi({ packages: PACKAGES });
    bobManager = (await api.tokens.create({ name: 'bob-hosts', userId: 'bob', network: 'home', features: ['hosts.manage'] })).token;
    // An agent acting for ann that may add hosts: the confused deputy, if it could add one "for" bob.
    annAgentManager = (await api.tokens.create({ name: 'ann-agent-hosts', userId: 'ann', agentId: 'helper', network: 'home', features: ['hosts.manage'] })).token;
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  it("attaches the caller's own clone, and only its owner may list, read or search it", async () => {
    const attached = await call(api, 'POST', '/v1/hosts', { token: bobManager, body: { slug: 'scratch', from: 'test.seeds' } });
    expect(attached.status, attached.text).toBe(201);
    expect(attached.json()).toMatchObject({ slug: 'scratch+user.bob', ownership: 'user', ownerId: 'bob', origin: 'test.seeds' });
    const folder = join(api.dataDir, 'networks', 'home', 'data', 'scratch', 'user.bob');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'plan.md'), 'bob keeps a quarterly zanzibar plan here');
    expect((await (await api.platform.sync({ network: 'home', host: 'scratch+user.bob' })).result).state).toBe('completed');

    const address = 'inseam://home/scratch+user.bob/plan.md';
    // The owner.
    expect((await call(api, 'GET', '/v1/hosts', { token: bobManager })).json<{ slug: string; ownerId: string | null }[]>()).toContainEqual(expect.objectContaining({ slug: 'scratch+user.bob', ownerId: 'bob' }));
    expect((await call(api, 'GET', `/v1/fs/read?address=${q(address)}`, { token: api.reader })).text).toContain('zanzibar');
    expect((await call(api, 'GET', `/v1/search?q=zanzibar&mode=keyword`, { token: api.reader })).json<{ hits: { address: string }[] }>().hits.map((hit) => hit.address)).toEqual([address]);

    // Another user (ann, admin) and ann's agent: not listed, not readable, not found.
    for (const token of [api.admin, api.agent, annAgentManager]) {
      expect((await call(api, 'GET', '/v1/hosts', { token })).json<{ slug: string }[]>().map((host) => host.slug)).not.toContain('scratch+user.bob');
      for (const path of [`/v1/fs/read?address=${q(address)}`, `/v1/fs/list?address=${q('inseam://home/scratch+user.bob/')}`, `/v1/fs/stat?address=${q(address)}`]) {
        const refused = await call(api, 'GET', path, { token });
        expect(refused.status, path).toBe(403);
        expect(refused.json()).toMatchObject({ error: { code: 'permission_denied' } });
        expect(refused.text).not.toContain('zanzibar');
      }
      expect((await call(api, 'GET', `/v1/search?q=zanzibar&mode=keyword`, { token })).json<{ hits: unknown[] }>().hits).toEqual([]);
      expect((await call(api, 'GET', `/v1/search?q=zanzibar&mode=keyword&host=${q('scratch+user.bob')}`, { token })).text).not.toContain('zanzibar');
    }
  });

  it("refuses a token adding an owned host for someone else: an agent of ann naming bob, ann naming bob", async () => {
    const before = (await api.platform.networks.listHosts('home')).map((host) => host.slug);
    for (const [token, body] of [
      [annAgentManager, { slug: 'scratch', from: 'test.seeds', ownerId: 'bob' }],
      [annAgentManager, { slug: 'scratch', from: 'test.seeds' }],
      [api.admin, { slug: 'scratch', from: 'test.seeds', ownerId: 'bob' }],
      [api.admin, { slug: 'mine', kind: 'local', config: { root: 'data/mine' }, ownership: 'user', ownerId: 'bob' }],
    ] as const) {
      const refused = await call(api, 'POST', '/v1/hosts', { token, body });
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'permission_denied', details: { reason: 'not_owner' } } });
    }
    expect((await api.platform.networks.listHosts('home')).map((host) => host.slug)).toEqual(before);
    const offers = (await call(api, 'GET', '/v1/discoverable-sources', { token: bobManager })).json<{ source: string; added: boolean }[]>();
    expect(offers.find((offer) => offer.source === 'scratch')).toMatchObject({ added: true });
  });
});

describe('an owned source on MCP', () => {
  let fixture: McpFixture;
  let bob: Client;
  let annAgent: Client;

  beforeAll(async () => {
    fixture = await openMcpFixture({ packages: [{ folder: OWNED_PACKAGE, trust: 'trusted' }] });
    await fixture.platform.packageCredentials.set(userScope('home', 'bob'), 'test.owned', VAULT_TOKEN, { value: 'bob-secret' });
    await fixture.platform.networks.addDeclared('home', 'test.owned', 'vault', { adder: { userId: 'bob', agentId: null } });
    fixture.tokens.set('bob-token', callerOf('bob'));
    fixture.tokens.set('agent-token', callerOf('ann', { agentId: 'helper' }));
    bob = await fixture.client('bob-token');
    annAgent = await fixture.client('agent-token');
  }, 60_000);

  afterAll(async () => {
    await fixture?.close();
  });

  it("serves the owner's clone to its owner, lists it in the runtime stack with the owner, and refuses ann's agent", async () => {
    const address = 'inseam://home/vault+user.bob/token.txt';
    const read = (await bob.callTool({ name: 'read', arguments: { address } })) as CallToolResult;
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(textOf(read)).toContain('bob-secret');
    const stack = await bob.readResource({ uri: 'inseam:runtime-stack' });
    const block = (stack.contents[0] as { text: string }).text;
    expect(block).toContain('- vault+user.bob "My vault" inseam://home/vault+user.bob/');
    expect(block).toMatch(/vault\+user\.bob .*\[from test\.owned\] \[owned by user bob\]/);

    const hosts = structured((await annAgent.callTool({ name: 'hosts', arguments: {} }))) as { hosts: { slug: string }[] };
    expect(hosts.hosts.map((host) => host.slug)).not.toContain('vault+user.bob');
    for (const [name, args] of [
      ['read', { address }],
      ['list', { address: 'inseam://home/vault+user.bob/' }],
    ] as const) {
      const refused = (await annAgent.callTool({ name, arguments: args })) as CallToolResult;
      expect(errorCode(refused), name).toBe('permission_denied');
      expect(JSON.stringify(refused)).not.toContain('bob-secret');
    }
    const agentStack = ((await annAgent.readResource({ uri: 'inseam:runtime-stack' })).contents[0] as { text: string }).text;
    expect(agentStack).not.toContain('vault+user.bob');
  });
});

describe('an owned source on the CLI', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await tempDir('owned-cli');
    expect((await cli(dataDir, ['network', 'init', 'home'])).code).toBe(0);
    const installed = await cli(dataDir, ['package', 'add', OWNED_PACKAGE, '--trust', 'trusted']);
    expect(installed.code, installed.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await removeDir(dataDir);
  });

  it('attaches a clone for the named owner under the re-qualified slug, and shows its owner', async () => {
    const added = await cli(dataDir, ['host', 'add', 'home/vault', '--from', 'test.owned', '--owner', 'bob', '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ slug: 'vault+user.bob', ownership: 'user', ownerId: 'bob', origin: 'test.owned' });
    const shown = await cli(dataDir, ['host', 'show', 'home/vault+user.bob']);
    expect(shown.stdout).toMatch(/ownership:\s+user bob/);
    // Without an owner there is no one to attach it for.
    const ownerless = await cli(dataDir, ['host', 'add', 'home/vault', '--from', 'test.owned']);
    expect(ownerless.code).not.toBe(0);
    expect(ownerless.stderr).toContain("needs the user's id");
  });
});
