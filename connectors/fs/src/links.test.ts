/**
 * A hard link made inside the root to a file outside it (same filesystem: the test's temp
 * folder) must not serve the outside file: not through the port's read, stat, list, walk,
 * scanContent or write, nor the host Connector's list, stat, read or write — unless the source
 * says `allowHardLinks`.
 */
import { link, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import { createFsConnector } from './index.js';
import { scanFiles } from './scan.js';
import { collect, makeSandbox, streamBytes } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- outside the root';
const REFUSED = { code: 'containment_violation', details: { reason: 'hard_link' } };

beforeAll(async () => {
  box = await makeSandbox();
  await mkdir(`${box.root}/docs`);
  await writeFile(`${box.outside}/id_ed25519`, KEY);
  await link(`${box.outside}/id_ed25519`, `${box.root}/docs/key.txt`);
  await symlink('key.txt', `${box.root}/docs/key-alias.txt`);
  await writeFile(`${box.root}/docs/plain.txt`, 'plain');
});
afterAll(() => box.cleanup());

describe('refused by default', () => {
  test('port read and stat refuse the file, through its name and through a symlink to it', async () => {
    for (const uri of ['box://docs/key.txt', 'box://docs/key-alias.txt']) {
      await expect(box.connector.read(uri)).rejects.toMatchObject(REFUSED);
      await expect(box.connector.stat(uri)).rejects.toMatchObject(REFUSED);
    }
    expect((await box.connector.read('box://docs/plain.txt')).text).toBe('plain');
    expect((await box.connector.stat('box://docs')).type).toBe('directory');
  });

  test('listings, walks and scans leave it out; a names-only listing, which stats nothing, names it', async () => {
    const names = (entries: readonly ConnectorEntry[]): string[] => entries.map((entry) => entry.name);
    expect(names((await box.connector.list('box://docs')).entries)).toEqual(['plain.txt']);
    expect(names(await collect(box.connector.walk('box://')))).toEqual(['docs', 'plain.txt']);
    const scanned = await collect(box.connector.scanContent('box://'));
    expect(scanned.map((chunk) => [chunk.entry.name, chunk.text])).toEqual([['plain.txt', 'plain']]);
    expect(JSON.stringify(scanned)).not.toContain('PRIVATE KEY');
    expect(names((await box.connector.list('box://docs', { detail: 'names' })).entries)).toEqual(['key-alias.txt', 'key.txt', 'plain.txt']);
  });

  test('a scan that reaches a file linked after the walk listed it skips it unread', async () => {
    const entry: ConnectorEntry = { uri: 'box://docs/key.txt', name: 'key.txt', type: 'file', size: KEY.length, mime: 'text/plain' };
    const chunks = await collect(scanFiles(box.root, 'box', (async function* () { yield entry; })(), 1 << 20, false));
    expect(chunks).toEqual([{ entry, skipped: 'unreadable' }]);
  });

  test('a write over it is refused and the outside file stays as it was; deleting removes only the link', async () => {
    await expect(box.connector.write('box://docs/key.txt', 'replaced')).rejects.toMatchObject(REFUSED);
    await expect(box.connector.write('box://docs/key.txt', 'replaced', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    expect(await readFile(`${box.outside}/id_ed25519`, 'utf8')).toBe(KEY);
    await link(`${box.outside}/id_ed25519`, `${box.root}/docs/doomed.txt`);
    await box.connector.delete('box://docs/doomed.txt');
    expect(existsSync(`${box.root}/docs/doomed.txt`)).toBe(false);
    expect(await readFile(`${box.outside}/id_ed25519`, 'utf8')).toBe(KEY);
  });

  test('the host Connector the crawler uses lists it nowhere, stats it as absent and refuses to read or replace it', async () => {
    const host = box.connector.host();
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['docs/plain.txt']);
    expect((await host.list({ order: 'newest' })).entries.map((entry) => entry.path)).toEqual(['docs/plain.txt']);
    expect((await host.list({ since: '2000-01-01T00:00:00Z' })).entries.map((entry) => entry.path)).toEqual(['docs/plain.txt']);
    expect(await host.stat('docs/key.txt')).toBeNull();
    expect(await host.stat('docs/key-alias.txt')).toBeNull();
    await expect(host.read('docs/key.txt')).rejects.toMatchObject(REFUSED);
    await expect(host.write!('docs/key.txt', new Blob(['x']).stream())).rejects.toMatchObject(REFUSED);
    expect(await readFile(`${box.outside}/id_ed25519`, 'utf8')).toBe(KEY);
  });
});

describe('allowHardLinks: true', () => {
  test('serves such files like any other', async () => {
    const allowing = createFsConnector(box.context({ allowHardLinks: true }));
    expect((await allowing.read('box://docs/key.txt')).text).toBe(KEY);
    expect((await allowing.list('box://docs')).entries.map((entry) => entry.name)).toEqual(['key-alias.txt', 'key.txt', 'plain.txt']);
    const host = allowing.host();
    expect((await host.stat('docs/key.txt'))?.size).toBe(KEY.length);
    expect((await streamBytes(await host.read('docs/key.txt'))).toString('utf8')).toBe(KEY);
  });

  test('the setting is a boolean in the closed config schema', () => {
    expect(() => createFsConnector(box.context({ allowHardLinks: 'yes' }))).toThrow(expect.objectContaining({ code: 'invalid_config', details: { field: 'allowHardLinks' } }));
  });
});
