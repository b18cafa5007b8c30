/**
 * A sandboxed connector whose hosts authorize by OAuth 2 — the grant and the authorization
 * server come from the host's config — registered on a platform as kind `cloud-drive` (its describe()
 * declares category `api`), as an approved install would.
 */
import type { Description } from '@inseam/connector';
import type { Platform } from '../../platform/index.js';

export const OAUTH_MODULE = `
export function createConnector(config) {
  const acquire = config.grant === 'device_code'
    ? { type: 'oauth2', grant: 'device_code', deviceUrl: config.deviceUrl, tokenUrl: config.tokenUrl, scopes: ['files.read'], pkce: true, clientSources: ['inseam'] }
    : { type: 'oauth2', grant: 'authorization_code', authorizationUrl: config.authorizationUrl, tokenUrl: config.tokenUrl, scopes: ['files.read'], pkce: true, clientSources: ['inseam'] };
  return {
    describe() {
      return {
        kind: 'cloud-drive',
        category: 'api',
        capabilities: ['list', 'stat', 'read'],
        auth: { acquire, present: [{ in: 'header', name: 'authorization', value: 'Bearer {{access_token}}' }], origins: ['https://drive.example.com'] },
        dimensions: { updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' }, path: { type: 'path', from: 'path', description: 'The path.' } },
        listing: 'free',
      };
    },
    async list() { return { entries: [] }; },
    async stat() { return null; },
    async read() { const error = new Error('nothing here'); error.code = 'not_found'; throw error; },
  };
}
`;

export const OAUTH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    grant: { type: 'string', enum: ['authorization_code', 'device_code'], description: 'How the person authorizes the host.' },
    authorizationUrl: { type: 'string', pattern: '^https?://' },
    deviceUrl: { type: 'string', pattern: '^https?://' },
    tokenUrl: { type: 'string', pattern: '^https?://' },
  },
  required: ['grant', 'tokenUrl'],
};

/** Registers kind `cloud-drive` from the module, described with `config`. */
export async function registerOAuthKind(platform: Platform, config: Readonly<Record<string, unknown>>): Promise<void> {
  const probe = await platform.sandbox.load({ source: OAUTH_MODULE, label: 'probe', config, egress: { fetch: () => Promise.reject(new Error('unused')) } });
  const description: Description = probe.describe();
  probe.dispose();
  platform.kinds.registerSandboxed({ source: OAUTH_MODULE, description, configSchema: OAUTH_SCHEMA, name: 'Cloud drive' });
}
