/**
 * POST /v1/fs/move, /v1/fs/copy and /v1/fs/mkdir over real HTTP against a real folder host: what
 * each does on disk and answers, the envelope of each refusal, bodies of the wrong type refused
 * rather than coerced (nothing changed), another origin's page refused, and an agent refused by
 * the authorization table without the grants the action needs.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, FILES, q, startApi, type Answer, type Api } from './__fixtures__/api.js';

let api: Api;

beforeAll(async () => {
  api = await startApi();
});

afterAll(async () => {
  await api?.close();
});

const post = (path: string, body: unknown, token = api.admin, headers: Record<string, string> = {}): Promise<Answer> => call(api, 'POST', `/v1/fs/${path}`, { token, body, headers });

async function exists(path: string): Promise<boolean> {
  return stat(join(api.folder, path)).then(
    () => true,
    () => false,
  );
}

function error(answer: Answer, status: number): Record<string, unknown> {
  expect(answer.status, answer.text).toBe(status);
  const body = answer.json();
  expect(Object.keys(body)).toEqual(['error']);
  return body.error;
}

describe('move', () => {
  it('renames a file: the old address is gone and the new one is there when it answers', async () => {
    const answer = await post('move', { from: 'files://notes/a.txt', to: 'files://notes/renamed.txt' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json()).toEqual({ from: 'inseam://home/files/notes/a.txt', to: 'inseam://home/files/notes/renamed.txt', type: 'file', files: 1, bytes: Buffer.byteLength(FILES['notes/a.txt']) });
    expect(await readFile(join(api.folder, 'notes/renamed.txt'), 'utf8')).toBe(FILES['notes/a.txt']);
    expect(error(await call(api, 'GET', `/v1/fs/stat?address=${q('files://notes/a.txt')}`, { token: api.admin }), 404)).toMatchObject({ code: 'not_found' });
  });

  it('moves into a folder that is there, and answers each refusal with the envelope', async () => {
    const into = await post('move', { from: 'files://notes/renamed.txt', to: 'files://docs' });
    expect(into.json()).toMatchObject({ to: 'inseam://home/files/docs/renamed.txt' });
    expect(error(await post('move', { from: 'files://notes/missing.txt', to: 'files://x.txt' }), 404)).toMatchObject({ code: 'not_found' });
    expect(error(await post('move', { from: 'files://docs/private/salary.txt', to: 'files://salary.txt' }), 403)).toMatchObject({ code: 'permission_denied', details: { right: 'delete' } });
    expect(error(await post('move', { from: 'files://docs', to: 'files://docs/inner' }), 400)).toMatchObject({ code: 'invalid_argument', details: { argument: 'to' } });
    expect(error(await post('move', { from: 'files://', to: 'files://elsewhere' }), 400)).toMatchObject({ code: 'invalid_argument', details: { argument: 'from' } });
    expect(error(await post('move', { from: 'files://docs/renamed.txt', to: 'files://docs/plan.md', createOnly: true }), 409)).toMatchObject({ code: 'already_exists' });
    expect(error(await post('move', { from: 'nosuch://a', to: 'files://a' }), 404)).toMatchObject({ code: 'not_found' });
    expect(await readFile(join(api.folder, 'docs/plan.md'), 'utf8')).toBe(FILES['docs/plan.md']);
    expect(await exists('docs/private/salary.txt')).toBe(true);
  });
});

describe('copy and mkdir', () => {
  it('copies a file, refuses a folder without recursive, and copies it with recursive', async () => {
    const file = await post('copy', { from: 'files://docs/plan.md', to: 'files://copies/plan.md' });
    expect(file.status, file.text).toBe(200);
    expect(file.json()).toMatchObject({ to: 'inseam://home/files/copies/plan.md', type: 'file', files: 1 });
    expect(await readFile(join(api.folder, 'copies/plan.md'), 'utf8')).toBe(FILES['docs/plan.md']);
    expect(error(await post('copy', { from: 'files://copies', to: 'files://copies2' }), 409)).toMatchObject({ code: 'is_a_directory', details: { argument: 'recursive' } });
    const folder = await post('copy', { from: 'files://copies', to: 'files://copies2', recursive: true });
    expect(folder.json()).toMatchObject({ type: 'directory', files: 1 });
    expect(await exists('copies2/plan.md')).toBe(true);
    expect(error(await post('copy', { from: 'files://copies/plan.md', to: 'files://readonly/plan.md' }), 403)).toMatchObject({ code: 'permission_denied', details: { right: 'write' } });
  });

  it('makes a folder (201), answers one that is there (200), and refuses a file there (409)', async () => {
    const made = await post('mkdir', { address: 'files://made/deep/er' });
    expect(made.status, made.text).toBe(201);
    expect(made.json()).toMatchObject({ address: 'inseam://home/files/made/deep/er', type: 'directory', created: true, implied: false });
    expect((await stat(join(api.folder, 'made/deep/er'))).isDirectory()).toBe(true);
    const again = await post('mkdir', { address: 'files://made/deep' });
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({ created: false });
    expect(error(await post('mkdir', { address: 'files://docs/plan.md' }), 409)).toMatchObject({ code: 'already_exists' });
    expect(error(await post('mkdir', { address: 'files://docs/plan.md/sub' }), 409)).toMatchObject({ code: 'not_a_directory' });
    expect(error(await post('mkdir', { address: 'files://readonly/sub' }), 403)).toMatchObject({ code: 'permission_denied' });
  });
});

describe('bodies are validated strictly', () => {
  it('refuses wrong types, missing fields and unknown fields, not coerced, and changes nothing', async () => {
    const from = 'files://docs/plan.md';
    const cases: [string, unknown, string][] = [
      ['move', { from, to: 'files://t1.md', createOnly: 'true' }, 'body.createOnly'],
      ['move', { from: 123, to: 'files://t1.md' }, 'body.from'],
      ['move', { from, to: ['files://t1.md'] }, 'body.to'],
      ['move', { from }, 'body.to'],
      ['move', { from, to: 'files://t1.md', recursive: true }, 'body.recursive'],
      ['copy', { from, to: 'files://t1.md', recursive: 1 }, 'body.recursive'],
      ['copy', { from, to: 'files://t1.md', createOnly: 0 }, 'body.createOnly'],
      ['copy', { from: '', to: 'files://t1.md' }, 'body.from'],
      ['mkdir', { address: ['files://t1'] }, 'body.address'],
      ['mkdir', { address: 'files://t1', recursive: true }, 'body.recursive'],
      ['mkdir', {}, 'body.address'],
    ];
    for (const [route, body, argument] of cases) {
      const refused = error(await post(route, body), 400);
      expect(refused, `${route} ${JSON.stringify(body)}`).toMatchObject({ code: 'invalid_argument', details: { argument } });
    }
    expect(error(await post('move', '{"from":"files://docs/plan.md","to":"files://t1.md","to":"files://t2.md"}', api.admin, { 'content-type': 'application/json' }), 400)).toMatchObject({
      details: { argument: 'body.to', reason: 'duplicate_key' },
    });
    expect(await exists('docs/plan.md')).toBe(true);
    for (const name of ['t1.md', 't2.md', 't1']) expect(await exists(name), name).toBe(false);
  });

  it('refuses a page of another origin, as every state-changing route does', async () => {
    const headers = { origin: 'http://evil.example' };
    for (const [route, body] of [['move', { from: 'files://docs/plan.md', to: 'files://stolen.md' }], ['copy', { from: 'files://docs/plan.md', to: 'files://stolen.md' }], ['mkdir', { address: 'files://stolen' }]] as const) {
      expect(error(await post(route, body, api.admin, headers), 403), route).toMatchObject({ code: 'permission_denied', details: { reason: 'origin_not_allowed' } });
    }
    expect(await exists('stolen.md')).toBe(false);
    expect(await exists('stolen')).toBe(false);
    expect((await post('mkdir', { address: 'files://own-origin' }, api.admin, { origin: api.url })).status).toBe(201);
  });
});

describe('agents', () => {
  it('are refused by the table without the grants each action needs', async () => {
    const body = { from: 'files://docs/plan.md', to: 'files://docs/agent.md' };
    // api.agent holds an exec grant only.
    expect(error(await post('move', body, api.agent), 403)).toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'delete', rights: ['delete', 'write'] } });
    expect(error(await post('copy', body, api.agent), 403)).toMatchObject({ details: { reason: 'no_grant', right: 'write' } });
    expect(error(await post('mkdir', { address: 'files://docs/agent' }, api.agent), 403)).toMatchObject({ details: { reason: 'no_grant', right: 'write' } });
    const writer = (await api.tokens.create({ name: 'writer', userId: 'ann', agentId: 'writer', network: 'home', grants: ['write:inseam://home/files/docs'] })).token;
    expect(error(await post('move', body, writer), 403)).toMatchObject({ details: { reason: 'no_grant', right: 'delete' } });
    expect(await exists('docs/agent.md')).toBe(false);
    expect((await post('copy', body, writer)).status).toBe(200);
    expect(await readFile(join(api.folder, 'docs/agent.md'), 'utf8')).toBe(FILES['docs/plan.md']);
    // Where its grant does not reach, the service refuses.
    expect(error(await post('copy', { from: 'files://docs/plan.md', to: 'files://notes/agent.md' }, writer), 403)).toMatchObject({ details: { reason: 'no_grant', right: 'write' } });
    expect(await exists('docs/plan.md')).toBe(true);
  });
});
