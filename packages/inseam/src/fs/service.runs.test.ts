/**
 * Exec and detached runs through the filesystem service on a real `fs` host: the permission tree,
 * then the loader's entry check and the cwd's path policy; a port that bypassed the loader never
 * runs a command; detached runs are read and stopped by their owner — even after the owner lost
 * the entry feature — and by nobody else, whatever identity the request carries.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFsConnector } from '@inseam/connector-fs';
import { callerOf, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';
import { FsService } from './service.js';

let fixture: FsFixture;
const runner = callerOf('ann', { features: ['exec.machine'] });
const annWithoutFeature = callerOf('ann');
const bob = callerOf('bob', { features: ['exec.machine'] });

beforeAll(async () => {
  fixture = await openFsFixture({ files: { 'work/hello.txt': 'hi there', 'other/x.txt': 'x' } });
  await fixture.platform.networks.addHost({
    network: 'home',
    slug: 'box',
    kind: 'fs',
    config: { root: fixture.files },
    permissions: { default: { read: true, write: true, exec: false }, paths: { work: { exec: true } } },
  });
});

afterAll(async () => {
  await fixture.close();
});

describe('exec', () => {
  it('runs where the tree grants exec and the session has the entry feature', async () => {
    const ran = await fixture.fs.exec(runner, { command: 'cat hello.txt', cwd: 'inseam://home/box/work' });
    expect(ran).toMatchObject({ exitCode: 0, stdout: 'hi there', truncated: false });
  });

  it('refuses a session without the entry feature, even when the request carries a session that has it', async () => {
    await expect(fixture.fs.exec(annWithoutFeature, { command: 'touch pwned', cwd: 'box://work' })).rejects.toMatchObject({
      code: 'permission_denied',
      details: { missingFeatures: ['exec.machine'] },
    });
    const forged = { command: 'touch pwned', cwd: 'box://work', session: { userId: 'ann', projectId: 'home', features: new Set(['exec.machine']) } };
    await expect(fixture.fs.exec(annWithoutFeature, forged)).rejects.toMatchObject({ code: 'permission_denied', details: { missingFeatures: ['exec.machine'] } });
    expect(existsSync(join(fixture.files, 'work', 'pwned'))).toBe(false);
  });

  it('refuses a cwd outside the exec grant and a background request', async () => {
    await expect(fixture.fs.exec(runner, { command: 'ls', cwd: 'box://other' })).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'exec' } });
    await expect(fixture.fs.exec(runner, { command: 'ls', cwd: 'box://work', background: true } as never)).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'background' } });
  });

  it('never runs a command through a port the loader did not bind for the host', async () => {
    const record = (await fixture.platform.store.hosts.get({ network: 'home', host: 'box' }))!;
    // The connector itself, straight from its factory: no entry guard, no provenance.
    const raw = createFsConnector({ packageId: '@inseam/connector-fs', packageRoot: fixture.files, source: 'box', config: record.config, projectRoot: fixture.platform.paths.networkRoot('home'), scope: 'project' });
    const bypass = new FsService({ ...fixture.platform, store: fixture.platform.store, catalog: fixture.platform.catalog, search: fixture.platform.search, loader: fixture.platform.loader, paths: fixture.platform.paths, requestCrawl: fixture.platform.requestCrawl.bind(fixture.platform), kinds: { openPort: async () => raw, openHost: (host) => fixture.platform.kinds.openHost(host), permissionsOf: (host, baselines) => fixture.platform.kinds.permissionsOf(host, baselines), concealment: (host) => fixture.platform.kinds.concealment(host), crawlTarget: (host) => fixture.platform.kinds.crawlTarget(host) } });
    await expect(bypass.exec(runner, { command: 'touch bypassed', cwd: 'box://work' })).rejects.toMatchObject({
      code: 'permission_denied',
      message: expect.stringContaining("loader's exec guard"),
      details: { host: 'box' },
    });
    await expect(bypass.startRun(runner, { command: 'touch bypassed', cwd: 'box://work' })).rejects.toMatchObject({ code: 'permission_denied', details: { host: 'box' } });
    expect(existsSync(join(fixture.files, 'work', 'bypassed'))).toBe(false);
  });
});

describe('detached runs', () => {
  it('lets the owner read and stop its run after losing the entry feature; nobody else can', async () => {
    const run = await fixture.fs.startRun(runner, { command: 'echo started; sleep 30', cwd: 'box://work' });
    expect(run).toMatchObject({ network: 'home', host: 'box', userId: 'ann', agentId: null });

    await vi.waitFor(async () => expect((await fixture.fs.runOutput(annWithoutFeature, run.runId)).data).toContain('started'));
    expect(await fixture.fs.runStatus(annWithoutFeature, run.runId)).toMatchObject({ runId: run.runId, state: 'running', host: 'box' });

    for (const attempt of [
      () => fixture.fs.runStatus(bob, run.runId),
      () => fixture.fs.runOutput(bob, run.runId),
      () => fixture.fs.killRun(bob, run.runId),
      () => fixture.fs.releaseRun(bob, run.runId),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'permission_denied', details: { runId: run.runId } });
    }
    // Another network's caller with the same user id does not own it either.
    await fixture.platform.networks.init('work');
    await expect(fixture.fs.runStatus(callerOf('ann', { network: 'work' }), run.runId)).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await fixture.fs.runStatus(annWithoutFeature, run.runId)).state).toBe('running');
    expect(await fixture.fs.runs(bob)).toEqual([]);
    expect((await fixture.fs.runs(annWithoutFeature)).map((owned) => owned.runId)).toEqual([run.runId]);

    expect(await fixture.fs.killRun(annWithoutFeature, run.runId)).toEqual({ acknowledged: true });
    await vi.waitFor(async () => expect((await fixture.fs.runStatus(annWithoutFeature, run.runId, { waitMs: 1000 })).state).toBe('killed'), { timeout: 10_000 });
    await fixture.fs.releaseRun(annWithoutFeature, run.runId);
    await expect(fixture.fs.runStatus(annWithoutFeature, run.runId)).rejects.toMatchObject({ code: 'not_found' });
    expect(await fixture.fs.runs(annWithoutFeature)).toEqual([]);
  });

  it('checks the entry feature on start, and records nothing when refused', async () => {
    await expect(fixture.fs.startRun(annWithoutFeature, { command: 'touch started-anyway', cwd: 'box://work' })).rejects.toMatchObject({
      code: 'permission_denied',
      details: { missingFeatures: ['exec.machine'] },
    });
    await expect(fixture.fs.startRun(runner, { command: 'true', cwd: 'box://other' })).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'exec' } });
    expect(existsSync(join(fixture.files, 'work', 'started-anyway'))).toBe(false);
    expect(await fixture.fs.runs(runner)).toEqual([]);
  });

  it('records the authenticated owner, whatever identity the request carries', async () => {
    const forged = { command: 'true', cwd: 'box://work', userId: 'mallory', agentId: 'mallory-agent', session: { userId: 'mallory', projectId: 'home', features: new Set(['exec.machine']) } };
    const run = await fixture.fs.startRun(runner, forged);
    expect(run).toMatchObject({ userId: 'ann', agentId: null });
    expect((await fixture.platform.store.detachedRuns.get(run.runId))?.userId).toBe('ann');
    await expect(fixture.fs.runStatus(callerOf('mallory'), run.runId)).rejects.toMatchObject({ code: 'permission_denied' });
    await fixture.fs.releaseRun(runner, run.runId);
  });

  it("gives a user its agents' runs, and an agent only its own", async () => {
    const agent = callerOf('ann', { agentId: 'helper', features: ['exec.machine'], grants: [{ right: 'exec', address: 'inseam://home/box/work' }] });
    const run = await fixture.fs.startRun(agent, { command: 'true', cwd: 'box://work' });
    expect(run).toMatchObject({ userId: 'ann', agentId: 'helper' });
    await expect(fixture.fs.runStatus(callerOf('ann', { agentId: 'other-agent' }), run.runId)).rejects.toMatchObject({ code: 'permission_denied' });
    expect(await fixture.fs.runs(callerOf('ann', { agentId: 'other-agent' }))).toEqual([]);
    await expect(fixture.fs.runStatus(annWithoutFeature, run.runId)).resolves.toMatchObject({ runId: run.runId });
    await fixture.fs.releaseRun(callerOf('ann', { agentId: 'helper' }), run.runId);
    await expect(fixture.fs.runOutput(agent, run.runId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(fixture.fs.runStatus(annWithoutFeature, 'no-such-run')).rejects.toMatchObject({ code: 'not_found' });
  });
});
