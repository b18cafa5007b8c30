import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { PostgresStore } from '../store/index.js';
import { moduleSha, type Installation } from './module-store.js';
import { PostgresModuleStore } from './postgres-module-store.js';

let server: TestPostgres;
let store: PostgresStore;
let other: PostgresStore;

beforeAll(async () => {
  server = await startTestPostgres();
  const url = await server.createSchema();
  store = await PostgresStore.open({ url });
  other = await PostgresStore.open({ url });
});

afterAll(async () => {
  await store?.close();
  await other?.close();
  await server?.stop();
});

const who = { name: 'notes', configSchema: { type: 'object', additionalProperties: false, properties: {} }, submittedBy: 'ann', submittedAt: 1 } as const;

describe('the module store on PostgreSQL', () => {
  it('stores a module once under its sha, exactly as submitted, where another process finds it', async () => {
    const modules = new PostgresModuleStore(store);
    const source = 'export function createConnector() { return "ünïcödé \\u0000"; }\n';
    const first = await modules.put(source, who);
    expect(first).toEqual({ created: true, submission: { sha: moduleSha(source), ...who, bytes: Buffer.byteLength(source) } });
    const again = await modules.put(source, { ...who, submittedBy: 'bob' });
    expect(again).toEqual({ created: false, submission: first.submission });
    // A worker elsewhere, with a store of its own.
    const elsewhere = new PostgresModuleStore(other);
    expect(await elsewhere.source(first.submission.sha)).toBe(source);
    expect(await elsewhere.submission(first.submission.sha)).toEqual(first.submission);
    expect(await elsewhere.list()).toContain(first.submission.sha);
  });

  it('refuses malformed shas and answers not_found for modules never submitted', async () => {
    const modules = new PostgresModuleStore(store);
    await expect(modules.source('../x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(modules.submission("'; DROP TABLE connector_modules; --")).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(modules.source('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
    expect(await modules.submission('0'.repeat(64))).toBeNull();
    expect(await modules.installation('0'.repeat(64))).toBeNull();
    await expect(modules.resolve('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('resolves a unique prefix of 8+ digits, and refuses a shared one', async () => {
    const modules = new PostgresModuleStore(store);
    const { submission } = await modules.put('export default {}', { ...who, name: null, configSchema: null });
    expect(await modules.resolve(submission.sha.slice(0, 8).toUpperCase())).toBe(submission.sha);
    await expect(modules.resolve(submission.sha.slice(0, 7))).rejects.toMatchObject({ code: 'invalid_argument' });
    for (const sha of ['abcdef01'.padEnd(64, '0'), 'abcdef01'.padEnd(64, '1')]) {
      await store.database.run('INSERT INTO connector_modules (sha, source, submission) VALUES ($1, $2, $3)', [sha, 'x', JSON.stringify({ sha, ...who, bytes: 1 })]);
    }
    await expect(modules.resolve('abcdef01')).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('2 submitted modules') });
    expect(await modules.resolve('abcdef011')).toBe('abcdef01'.padEnd(64, '1'));
    const listed = await modules.list();
    expect(listed).toEqual([...listed].sort());
  });

  it('records trials and the installation', async () => {
    const modules = new PostgresModuleStore(store);
    const { submission } = await modules.put('export const trialled = 1;', who);
    await Promise.all(['trial-b', 'trial-a', 'trial-c', 'trial-a'].map((id) => modules.addTrial(submission.sha, id)));
    expect(await modules.trialIds(submission.sha)).toEqual(['trial-a', 'trial-b', 'trial-c']);
    const installation: Installation = {
      sha: submission.sha,
      kind: 'notes-api',
      name: 'notes',
      description: { kind: 'notes-api' } as unknown as Installation['description'],
      configSchema: who.configSchema,
      network: 'home',
      installedBy: 'ann',
      installedAt: 5,
    };
    await modules.install(installation);
    expect(await new PostgresModuleStore(other).installation(submission.sha)).toEqual(installation);
    await expect(modules.install({ ...installation, sha: '1'.repeat(64) })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers unavailable when its database is closed', async () => {
    const url = await server.createSchema();
    const closing = await PostgresStore.open({ url });
    const modules = new PostgresModuleStore(closing);
    await closing.close();
    await expect(modules.list()).rejects.toMatchObject({ code: 'unavailable' });
  });
});
