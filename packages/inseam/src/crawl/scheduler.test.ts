import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SourceSyncSettings } from '@neuralis/package-system/contracts';
import { SqliteStore, type CrawlRunRecord, type HostRef } from '../store/index.js';
import { MemoryHost, memoryDescription, object } from './__fixtures__/hosts.js';
import { Crawler, SyncScheduler, type CrawlHandle, type CrawlTarget } from './index.js';

const MINUTE = 60_000;
let store: SqliteStore;
let scheduler: SyncScheduler;
let runs: { ref: HostRef; handle: CrawlHandle }[];

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  store = SqliteStore.open({ path: ':memory:' });
  for (const network of ['home', 'work']) {
    await store.networks.create({ slug: network });
    for (const host of ['auto', 'manual', 'always']) await store.hosts.create(network, { slug: host, kind: 'memory' });
  }
  scheduler = new SyncScheduler({ crawler: new Crawler({ store: store.catalog }), defaultInterval: 'PT15M', rescanInterval: 'PT1H' });
  runs = [];
  scheduler.on('sync', (ref, handle) => runs.push({ ref, handle }));
});

afterEach(async () => {
  await scheduler.stop();
  vi.useRealTimers();
});

function target(network: string, host: string, sync: SourceSyncSettings | null, connector = new MemoryHost([object('a.md', 'alpha')])): CrawlTarget {
  return { ref: { network, host }, connector, description: memoryDescription, sync };
}

async function settle(): Promise<CrawlRunRecord[]> {
  return Promise.all(runs.map((run) => run.handle.result));
}

describe('SyncScheduler', () => {
  it('syncs an auto host at once, then every interval, with a full rescan when one is due', async () => {
    scheduler.add(target('home', 'auto', { trigger: 'auto', interval: 'PT20M' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toHaveLength(1);
    expect((await settle()).map((run) => run.mode)).toEqual(['full']);
    await vi.advanceTimersByTimeAsync(19 * MINUTE);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(MINUTE);
    await settle();
    await vi.advanceTimersByTimeAsync(20 * MINUTE);
    await settle();
    await vi.advanceTimersByTimeAsync(20 * MINUTE);
    const modes = (await settle()).map((run) => run.mode);
    // Added at 0: incremental at 20 and 40 minutes; at 60 the hour since the last full run is up.
    expect(modes).toEqual(['full', 'incremental', 'incremental', 'full']);
  });

  it('runs a manual host only when asked, and refuses an unknown one', async () => {
    const connector = new MemoryHost([object('a.md', 'alpha')]);
    scheduler.add(target('home', 'manual', { trigger: 'manual' }, connector));
    scheduler.add(target('home', 'auto', null));
    await vi.advanceTimersByTimeAsync(2 * 60 * MINUTE);
    expect(runs).toHaveLength(0);
    expect(connector.watching).toBe(0);
    const run = await scheduler.syncNow({ network: 'home', host: 'manual' }).result;
    expect(run.state).toBe('completed');
    expect(() => scheduler.syncNow({ network: 'home', host: 'nope' })).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('stops hosts of an inactive network, except alwaysActive ones, and picks them up again', async () => {
    const paused = new MemoryHost([object('a.md', 'alpha')]);
    const always = new MemoryHost([object('a.md', 'alpha')]);
    scheduler.add(target('work', 'auto', { trigger: 'auto' }, paused));
    scheduler.add(target('work', 'always', { trigger: 'auto', alwaysActive: true }, always));
    await vi.advanceTimersByTimeAsync(0);
    await settle();
    expect(paused.watching).toBe(1);
    scheduler.setActive('work', false);
    await vi.advanceTimersByTimeAsync(0);
    expect(paused.watching).toBe(0);
    expect(always.watching).toBe(1);
    const before = runs.length;
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    await settle();
    expect(runs.slice(before).map((run) => run.ref.host)).toEqual(['always', 'always']);
    scheduler.setActive('work', true);
    await vi.advanceTimersByTimeAsync(0);
    await settle();
    expect(runs.at(-1)?.ref.host).toBe('auto');
    expect(paused.watching).toBe(1);
  });

  it('applies watch events for an auto host', async () => {
    const connector = new MemoryHost([object('a.md', 'alpha')]);
    scheduler.add(target('home', 'auto', { trigger: 'auto' }, connector));
    await vi.advanceTimersByTimeAsync(0);
    await settle();
    const hostId = (await store.catalog.resolveHost({ network: 'home', host: 'auto' }))!;
    expect(await store.catalog.getEntry(hostId, 'b.md')).toBeNull();
    connector.put(object('b.md', 'beta'), true);
    await vi.waitFor(async () => expect(await store.catalog.getEntry(hostId, 'b.md')).not.toBeNull());
    expect(runs).toHaveLength(1);
  });

  it('refuses bad settings with invalid_config', () => {
    expect(() => scheduler.add(target('home', 'auto', { trigger: 'auto', interval: '15 minutes' }))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => scheduler.add(target('home', 'auto', { trigger: 'auto', exclude: ['/abs/**'] }))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => new SyncScheduler({ crawler: new Crawler({ store: store.catalog }), rescanInterval: 'P0D' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('pauses a running crawl when stopped, leaving it to resume', async () => {
    const connector = new MemoryHost(Array.from({ length: 50 }, (_, i) => object(`f${i}.md`, `file ${i}`)), { pageSize: 5 });
    let release: () => void = () => undefined;
    connector.beforePage = (page) => (page === 2 ? new Promise<void>((resolve) => (release = resolve)) : undefined);
    scheduler.add(target('home', 'auto', { trigger: 'auto' }, connector));
    await vi.advanceTimersByTimeAsync(0);
    await vi.waitFor(() => expect(connector.calls.list.length).toBe(3));
    const stopping = scheduler.stop();
    release();
    await stopping;
    const [run] = await settle();
    expect(run?.state).toBe('paused');
  });
});
