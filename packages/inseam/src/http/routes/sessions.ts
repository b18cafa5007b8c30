/**
 * The web page's sign-in (sessions.ts): `POST /v1/sessions` exchanges a one-time sign-in code for
 * a session — the one public route that makes a credential — `GET /v1/session` says who the
 * calling token is (so the page offers only what it can do), and `DELETE /v1/session` ends the
 * session that calls it (the page's Sign out).
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { unauthenticated } from '../errors.js';
import type { RouteSpec } from '../route.js';
import { SIGNIN_CODE_TTL_MS } from '../sessions.js';

const TAG = 'sessions';
/** A code is 43 characters; anything much longer is not one and is not read. */
const EXCHANGE_BODY_LIMIT = 1024;

const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    userId: { type: 'string' },
    features: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'integer' },
    expiresAt: { type: 'integer', description: 'When it ends unless used again (epoch ms); each use moves it, up to 7 days after it was made.' },
    lastUsedAt: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    revokedAt: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
  },
  required: ['id', 'userId', 'features', 'createdAt', 'expiresAt', 'lastUsedAt', 'revokedAt'],
};

export const sessionRoutes: readonly RouteSpec[] = [
  {
    method: 'POST',
    url: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Exchange a one-time sign-in code for a session',
    description: `The code is the \`#code=…\` of a sign-in link (\`inseam up\`, \`inseam signin\`). It works once and for ${SIGNIN_CODE_TTL_MS / 60_000} minutes; a code that is unknown, used or expired is 401 \`unauthenticated\` (\`details.reason: invalid_signin_code\`). The answer's \`token\` is the session's bearer secret.`,
    tag: TAG,
    action: 'sessions.create',
    bodyLimit: EXCHANGE_BODY_LIMIT,
    body: { type: 'object', properties: { code: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['code'], additionalProperties: false },
    responses: { 201: { description: 'The session.', schema: { type: 'object', properties: { token: { type: 'string' }, session: sessionSchema }, required: ['token', 'session'] } } },
    handler: async (call) => {
      const { code } = call.request.body as { code: string };
      const started = await call.services.sessions.exchange(code);
      if (started === null) {
        throw unauthenticated('This sign-in link does not work: it was used already, has expired, or was cut short. Run `inseam signin` for a new one.', 'invalid_signin_code');
      }
      call.reply.code(201);
      return started;
    },
  },
  {
    method: 'GET',
    url: '/v1/session',
    operationId: 'showCaller',
    summary: 'Who the calling token or session is: its user, agent, network and features',
    description: 'Any token may ask about itself. The page uses it to leave out what the caller cannot do; the server checks every call all the same.',
    tag: TAG,
    action: 'sessions.show',
    responses: {
      200: {
        description: 'The caller.',
        schema: {
          type: 'object',
          properties: {
            credential: { type: 'string', enum: ['token', 'session'] },
            userId: { type: 'string' },
            agentId: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            network: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The network the token is limited to; null: any.' },
            features: { type: 'array', items: { type: 'string' } },
          },
          required: ['credential', 'userId', 'agentId', 'network', 'features'],
        },
      },
    },
    handler: async (call) => {
      const { credential, userId, agentId, network, features } = call.principal;
      return { credential, userId, agentId, network, features: [...features].sort() };
    },
  },
  {
    method: 'DELETE',
    url: '/v1/session',
    operationId: 'endSession',
    summary: 'End the calling web session (sign out)',
    description: 'Only a session can end itself here; an API token is revoked with `inseam token revoke`.',
    tag: TAG,
    action: 'sessions.end',
    responses: { 204: { description: 'Ended: the session\'s token no longer works.' } },
    handler: async (call) => {
      if (call.principal.credential !== 'session') {
        throw new InvalidArgumentError('This call is made with an API token, not a sign-in session; revoke a token with `inseam token revoke <id>`.', { details: { reason: 'not_a_session' } });
      }
      await call.services.sessions.revoke(call.principal.tokenId);
      return undefined;
    },
  },
];
