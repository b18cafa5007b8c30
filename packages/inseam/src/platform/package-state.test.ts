/**
 * A package's enabled/auto state per network, as the platform keeps it, through the real loader:
 * a `_packages/` drop's init(ctx).packageState() answers what the platform says for its network
 * (never "enabled" by default), a runtime-gated kind answers isRuntimeActive() from it without
 * its runtime ever starting, and the runtime-stack block says an in-process MCP connector's tools
 * are available only while the package is on the network's hosting enable list.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorInitContext } from '@neuralis/package-system/contracts';
import { FsService } from '../fs/service.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { openTestPlatform, removeDir, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const GATED_DROP = fileURLToPath(new URL('./__fixtures__/gated-drop', import.meta.url));
const fixture = (): { starts: number; checks: number; context: ConnectorInitContext | undefined } =>
  ((globalThis as { __gatedFixture?: { starts: number; checks: number; context: ConnectorInitContext | undefined } }).__gatedFixture ??= { starts: 0, checks: 0, context: undefined });

let dataDir: string;
let platform: Platform;
let fs: FsService;

beforeAll(async () => {
  dataDir = await tempDir('package-state');
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.init('work');
  const root = platform.paths.networkRoot('home');
  await mkdir(join(root, '_packages'), { recursive: true });
  await cp(GATED_DROP, join(root, '_packages', 'gated'), { recursive: true });
  const scan = await platform.loader.scanProjectPackages(root, { projectId: 'home', trustFor: () => 'trusted' });
  expect(scan.failed, JSON.stringify(scan.failed)).toEqual([]);
  await platform.store.hosts.create('home', { slug: 'desk', kind: 'gated', label: 'Desk', description: 'A gated desk.', origin: 'test.gated' });
  fs = new FsService(platform);
}, 60_000);

afterAll(async () => {
  await platform?.close();
  await removeDir(dataDir);
});

async function desk(): Promise<unknown> {
  return (await fs.hosts(callerOf('ann'))).find((host) => host.slug === 'desk')?.status;
}

describe('packageState()', () => {
  it('answers the state the platform keeps for the network, not "enabled" by default', () => {
    const context = fixture().context!;
    expect(context.projectId).toBe('home');
    expect(context.packageState()).toEqual({ enabled: false, auto: false });
    platform.packageStates.enable('home', 'test.gated', { auto: true });
    expect(context.packageState()).toEqual({ enabled: true, auto: true });
    expect(context.packageState({ projectId: 'home' })).toEqual({ enabled: true, auto: true });
    platform.packageStates.enable('home', 'test.gated');
    expect(context.packageState()).toEqual({ enabled: true, auto: false });
    platform.packageStates.disable('home', 'test.gated');
    expect(context.packageState()).toEqual({ enabled: false, auto: false });
    // A drop loaded for home cannot read another network's state.
    expect(() => context.packageState({ projectId: 'work' })).toThrow(expect.objectContaining({ code: 'permission_denied' }));
  });

  it('drives a runtime-gated kind\'s isRuntimeActive() without starting its runtime', async () => {
    const state = fixture();
    state.starts = 0;
    state.checks = 0;
    expect(await desk()).toMatchObject({ state: 'offline', reason: 'runtime_offline', runtimeActive: false });
    expect(state.checks).toBeGreaterThan(0);
    expect(state.starts).toBe(0);

    platform.packageStates.enable('home', 'test.gated');
    expect(await desk()).toMatchObject({ state: 'online', runtimeActive: true });
    expect(state.starts).toBe(0);
    expect((await fs.list(callerOf('ann'), 'desk://')).entries.map((entry) => entry.name)).toEqual(['live.txt']);
    expect(state.starts).toBe(1);

    platform.packageStates.disable('home', 'test.gated');
    expect(await desk()).toMatchObject({ state: 'offline', reason: 'runtime_offline', runtimeActive: false });
    expect(state.starts).toBe(1);
  });

  it('is what the runtime-stack block says of an in-process MCP connector', async () => {
    const line = async (): Promise<string | undefined> => (await fs.runtimeStack(callerOf('ann'))).split('\n').find((text) => text.startsWith('- test.gated'));
    expect(await line()).toContain("MCP connector gated-tools (Gated tools, in-process: its tools are hosted by this package, available only while the package is on this network's hosting enable list (it is not))");
    platform.packageStates.enable('home', 'test.gated');
    expect(await line()).toContain("hosting enable list (it is))");
    // Another network never lists a drop of home.
    expect(await fs.runtimeStack(callerOf('ann', { network: 'work' }))).not.toContain('test.gated');
  });
});
