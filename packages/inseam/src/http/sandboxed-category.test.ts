/**
 * A sandboxed kind's category is what its describe() declares, never derived: shown as declared
 * by /v1/source-kinds, /v1/hosts and the runtime-stack block (an unknown category included; the
 * page gives it a generic chip), absent when the module declares none, and a module whose
 * category is not short printable text is refused when it is loaded, with `description_invalid`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Description } from '@inseam/connector';
import { FsService } from '../fs/service.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

/** A module that lists nothing and describes kind `kind`, with `category` when given. */
function moduleOf(kind: string, category?: unknown): string {
  const declared = category === undefined ? '' : `category: ${JSON.stringify(category)},`;
  return `
export function createConnector() {
  return {
    describe() {
      return {
        kind: ${JSON.stringify(kind)}, ${declared}
        capabilities: ['list', 'read'],
        auth: { acquire: { type: 'none' }, present: [], origins: ['https://kb.example.com'] },
        dimensions: { path: { type: 'path', from: 'path', ordering: true, description: 'The path.' } },
        listing: 'free',
      };
    },
    async list() { return { entries: [] }; },
    async read() { const error = new Error('nothing here'); error.code = 'not_found'; throw error; },
  };
}
`;
}

const SCHEMA = { type: 'object', additionalProperties: false, properties: {} } as const;
let api: Api;

async function describeModule(source: string): Promise<Description> {
  const probe = await api.platform.sandbox.load({ source, label: 'probe', config: {}, egress: { fetch: () => Promise.reject(new Error('unused')) } });
  try {
    return probe.describe();
  } finally {
    probe.dispose();
  }
}

async function register(kind: string, category?: string): Promise<void> {
  const source = moduleOf(kind, category);
  api.platform.kinds.registerSandboxed({ source, description: await describeModule(source), configSchema: SCHEMA });
  await api.platform.networks.addHost({ network: 'home', slug: kind, kind, config: {} });
}

beforeAll(async () => {
  api = await startApi();
  await register('wiki', 'Knowledge base');
  await register('ledger', 'db');
  await register('plain');
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe('a sandboxed kind’s declared category', () => {
  it('is listed as declared by /v1/source-kinds, and a kind that declares none has none', async () => {
    const kinds = (await call(api, 'GET', '/v1/source-kinds', { token: api.admin })).json<{ kind: string; category: string | null; sandboxed: boolean }[]>();
    const byKind = Object.fromEntries(kinds.map((kind) => [kind.kind, kind]));
    expect(byKind['wiki']).toMatchObject({ category: 'Knowledge base', sandboxed: true });
    expect(byKind['ledger']).toMatchObject({ category: 'db', sandboxed: true });
    expect(byKind['plain']).toMatchObject({ category: null, sandboxed: true });
    // Built-in kinds keep their manifests' categories.
    expect(byKind['fs']?.category).toBe('disk');
  });

  it('is shown on each host in /v1/hosts and in the runtime-stack block', async () => {
    const hosts = (await call(api, 'GET', '/v1/hosts', { token: api.admin })).json<{ slug: string; category: string | null }[]>();
    expect(Object.fromEntries(hosts.map((host) => [host.slug, host.category]))).toMatchObject({ wiki: 'Knowledge base', ledger: 'db', plain: null, files: 'disk' });

    const block = await new FsService(api.platform).runtimeStack(callerOf('ann'));
    expect(block).toContain('- wiki inseam://home/wiki/ (wiki, category Knowledge base):');
    expect(block).toContain('- ledger inseam://home/ledger/ (ledger, category db):');
    expect(block).toContain('- plain inseam://home/plain/ (plain):');
    expect(block).toContain('- files inseam://home/files/ (fs, category disk):');
    expect(block).toContain('- inseam.sandbox (sandboxed): source kind ledger (ledger, category db); source kind plain (plain); source kind wiki (wiki, category Knowledge base).');
  });

  it('refuses a module whose category is not short printable text when it is loaded, naming the field', async () => {
    for (const category of ['', 'x'.repeat(41), 'bell\u0007', 'two\nlines', '\u202Eipa', ' api', 7, ['api']]) {
      const error = await describeModule(moduleOf('broken', category)).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, JSON.stringify(category)).toMatchObject({ code: 'description_invalid', issues: [expect.objectContaining({ path: 'category' })] });
    }
    // Registration checks a description it is handed too.
    const forged = { ...(await describeModule(moduleOf('forged'))), category: 'a\u0000b' } as Description;
    expect(() => api.platform.kinds.registerSandboxed({ source: moduleOf('forged'), description: forged, configSchema: SCHEMA })).toThrow(expect.objectContaining({ code: 'description_invalid' }));
    expect(api.platform.kinds.has('forged')).toBe(false);
  });
});
