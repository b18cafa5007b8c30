import { describe, expect, it } from 'vitest';
import type { ConnectorPort, PackageTrust, SourceConnectorEntry } from '../contracts/index.js';
import { InvalidConfigError, TrustViolationError } from '../contracts/index.js';
import { gate, notionEntry } from '../loader/__fixtures__/support.js';
import { ConnectorRegistry, type ConnectorKindRuntime, type ValidatedBindingRequest } from './connector-registry.js';
import { SourceKindRegistry } from './source-kind-registry.js';

type Instantiate = (request: ValidatedBindingRequest) => Promise<ConnectorPort>;

function fakePort(request: ValidatedBindingRequest): ConnectorPort {
  return Object.freeze({
    kind: request.kind,
    source: request.source,
    portVersion: 4,
    config: request.config,
    capabilities: () => new Set(['list', 'read'] as const),
    list: async () => ({ entries: [] }),
    read: async () => ({ text: String(request.config['workspaceId']), mime: 'text/plain', size: 1 }),
  });
}

function runtime(entry: SourceConnectorEntry, options: { packageId?: string; trust?: PackageTrust; instantiate?: Instantiate } = {}): ConnectorKindRuntime {
  return {
    kind: entry.kind,
    packageId: options.packageId ?? 'notion-pkg',
    trust: options.trust ?? 'trusted',
    entry,
    instantiate: options.instantiate ?? (async (request) => fakePort(request)),
  };
}

function setup(instantiate?: Instantiate) {
  const sourceKinds = new SourceKindRegistry();
  const connectors = new ConnectorRegistry(sourceKinds);
  const entry = notionEntry();
  sourceKinds.register({ packageId: 'notion-pkg', trust: 'trusted', entry });
  connectors.registerKind(runtime(entry, instantiate === undefined ? {} : { instantiate }));
  return { sourceKinds, connectors, entry };
}

const request = (source: string, workspaceId = 'w1') => ({ source, kind: 'notion', config: { workspaceId }, scope: 'project' as const });

describe('ConnectorRegistry', () => {
  it('"an untrusted package is rejected ... again at runtime registration"', () => {
    const { connectors } = setup();
    const entry = notionEntry({ kind: 'evil', id: 'evil' });
    for (const trust of ['untrusted', 'sandboxed'] as const) {
      expect(() => connectors.registerKind(runtime(entry, { packageId: 'evil-pkg', trust }))).toThrow(TrustViolationError);
    }
    expect(connectors.hasKind('evil')).toBe(false);
  });

  it('"one entry per kind": another package cannot take a registered kind; a runtime must carry its own entry', () => {
    const { connectors, entry } = setup();
    expect(() => connectors.registerKind(runtime(entry, { packageId: 'other-pkg' }))).toThrow(expect.objectContaining({ code: 'already_exists' }));
    expect(() => connectors.registerKind({ ...runtime(entry), kind: 'jira' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(connectors.resolve('notion')).toEqual({ kind: 'notion', packageId: 'notion-pkg', trust: 'trusted', entry });
    expect(() => connectors.resolve('jira')).toThrow(expect.objectContaining({ code: 'kind_not_registered' }));
  });

  it('runtimeOf hands out the registered runtime, so a second registry (another project) binds the same slug on its own', async () => {
    const { connectors, sourceKinds } = setup();
    expect(() => connectors.runtimeOf('jira')).toThrow(expect.objectContaining({ code: 'kind_not_registered' }));
    const other = new ConnectorRegistry(sourceKinds);
    other.registerKind(connectors.runtimeOf('notion'));
    const here = await connectors.bindSource(request('notes', 'w1'));
    const there = await other.bindSource(request('notes', 'w2'));
    expect(here).not.toBe(there);
    expect((await connectors.resolveBySource('notes').read('notes://x')).text).toBe('w1');
    expect((await other.resolveBySource('notes').read('notes://x')).text).toBe('w2');
  });

  it('"per-source bindings (resolve(kind), resolveBySource(source))": a bound source resolves to its instance', async () => {
    const { connectors } = setup();
    const instance = await connectors.bindSource(request('notes'));
    expect(connectors.resolveBySource('notes')).toBe(instance);
    expect(connectors.bindings()).toEqual([{ source: 'notes', kind: 'notion', state: 'bound' }]);
  });

  it('"Unregistering a kind clears every source binding that uses it"', async () => {
    const { connectors, sourceKinds } = setup();
    const other = notionEntry({ kind: 'jira', id: 'jira' });
    sourceKinds.register({ packageId: 'jira-pkg', trust: 'trusted', entry: other });
    connectors.registerKind(runtime(other, { packageId: 'jira-pkg' }));
    await connectors.bindSource(request('a'));
    await connectors.bindSource(request('b'));
    await connectors.bindSource({ ...request('c'), kind: 'jira' });
    expect(connectors.unregister('notion')).toEqual(['a', 'b']);
    expect(connectors.bindings().map(({ source, state }) => [source, state])).toEqual([
      ['a', 'detached'],
      ['b', 'detached'],
      ['c', 'bound'],
    ]);
    // The metadata is still there: a runtime problem, not an orphan.
    expect(() => connectors.resolveBySource('a')).toThrow(expect.objectContaining({ code: 'kind_not_registered' }));
    sourceKinds.unregister('notion');
    expect(() => connectors.resolveBySource('a')).toThrow(expect.objectContaining({ code: 'orphan_source' }));
    expect(connectors.resolveBySource('c').kind).toBe('jira');
  });

  it('"orphan sources (metadata gone, config still on disk) distinguishable from runtime failures": a factory that threw is connector_failed with its cause', async () => {
    const cause = new Error('socket hang up');
    const { connectors, sourceKinds } = setup(async () => {
      throw cause;
    });
    const error = await connectors.bindSource(request('notes')).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'connector_failed', cause });
    expect(() => connectors.resolveBySource('notes')).toThrow(expect.objectContaining({ code: 'connector_failed' }));
    sourceKinds.unregister('notion');
    await expect(connectors.bindSource(request('other'))).rejects.toMatchObject({ code: 'orphan_source' });
    expect(() => connectors.resolveBySource('other')).toThrow(expect.objectContaining({ code: 'orphan_source' }));
  });

  it('the config is validated against the kind\'s configSchema before instantiate runs', async () => {
    let calls = 0;
    const { connectors } = setup(async (bound) => {
      calls += 1;
      return fakePort(bound);
    });
    await expect(connectors.bindSource({ ...request('notes'), config: { workspaceId: '' } })).rejects.toBeInstanceOf(InvalidConfigError);
    expect(calls).toBe(0);
  });

  it('malformed requests are invalid_argument: a slug that is no URI scheme, an unknown scope, a scope the kind does not allow', async () => {
    const { connectors, sourceKinds, entry } = setup();
    await expect(connectors.bindSource({ ...request('Not A Slug') })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(connectors.bindSource({ ...request('notes'), scope: 'world' as never })).rejects.toMatchObject({ code: 'invalid_argument' });
    sourceKinds.register({ packageId: 'notion-pkg', trust: 'trusted', entry: { ...entry, allowedScopes: ['project'] } });
    await expect(connectors.bindSource({ ...request('notes'), scope: 'agent' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('attack: a bind that finishes after the source was re-bound is discarded — the latest bind wins', async () => {
    const held = gate();
    const { connectors } = setup(async (bound) => {
      if (bound.config['workspaceId'] === 'old') await held.promise;
      return fakePort(bound);
    });
    const stale = connectors.bindSource(request('notes', 'old'));
    const fresh = await connectors.bindSource(request('notes', 'new'));
    held.open();
    await expect(stale).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(connectors.resolveBySource('notes')).toBe(fresh);
  });

  it('while a source re-binds, its previous instance keeps serving; a first bind in progress is unavailable', async () => {
    const held = gate();
    let hold = false;
    const { connectors } = setup(async (bound) => {
      if (hold) await held.promise;
      return fakePort(bound);
    });
    const first = await connectors.bindSource(request('notes'));
    hold = true;
    const rebinding = connectors.bindSource(request('notes', 'w2'));
    const pendingOther = connectors.bindSource(request('other'));
    expect(connectors.resolveBySource('notes')).toBe(first);
    expect(() => connectors.resolveBySource('other')).toThrow(expect.objectContaining({ code: 'unavailable' }));
    held.open();
    expect(connectors.resolveBySource('notes')).toBe(first);
    const second = await rebinding;
    await pendingOther;
    expect(connectors.resolveBySource('notes')).toBe(second);
  });

  it('a source unbound while its factory runs is not brought back by the late result', async () => {
    const held = gate();
    const { connectors } = setup(async (bound) => {
      await held.promise;
      return fakePort(bound);
    });
    const pending = connectors.bindSource(request('notes'));
    expect(connectors.unbindSource('notes')).toBe(true);
    held.open();
    await expect(pending).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(() => connectors.resolveBySource('notes')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('a kind re-registered while binding discards the result; rebindKind binds every source again with its stored request', async () => {
    const held = gate();
    const { connectors, entry } = setup(async (bound) => {
      await held.promise;
      return fakePort(bound);
    });
    const original = { source: 'notes', kind: 'notion', config: { workspaceId: 'w1' }, scope: 'project' as const };
    const pending = connectors.bindSource(original);
    original.config.workspaceId = 'tampered';
    connectors.registerKind(runtime(entry));
    held.open();
    await expect(pending).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(connectors.bindings()[0]?.state).toBe('failed');
    await expect(connectors.rebindKind('notion')).resolves.toEqual([{ source: 'notes', ok: true }]);
    await expect(connectors.resolveBySource('notes').read('notes://')).resolves.toMatchObject({ text: 'w1' });
  });
});
