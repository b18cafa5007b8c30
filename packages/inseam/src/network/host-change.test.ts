/**
 * Hosts that keep themselves in sync and can be changed (issue 16, items 3 and 4), on a real
 * platform over SQLite: the sync a person's host gets by default, a folder root that must be a
 * folder, `updateHost` refusing a bad change without changing anything and re-binding and syncing
 * a host whose config changed, the sync history with what each sync changed, and a manual host's
 * paused crawl resumed on restart.
 */
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Platform } from '../platform/index.js';
import { openTestPlatform, removeDir, storeSnapshot, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { defaultSync } from './host-input.js';

let dataDir: string;
let files: string;
let platform: Platform;

beforeEach(async () => {
  dataDir = await tempDir('host-change');
  files = await tempDir('host-change-files');
  await writeFiles(files, { 'a/one.md': 'alpha one', 'a/two.md': 'alpha two', 'b/three.md': 'bravo three' });
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
});

afterEach(async () => {
  await platform.close();
  await removeDir(dataDir);
  await removeDir(files);
});

const notes = { network: 'home', host: 'notes' };

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await work;
  } catch (error) {
    const { code, message, details } = error as { code: string; message: string; details: Record<string, unknown> };
    return { code, message, details: { ...details } };
  }
  throw new Error('expected a refusal');
}

async function entries(ref = notes): Promise<string[]> {
  const hostId = (await platform.networks.hostRecord(ref)).id;
  return (await platform.store.catalog.listEntries(hostId, { limit: 1000 })).map((entry) => entry.path);
}

describe('the sync a new host gets', () => {
  it('is auto for a folder (it can be watched and lists for free) unless the person chose manual', async () => {
    const added = await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a') } });
    expect(added.sync).toEqual({ trigger: 'auto' });
    const chosen = await platform.networks.addHost({ network: 'home', slug: 'quiet', kind: 'fs', config: { root: join(files, 'b') }, sync: { trigger: 'manual' } });
    expect(chosen.sync).toEqual({ trigger: 'manual' });
    const local = await platform.networks.addHost({ network: 'home', slug: 'scratch', kind: 'local', config: { root: 'data/scratch' } });
    expect(local.sync).toEqual({ trigger: 'auto' });
  });

  it('is manual where every listing is metered and nothing can be watched', () => {
    expect(defaultSync({ capabilities: ['list', 'read'], listing: 'metered' })).toEqual({ trigger: 'manual' });
    expect(defaultSync({ capabilities: ['list', 'read', 'watch'], listing: 'metered' })).toEqual({ trigger: 'auto' });
    expect(defaultSync({ capabilities: ['list', 'read'], listing: 'free' })).toEqual({ trigger: 'auto' });
  });

  it('syncs an auto host by itself once syncing runs: a new file appears without anyone asking', async () => {
    await platform.startSync();
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a') } });
    await vi.waitFor(async () => expect(await entries()).toEqual(['one.md', 'two.md']), { timeout: 10_000 });
    await writeFile(join(files, 'a', 'new.md'), 'a new note');
    await vi.waitFor(async () => expect(await entries()).toEqual(['new.md', 'one.md', 'two.md']), { timeout: 10_000 });
  });
});

describe('a folder root', () => {
  it('is refused when it does not exist or is a file, naming the problem, and nothing is stored', async () => {
    const before = storeSnapshot(platform);
    const missing = await refusal(platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'nowhere') } }));
    expect(missing).toMatchObject({ code: 'invalid_config', details: { fields: ['root'], reason: 'root_missing' } });
    expect(missing.message).toMatch(/does not exist/);
    expect(missing.message).not.toContain(files);
    const file = await refusal(platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a', 'one.md') } }));
    expect(file).toMatchObject({ code: 'invalid_config', details: { fields: ['root'], reason: 'root_not_a_folder' } });
    expect(file.message).toMatch(/a file, not a folder/);
    const app = await refusal(platform.networks.addHost({ network: 'home', slug: 'app', kind: 'local', config: { root: '${appRoot}/no-such-folder' } }));
    expect(app).toMatchObject({ code: 'invalid_config', details: { reason: 'root_missing' } });
    await writeFiles(join(dataDir, 'networks', 'home', 'data'), { 'blocked': 'a file where a folder should go' });
    const blocked = await refusal(platform.networks.addHost({ network: 'home', slug: 'blocked', kind: 'local', config: { root: 'data/blocked' } }));
    expect(blocked).toMatchObject({ code: 'invalid_config', details: { reason: 'root_not_a_folder' } });
    expect(storeSnapshot(platform)).toEqual(before);
  });
});

describe('changing a host', () => {
  beforeEach(async () => {
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a') }, label: 'Notes', sync: { trigger: 'manual' } });
  });

  it('changes nothing when any part of the change fails its check', async () => {
    const before = storeSnapshot(platform);
    const cases: [unknown, string, Record<string, unknown>][] = [
      [{ config: { root: join(files, 'a'), colour: 'red' } }, 'invalid_config', {}],
      [{ config: { root: join(files, 'nowhere') }, label: 'Renamed' }, 'invalid_config', { reason: 'root_missing' }],
      [{ config: { root: join(files, 'a', 'one.md') } }, 'invalid_config', { reason: 'root_not_a_folder' }],
      [{ label: '' }, 'invalid_argument', { argument: 'label' }],
      [{ label: 'Fine', sync: { trigger: 'manual', interval: 'PT5M' } }, 'invalid_config', { fields: ['sync.interval'] }],
      [{ scope: { rules: [{ include: { dim: 'colour', op: 'eq', value: 'red' } }] } }, 'scope_invalid', {}],
      [{ permissions: { default: { read: 'yes' } } }, 'invalid_argument', {}],
      [{ slug: 'other' }, 'invalid_argument', { fields: ['slug'] }],
      [{}, 'invalid_argument', {}],
    ];
    for (const [change, code, details] of cases) {
      const refused = await refusal(platform.networks.updateHost(notes, change as never));
      expect(refused, JSON.stringify(change)).toMatchObject({ code, details });
    }
    expect(storeSnapshot(platform)).toEqual(before);
  });

  it('changes label, description, sync and permissions, keeping the rest', async () => {
    const changed = await platform.networks.updateHost(notes, { label: 'My notes', description: 'What I wrote.', sync: { trigger: 'auto', interval: 'PT30M' }, writable: true });
    expect(changed).toMatchObject({ label: 'My notes', description: 'What I wrote.', sync: { trigger: 'auto', interval: 'PT30M' }, permissions: { default: { read: true, write: true, exec: false } }, config: { root: join(files, 'a') } });
    const again = await platform.networks.updateHost(notes, { description: '' });
    expect(again).toMatchObject({ label: 'My notes', description: '', sync: { trigger: 'auto', interval: 'PT30M' }, permissions: { default: { write: true } } });
  });

  it('re-binds a host whose config changed and syncs it in full: the catalog follows the new root', async () => {
    await (await platform.sync(notes)).result;
    expect(await entries()).toEqual(['one.md', 'two.md']);
    const port = await platform.kinds.openPort(await platform.networks.hostRecord(notes));
    await platform.networks.updateHost(notes, { config: { root: join(files, 'b') } });
    await vi.waitFor(async () => expect(await entries()).toEqual(['three.md']), { timeout: 10_000 });
    const rebound = await platform.kinds.openPort(await platform.networks.hostRecord(notes));
    expect(rebound).not.toBe(port);
    expect((await rebound.list('notes://')).entries.map((entry) => entry.name)).toEqual(['three.md']);
  });
});

describe('the sync history', () => {
  it('records each sync: when, how long, what was added, changed and removed, and errors', async () => {
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a') }, sync: { trigger: 'manual' } });
    const hostId = (await platform.networks.hostRecord(notes)).id;
    const first = await (await platform.sync(notes)).result;
    await writeFile(join(files, 'a', 'two.md'), 'alpha two, longer now');
    await writeFile(join(files, 'a', 'four.md'), 'alpha four');
    await unlink(join(files, 'a', 'one.md'));
    const second = await (await platform.sync(notes, { mode: 'full' })).result;
    const history = await platform.store.syncHistory.list(hostId);
    expect(history).toEqual([
      expect.objectContaining({ runId: second.id, mode: 'full', state: 'completed', entries: 2, added: 1, changed: 1, removed: 1, errors: 0, error: null }),
      expect.objectContaining({ runId: first.id, mode: 'full', state: 'completed', entries: 2, added: 2, changed: 0, removed: 0, startedAt: first.startedAt, endedAt: first.finishedAt }),
    ]);
    expect(history[0]!.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('counts what an incremental sync added, and keeps the catalog\'s size after each sync', async () => {
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'a') }, sync: { trigger: 'manual' } });
    const hostId = (await platform.networks.hostRecord(notes)).id;
    await (await platform.sync(notes)).result;
    await writeFile(join(files, 'a', 'five.md'), 'alpha five');
    const second = await (await platform.sync(notes)).result;
    expect(second.mode).toBe('incremental');
    expect(await platform.store.syncHistory.list(hostId)).toEqual([
      expect.objectContaining({ runId: second.id, mode: 'incremental', added: 1, changed: 0, catalog: { entries: 3, bytes: 'alpha one'.length + 'alpha two'.length + 'alpha five'.length } }),
      expect.objectContaining({ mode: 'full', added: 2, catalog: { entries: 2, bytes: 'alpha one'.length + 'alpha two'.length } }),
    ]);
  });

  it('records a failed sync with its error', async () => {
    await mkdir(join(files, 'c'));
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'c') }, sync: { trigger: 'manual' } });
    await rm(join(files, 'c'), { recursive: true });
    const run = await (await platform.sync(notes)).result;
    expect(run.state).toBe('failed');
    const [record] = await platform.store.syncHistory.list((await platform.networks.hostRecord(notes)).id);
    expect(record).toMatchObject({ runId: run.id, state: 'failed', error: { code: run.error!.code } });
  });
});

describe('a manual host\'s paused crawl', () => {
  it('is resumed when the platform starts syncing again, as an auto host\'s is', async () => {
    const many: Record<string, string> = {};
    for (let index = 0; index < 80; index++) many[`m/f${String(index).padStart(3, '0')}.txt`] = `file number ${index}`;
    await writeFiles(files, many);
    await platform.close();
    platform = await openTestPlatform(dataDir, { crawler: { batchSize: 5 } });
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: join(files, 'm') }, sync: { trigger: 'manual' } });
    const handle = await platform.sync(notes);
    await new Promise<void>((resolve) => handle.once('progress', () => resolve()));
    await platform.close();
    const paused = await handle.result;
    expect(paused.state).toBe('paused');

    platform = await openTestPlatform(dataDir);
    await platform.startSync();
    const hostId = (await platform.networks.hostRecord(notes)).id;
    await vi.waitFor(async () => expect(await platform.store.catalog.getRun(paused.id)).toMatchObject({ state: 'completed' }), { timeout: 10_000 });
    expect(await platform.store.catalog.countEntries(hostId)).toBe(80);
    expect(await platform.store.catalog.unfinishedRun(hostId)).toBeNull();
  });
});
