/**
 * A sandboxed connector kind `hooked` that takes webhooks, for the webhook tests. It lists a.txt,
 * b.txt and c.txt. Its webhook() refuses a request whose x-signature is not `sig-<body
 * length>-<first 8 characters>` (so the body must reach it untouched) or whose URL still holds a
 * key, and deletes the paths the JSON body names.
 */
import { validateDescription } from '@inseam/connector';
import type { Platform } from '../../platform/index.js';

export const HOOKED_SOURCE = `export function createConnector(config) {
  const files = { 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma' };
  return {
    describe() { return ${JSON.stringify(
      validateDescription({
        kind: 'hooked',
        capabilities: ['list', 'stat', 'read'],
        auth: { acquire: { type: 'none' }, present: [], origins: ['https://hooked.example'] },
        dimensions: { path: { type: 'path', from: 'path', description: 'The path.' }, mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
        listing: 'free',
      }),
    )}; },
    async list() { return { entries: Object.keys(files).map((path) => ({ path, size: files[path].length, mtime: '2024-01-01T00:00:00Z' })) }; },
    async stat(path) { return files[path] === undefined ? null : { path, size: files[path].length, mtime: '2024-01-01T00:00:00Z' }; },
    async read(path) { const text = files[path]; return new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(text)); c.close(); } }); },
    async webhook(req) {
      const text = await req.text();
      if (req.headers.get('x-signature') !== 'sig-' + text.length + '-' + text.slice(0, 8)) throw new Error('bad signature');
      if (req.url.includes('whk_')) throw new Error('the key reached the connector');
      return JSON.parse(text).deleted.map((path) => ({ type: 'delete', path }));
    },
  };
}`;

export function signed(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-signature': `sig-${body.length}-${body.slice(0, 8)}` };
}

/** Registers kind `hooked` on the platform, as an install of the module would. */
export async function registerHooked(platform: Platform): Promise<void> {
  const probe = await platform.sandbox.load({ source: HOOKED_SOURCE, label: 'probe', config: {}, egress: { fetch: () => Promise.reject(new Error('unused')) } });
  const description = probe.describe();
  probe.dispose();
  platform.kinds.registerSandboxed({ source: HOOKED_SOURCE, description, configSchema: { type: 'object', additionalProperties: false, properties: {} } });
}
