/**
 * One authorization table for every surface (platform/authorization.ts), walked end to end: the
 * real server on loopback with `/v1` and `/mcp`, the route table read from the server's own
 * OpenAPI document (built from the same route objects), the tool list read with the MCP SDK's
 * client over the real `/mcp` endpoint. For every route and every tool, with a token lacking each
 * feature in turn, and with agent tokens with and without grants, the call is refused by the
 * table exactly where its action's rule says, and let through otherwise. A route or tool whose
 * action is not in the table, or a table entry nothing uses, fails the walk.
 *
 * Also the reported attack: a token without `connectors.trial` ran `trial_connector` over MCP
 * while HTTP answered 403, and the trials it left could not be deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ACTION_META } from '../mcp/index.js';
import { ACTIONS, ALL_FEATURES, FEATURES, refusal, ruleOf, type ActionRule } from '../platform/index.js';
import { call, startApi, type Answer, type Api } from './__fixtures__/api.js';
import { API_ROUTES } from './server.js';

let api: Api;
const clients: Client[] = [];

beforeAll(async () => {
  api = await startApi({ mcp: {} });
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await api?.close();
});

interface Operation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly action: string;
  readonly hasBody: boolean;
}

/** Every operation of the served document: the route table as the server registered it. */
async function operations(): Promise<Operation[]> {
  const document = (await call(api, 'GET', '/v1/openapi.json')).json();
  return Object.entries(document.paths as Record<string, Record<string, { 'x-inseam-action': string; requestBody?: unknown }>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase() as Operation['method'],
      path,
      action: operation['x-inseam-action'],
      hasBody: operation.requestBody !== undefined,
    })),
  );
}

/** The operation's path with placeholders that name nothing that exists (so nothing allowed changes anything). */
function concrete(path: string): string {
  return path
    .replace('{network}', 'home')
    .replace('{host}', 'nosuch')
    .replace('{sha}', 'a'.repeat(64))
    .replace('{kind}', 'nosuch')
    .replace('{key}', 'k'.repeat(43))
    .replace('{id}', 'nosuch');
}

async function request(operation: Operation, token: string | undefined): Promise<Answer> {
  return call(api, operation.method, concrete(operation.path), { ...(token === undefined ? {} : { token }), ...(operation.hasBody ? { body: {} } : {}) });
}

/** The table's own refusal, told apart from any later answer (validation, not_found, …). */
function refusedByTable(answer: Answer): { readonly missing: readonly string[]; readonly reason: string | undefined } | null {
  if (answer.status !== 403 || !String(answer.headers['content-type']).startsWith('application/json')) return null;
  const details = answer.json().error?.details ?? {};
  if (Array.isArray(details.missingFeatures)) return { missing: details.missingFeatures, reason: undefined };
  if (details.reason === 'agent_cannot_act' || details.reason === 'no_grant' || details.reason === 'unknown_action') return { missing: [], reason: details.reason };
  return null;
}

function toolRefusal(result: CallToolResult): { readonly missing: readonly string[]; readonly reason: string | undefined } | null {
  const error = (result.structuredContent as { error?: { code?: string; details?: Record<string, unknown> } } | undefined)?.error;
  if (result.isError !== true || error?.code !== 'permission_denied') return null;
  const details = error.details ?? {};
  if (Array.isArray(details['missingFeatures'])) return { missing: details['missingFeatures'] as string[], reason: undefined };
  if (details['reason'] === 'agent_cannot_act' || details['reason'] === 'no_grant') return { missing: [], reason: details['reason'] };
  return null;
}

async function token(features: readonly string[], options: { readonly agentId?: string; readonly grants?: readonly string[] } = {}): Promise<string> {
  return (await api.tokens.create({ name: 'walk', userId: 'ann', features, ...(options.agentId === undefined ? {} : { agentId: options.agentId }), ...(options.grants === undefined ? {} : { grants: options.grants }) })).token;
}

async function mcpClient(secret: string): Promise<Client> {
  const client = new Client({ name: 'authorization-walk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  clients.push(client);
  return client;
}

/** The subjects the walk tries: a person lacking each feature, and agents with every feature, without and with grants. */
interface Subject {
  readonly label: string;
  readonly features: readonly string[];
  readonly agentId?: string;
  readonly grants?: readonly string[];
}

const SUBJECTS: readonly Subject[] = [
  ...ALL_FEATURES.map((missing) => ({ label: `a person without ${missing}`, features: ALL_FEATURES.filter((feature) => feature !== missing) })),
  { label: 'an agent with every feature and no grant', features: ALL_FEATURES, agentId: 'walker' },
  { label: 'an agent with every feature and every grant', features: ALL_FEATURES, agentId: 'walker', grants: ['write,delete,exec:inseam://home/files/docs'] },
  // A move needs both: neither alone may be offered it.
  { label: 'an agent with every feature and a write grant only', features: ALL_FEATURES, agentId: 'walker', grants: ['write:inseam://home/files/docs'] },
  { label: 'an agent with every feature and a delete grant only', features: ALL_FEATURES, agentId: 'walker', grants: ['delete:inseam://home/files/docs'] },
];

/** What the table says of a subject: refused (and why) or not. */
function expected(rule: ActionRule, subject: Subject): string | null {
  const refused = refusal(rule, { features: new Set(subject.features), agentId: subject.agentId ?? null, grants: (subject.grants ?? []).flatMap((text) => text.split(':')[0]!.split(',').map((right) => ({ right: right as 'write' }))) }, 'x');
  if (refused === null) return null;
  return JSON.stringify(refused.details['missingFeatures'] ?? refused.details['reason']);
}

describe('the authorization table', () => {
  it('names an action of the table for every route the server registered, and every action is used', async () => {
    const served = await operations();
    expect(served.length).toBe(API_ROUTES.length + 1);
    for (const spec of API_ROUTES) expect(served.some((operation) => operation.action === spec.action && operation.method === spec.method), spec.operationId).toBe(true);
    for (const operation of served) expect(ruleOf(operation.action), `${operation.method} ${operation.path}`).toBeDefined();
    const client = await mcpClient(await token(ALL_FEATURES));
    const tools = (await client.listTools()).tools;
    for (const tool of tools) expect(ruleOf(String(tool._meta?.[ACTION_META])), tool.name).toBeDefined();
    // hosts.settings is asked inside getHost: what of a host is shown, not whether it may be called.
    const used = new Set([...served.map((operation) => operation.action), ...tools.map((tool) => String(tool._meta?.[ACTION_META])), 'hosts.settings']);
    expect([...used].sort()).toEqual(Object.keys(ACTIONS).sort());
    const manager = await call(api, 'GET', '/v1/hosts/home/files', { token: await token([FEATURES.hostsManage]) });
    expect(manager.json().settings).toMatchObject({ slug: 'files', config: { root: api.folder } });
    const reader = await call(api, 'GET', '/v1/hosts/home/files', { token: await token(ALL_FEATURES.filter((feature) => feature !== FEATURES.hostsManage)) });
    expect(reader.json()).toMatchObject({ host: { slug: 'files' }, settings: null });
  });

  it('refuses a name the table does not list, for everyone', () => {
    expect(refusal(ruleOf('fs.format'), { features: new Set(ALL_FEATURES) }, 'This call')?.details).toMatchObject({ reason: 'unknown_action' });
    expect(ruleOf('toString')).toBeUndefined();
  });

  it('refuses every HTTP route exactly where its rule says, and lets it through otherwise', async () => {
    const served = await operations();
    for (const subject of SUBJECTS) {
      const secret = await token(subject.features, subject);
      for (const operation of served) {
        const rule = ruleOf(operation.action)!;
        const answer = await request(operation, secret);
        const refused = refusedByTable(answer);
        const why = expected(rule, subject);
        const where = `${subject.label}: ${operation.method} ${operation.path} (${operation.action}) answered ${answer.status} ${answer.text.slice(0, 200)}`;
        if (why === null) expect(refused, where).toBeNull();
        else expect(JSON.stringify(refused!.reason ?? refused!.missing), where).toBe(why);
      }
    }
  }, 120_000);

  it('answers public routes without a token and refuses every other one without a token', async () => {
    for (const operation of await operations()) {
      const answer = await request(operation, undefined);
      if (ruleOf(operation.action)!.public === true) expect(answer.status, operation.path).not.toBe(401);
      else expect(answer.status, `${operation.method} ${operation.path}`).toBe(401);
    }
  });

  it('lists and refuses every MCP tool exactly where its rule says, over the real /mcp endpoint', async () => {
    const all = (await (await mcpClient(await token(ALL_FEATURES))).listTools()).tools;
    expect(all.length).toBeGreaterThanOrEqual(20);
    const actionOf = (tool: Tool): ActionRule => ruleOf(String(tool._meta?.[ACTION_META]))!;
    for (const subject of SUBJECTS) {
      const client = await mcpClient(await token(subject.features, subject));
      const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
      for (const tool of all) {
        const why = expected(actionOf(tool), subject);
        expect(listed.has(tool.name), `${subject.label}: ${tool.name} listed`).toBe(why === null);
        // Empty arguments: a tool the table lets through fails its schema (or reads), never runs a change.
        const result = (await client.callTool({ name: tool.name, arguments: {} })) as CallToolResult;
        const refused = toolRefusal(result);
        const where = `${subject.label}: ${tool.name} answered ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 200)}`;
        if (why === null) expect(refused, where).toBeNull();
        else expect(JSON.stringify(refused?.reason ?? refused?.missing), where).toBe(why);
      }
    }
  }, 120_000);

  it('gives a tool and the route of the same action the same rule', async () => {
    const tools = (await (await mcpClient(await token(ALL_FEATURES))).listTools()).tools;
    const byName = new Map(tools.map((tool) => [tool.name, String(tool._meta?.[ACTION_META])]));
    const byOperation = new Map(API_ROUTES.map((spec) => [spec.operationId, spec.action]));
    for (const [tool, operationId] of [
      ['trial_connector', 'trialConnector'],
      ['install_connector', 'installConnector'],
      ['delete_trial', 'deleteTrial'],
      ['write', 'writeObject'],
      ['delete', 'deleteObject'],
      ['move', 'moveObject'],
      ['copy', 'copyObject'],
      ['mkdir', 'makeFolder'],
      ['exec', 'exec'],
      ['run_start', 'startRun'],
      ['hosts', 'listHosts'],
    ] as const) {
      expect(byName.get(tool), tool).toBe(byOperation.get(operationId));
    }
  });
});

describe('the reported attack: trial_connector without connectors.trial', () => {
  const broken = 'export function createConnector() { return {}; }';

  it('is refused over MCP as over HTTP, not listed, and records nothing', async () => {
    const secret = await token([FEATURES.hostsManage, FEATURES.execMachine], { agentId: 'helper' });
    const client = await mcpClient(secret);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('trial_connector');
    const result = (await client.callTool({ name: 'trial_connector', arguments: { module: broken, config: {} } })) as CallToolResult;
    expect(toolRefusal(result)).toEqual({ missing: ['connectors.trial'], reason: undefined });
    const http = await call(api, 'POST', '/v1/connectors', { token: secret, body: { module: broken } });
    expect(http.status).toBe(403);
    expect(http.json().error.details.missingFeatures).toEqual(['connectors.trial']);
    expect((await call(api, 'GET', '/v1/connectors', { token: secret })).json()).toEqual([]);
  });

  it('leaves trials that whoever may run trials can delete, over HTTP and MCP; an approved one stays', async () => {
    const trialler = await token([FEATURES.connectorsTrial], { agentId: 'helper' });
    const client = await mcpClient(trialler);
    const first = (await client.callTool({ name: 'trial_connector', arguments: { module: broken, config: {} } }, undefined, { timeout: 60_000 })) as CallToolResult;
    const second = (await client.callTool({ name: 'trial_connector', arguments: { module: broken, config: {} } }, undefined, { timeout: 60_000 })) as CallToolResult;
    const [one, two] = [first, second].map((result) => (result.structuredContent as { trialId: string }).trialId);
    expect(await api.platform.store.trials.get(one!)).toMatchObject({ passed: false });
    const outsider = await token([FEATURES.hostsManage]);
    expect((await call(api, 'DELETE', `/v1/trials/${one}`, { token: outsider })).status).toBe(403);
    expect((await call(api, 'DELETE', `/v1/trials/${one}`, { token: trialler })).status).toBe(204);
    expect(await api.platform.store.trials.get(one!)).toBeNull();
    expect((await call(api, 'GET', `/v1/trials/${one}`, { token: trialler })).status).toBe(404);
    expect((await call(api, 'DELETE', `/v1/trials/${one}`, { token: trialler })).status).toBe(404);
    const removed = (await client.callTool({ name: 'delete_trial', arguments: { trialId: two } })) as CallToolResult;
    expect(removed.isError, JSON.stringify(removed.content)).toBeFalsy();
    expect(await api.platform.store.trials.get(two!)).toBeNull();
    const sha = (first.structuredContent as { sha: string }).sha;
    expect((await call(api, 'GET', `/v1/connectors/${sha}`, { token: trialler })).json().trials).toEqual([]);
    // An approved trial is the record of a person's approval: it is not deleted.
    const approved = await api.platform.store.trials.record({ id: 'trial-approved', network: 'home', kind: 'k', moduleHash: sha, passed: true, report: {}, origins: [] });
    await api.platform.store.trials.approve(approved.id, 'ann');
    const kept = await call(api, 'DELETE', `/v1/trials/${approved.id}`, { token: trialler });
    expect(kept.status).toBe(412);
    expect(kept.json().error.details.reason).toBe('approved');
    expect(await api.platform.store.trials.get(approved.id)).toMatchObject({ approvedBy: 'ann' });
  }, 120_000);
});
