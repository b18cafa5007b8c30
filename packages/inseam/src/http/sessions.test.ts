/**
 * Sign-in codes and web sessions over real HTTP: a code works once and for ten minutes, becomes a
 * session of its user and features, the session ends when idle, at its cap, or on sign-out, and
 * only hashes are stored. Time is the services' injected clock; the server and store are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf } from '../platform/__fixtures__/platforms.js';
import { ADMIN_FEATURES, hashToken } from './tokens.js';
import { SESSION_IDLE_MS, SESSION_MAX_MS, SIGNIN_CODE_TTL_MS, type SessionService } from './sessions.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
let now = Date.now();
let sessions: SessionService;

beforeAll(async () => {
  api = await startApi({ mcp: {}, clock: () => now });
  sessions = api.sessions;
});

afterAll(async () => {
  await api?.close();
});

async function exchange(code: string): Promise<{ status: number; body: any }> {
  const answer = await call(api, 'POST', '/v1/sessions', { body: { code } });
  return { status: answer.status, body: answer.json() };
}

describe('sign-in codes', () => {
  it('become a session of the code\'s user and features, once', async () => {
    const { code, expiresAt } = await sessions.createCode({ userId: 'ann', features: ADMIN_FEATURES });
    expect(expiresAt).toBe(now + SIGNIN_CODE_TTL_MS);
    const first = await exchange(code);
    expect(first.status).toBe(201);
    expect(first.body.token).toMatch(/^inseam_ses_[A-Za-z0-9_-]{43}$/);
    expect(first.body.session).toMatchObject({ id: expect.stringMatching(/^ses_/), userId: 'ann', features: [...ADMIN_FEATURES].sort(), revokedAt: null });
    // The session can do what the admin can: see a host's stored settings (hosts.manage).
    const host = await call(api, 'GET', '/v1/hosts/home/files', { token: first.body.token });
    expect(host.status).toBe(200);
    expect(host.json().settings).not.toBeNull();
    const again = await exchange(code);
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: 'unauthenticated', details: { reason: 'invalid_signin_code' } });
  });

  it('answer the same 401 for an unknown, a malformed, an expired and a used code', async () => {
    const expired = await sessions.createCode({ userId: 'ann', features: [] });
    now += SIGNIN_CODE_TTL_MS;
    const used = await sessions.createCode({ userId: 'ann', features: [] });
    expect((await exchange(used.code)).status).toBe(201);
    for (const code of [expired.code, used.code, 'A'.repeat(43), 'short', `${used.code}x`, api.admin]) {
      const answer = await exchange(code);
      expect(answer.status, code).toBe(401);
      expect(answer.body.error.details, code).toEqual({ reason: 'invalid_signin_code' });
    }
    expect((await call(api, 'POST', '/v1/sessions', { body: {} })).json().error.details).toEqual({ argument: 'body.code' });
    expect((await call(api, 'POST', '/v1/sessions', { body: { code: 'x', userId: 'mallory' } })).json().error.details).toEqual({ argument: 'body.userId' });
  });

  it('of two exchanges at once, let exactly one through', async () => {
    const { code } = await sessions.createCode({ userId: 'ann', features: [] });
    const answers = await Promise.all(Array.from({ length: 6 }, () => exchange(code)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401, 401, 401, 401, 401]);
  });

  it('are stored as hashes only, as are sessions', async () => {
    const { code } = await sessions.createCode({ userId: 'ann', features: [] });
    const started = (await exchange(code)).body.token as string;
    const pending = await sessions.createCode({ userId: 'ann', features: [] });
    const db = sqliteOf(api.platform);
    const text = JSON.stringify([db.prepare('SELECT * FROM signin_codes').all(), db.prepare('SELECT * FROM sessions').all()]);
    expect(text).not.toContain(started);
    expect(text).not.toContain(pending.code);
    expect(text).toContain(hashToken(started));
    expect(text).toContain(hashToken(pending.code));
  });
});

describe('sessions', () => {
  async function started(): Promise<string> {
    return (await exchange((await sessions.createCode({ userId: 'ann', features: ADMIN_FEATURES })).code)).body.token as string;
  }

  it('end after 12 hours unused, renew while used, and end 7 days after they began whatever happens', async () => {
    const idle = await started();
    now += SESSION_IDLE_MS - 1;
    expect((await call(api, 'GET', '/v1/hosts', { token: idle })).status).toBe(200);
    // That use renewed it: another 12 hours from now.
    now += SESSION_IDLE_MS - 1;
    expect((await call(api, 'GET', '/v1/hosts', { token: idle })).status).toBe(200);
    now += SESSION_IDLE_MS;
    const ended = await call(api, 'GET', '/v1/hosts', { token: idle });
    expect(ended.status).toBe(401);
    expect(ended.json().error.details).toEqual({ reason: 'session_ended' });

    const busy = await started();
    const began = now;
    while (now - began < SESSION_MAX_MS - SESSION_IDLE_MS / 2) {
      now += SESSION_IDLE_MS / 2;
      expect((await call(api, 'GET', '/v1/hosts', { token: busy })).status).toBe(200);
    }
    now = began + SESSION_MAX_MS;
    expect((await call(api, 'GET', '/v1/hosts', { token: busy })).status).toBe(401);
  });

  it('end on sign-out, and only a session can sign itself out', async () => {
    const token = await started();
    expect((await call(api, 'DELETE', '/v1/session', { token })).status).toBe(204);
    expect((await call(api, 'GET', '/v1/hosts', { token })).status).toBe(401);
    expect((await call(api, 'DELETE', '/v1/session', { token })).status).toBe(401);
    const withToken = await call(api, 'DELETE', '/v1/session', { token: api.admin });
    expect(withToken.status).toBe(400);
    expect(withToken.json().error.details).toEqual({ reason: 'not_a_session' });
    expect((await call(api, 'GET', '/v1/hosts', { token: api.admin })).status).toBe(200);
  });

  it('and tokens say who they are: user, agent, network limit and features', async () => {
    const token = await started();
    const asSession = await call(api, 'GET', '/v1/session', { token });
    expect(asSession.status).toBe(200);
    expect(asSession.json()).toEqual({ credential: 'session', userId: 'ann', agentId: null, network: null, features: [...ADMIN_FEATURES].sort() });
    const agent = (await api.tokens.create({ name: 'agent', userId: 'ann', agentId: 'helper', network: 'home', features: ['hosts.manage'] })).token;
    expect((await call(api, 'GET', '/v1/session', { token: agent })).json()).toEqual({ credential: 'token', userId: 'ann', agentId: 'helper', network: 'home', features: ['hosts.manage'] });
  });

  it('are listed and revoked by id', async () => {
    const token = await started();
    const listed = await sessions.list('ann');
    const mine = listed.find((item) => item.revokedAt === null && item.lastUsedAt === null);
    expect(mine).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(token);
    await sessions.revoke(mine!.id);
    expect((await call(api, 'GET', '/v1/hosts', { token })).status).toBe(401);
    await expect(sessions.revoke(mine!.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('work on /mcp as on /v1', async () => {
    const token = await started();
    const answer = await call(api, 'POST', '/mcp', {
      token,
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'session-test', version: '1.0.0' } } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(answer.status, answer.text).toBe(200);
  });
});
