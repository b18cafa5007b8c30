import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { checkClosedSchema, inferConfigSchema } from './config-schema.js';
import { checkConfirmation, confirmationPhrase } from './confirm.js';
import { ModuleStore, moduleSha } from './module-store.js';

let root: string;
let store: ModuleStore;

beforeAll(async () => {
  root = await tempDir('modules');
  store = new ModuleStore(join(root, 'connectors'));
});

afterAll(async () => {
  await removeDir(root);
});

const who = { name: null, configSchema: null, submittedBy: 'ann', submittedAt: 1 };

describe('the module store', () => {
  it('stores a module once under its sha, 0600, with nothing temporary left', async () => {
    const first = await store.put('export function createConnector() {}', who);
    expect(first).toMatchObject({ created: true, submission: { sha: moduleSha('export function createConnector() {}'), bytes: 36 } });
    const again = await store.put('export function createConnector() {}', { ...who, submittedBy: 'bob' });
    expect(again).toMatchObject({ created: false, submission: { submittedBy: 'ann' } });
    const dir = join(root, 'connectors', first.submission.sha);
    expect((await readdir(dir)).sort()).toEqual(['module.js', 'submission.json']);
    expect((await stat(join(dir, 'module.js'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, 'module.js'), 'utf8')).toBe('export function createConnector() {}');
  });

  it('resolves a sha from a unique prefix of 8+ digits, and refuses anything else', async () => {
    const { submission } = await store.put('export default {}', who);
    expect(await store.resolve(submission.sha.slice(0, 8).toUpperCase())).toBe(submission.sha);
    expect(await store.resolve(submission.sha)).toBe(submission.sha);
    await expect(store.resolve(submission.sha.slice(0, 7))).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.resolve('../../etc/passwd')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.resolve('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.source('0'.repeat(64))).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.source('../x')).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('refuses a prefix two modules share', async () => {
    for (const sha of ['abcdef01'.padEnd(64, '0'), 'abcdef01'.padEnd(64, '1')]) {
      await mkdir(join(root, 'connectors', sha), { recursive: true });
      await writeFile(join(root, 'connectors', sha, 'submission.json'), JSON.stringify({ sha, ...who, bytes: 1 }));
    }
    await expect(store.resolve('abcdef01')).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('2 submitted modules') });
    expect(await store.resolve('abcdef011')).toBe('abcdef01'.padEnd(64, '1'));
  });

  it('records trials as files of their own', async () => {
    const sha = moduleSha('export default {}');
    await Promise.all(['trial-a', 'trial-b', 'trial-c'].map((id) => store.addTrial(sha, id)));
    expect((await store.trialIds(sha)).sort()).toEqual(['trial-a', 'trial-b', 'trial-c']);
  });
});

describe('config schemas and the confirmation phrase', () => {
  it('accepts closed schemas only', () => {
    expect(checkClosedSchema({ type: 'object', additionalProperties: false, properties: {} })).toBeDefined();
    for (const bad of [{ type: 'object' }, { type: 'object', additionalProperties: true }, [], 'x', { type: 'string', additionalProperties: false }, { type: 'object', additionalProperties: false, properties: [] }]) {
      expect(() => checkClosedSchema(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  it('infers a closed schema from a config', () => {
    expect(inferConfigSchema({ baseUrl: 'https://x', pageSize: 2, ratio: 0.5, on: true })).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { baseUrl: { type: 'string' }, on: { type: 'boolean' }, pageSize: { type: 'integer' }, ratio: { type: 'number' } },
      required: ['baseUrl', 'on', 'pageSize', 'ratio'],
    });
  });

  it('checks the phrase, spaces collapsed, nothing else', () => {
    const sha = 'ab'.repeat(32);
    expect(confirmationPhrase('notes', sha)).toBe('approve notes abababababab');
    expect(() => checkConfirmation(' approve   notes abababababab ', 'notes', sha)).not.toThrow();
    for (const typed of ['approve notes ababababab', 'approve other abababababab', 'yes', 42, undefined]) {
      expect(() => checkConfirmation(typed, 'notes', sha), String(typed)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});
