import { describe, expect, it } from 'vitest';
import * as connectors from '../connectors/index.js';
import * as http from './index.js';

describe('the http and connectors surfaces', () => {
  it('http exports exactly its named API', () => {
    expect(Object.keys(http).sort()).toEqual(
      [
        'ADMIN_FEATURES',
        'API_ROUTES',
        'API_VERSION',
        'DEFAULT_MAX_WRITE_BYTES',
        'DEFAULT_RETRY_AFTER_SECONDS',
        'HTTP_ONLY_CODES',
        'HTTP_STATUS',
        'HttpError',
        'NETWORK_HEADER',
        'SIGNIN_CODE_TTL_MS',
        'SessionService',
        'TokenService',
        'WebhookKeys',
        'authenticate',
        'buildOpenApi',
        'callerOf',
        'crawlStatusOf',
        'createServer',
        'formatEtag',
        'hashToken',
        'hashWebhookKey',
        'hookPath',
        'looksLikeToken',
        'networkOf',
        'parseIfMatch',
        'parseRange',
        'publicOrigin',
        'renderError',
        'isPublic',
        'requireWebhooks',
        'signInPath',
        'tokenView',
      ].sort(),
    );
  });

  it('connectors exports exactly its named API', () => {
    expect(Object.keys(connectors).sort()).toEqual(
      ['CONFIRM_SHA_DIGITS', 'ConnectorLifecycle', 'MAX_MODULE_BYTES', 'MIN_SHA_PREFIX', 'ModuleStore', 'SHA_PATTERN', 'checkClosedSchema', 'checkConfirmation', 'confirmationPhrase', 'inferConfigSchema', 'moduleSha'].sort(),
    );
  });

  it('every API route has an operation id of its own and documents its answers', () => {
    const ids = http.API_ROUTES.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of http.API_ROUTES) {
      expect(route.url, route.operationId).toMatch(/^\/v1\//);
      expect(Object.keys(route.responses).length, route.operationId).toBeGreaterThan(0);
      if (route.method === 'POST' || route.method === 'PUT') expect(route.body !== undefined || route.rawBody !== undefined || route.url.endsWith('/kill'), route.operationId).toBe(true);
    }
  });
});
