import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectorError, ConnectorPort, CredentialResolver, ExecRequest } from '../contracts/index.js';
import { ConnectorFailedError, PermissionDeniedError } from '../contracts/index.js';
import { PackageLoader, type PackageLoaderOptions } from './package-loader.js';
import { getConnectorBindingProvenance } from './provenance.js';
import { copyFixture, fixture, fixtureLog, gate, resetFixtureLog, session, tempDir } from './__fixtures__/support.js';

const PROJECT_ROOT = '/srv/projects/p1';
const SHELL_FEATURES = ['exec.machine', 'exec.shell'];

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const outcome = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(outcome, 'expected a rejection').toBeDefined();
  return outcome as ConnectorError;
}

async function loaded(options: PackageLoaderOptions = {}, ...packages: string[]): Promise<PackageLoader> {
  const loader = new PackageLoader({ execPathPolicy: () => true, ...options });
  for (const name of packages) await loader.loadPackage(fixture(name), { trust: 'trusted' });
  return loader;
}

function bind(loader: PackageLoader, source: string, kind: string, extra: { config?: unknown; projectRoot?: string } = {}): Promise<ConnectorPort> {
  return loader.bindSource({ source, kind, config: extra.config ?? {}, scope: 'project', ...(extra.projectRoot === undefined ? {} : { projectRoot: extra.projectRoot }) });
}

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  resetFixtureLog();
  dir = await tempDir();
});
afterEach(() => dir.remove());

describe('loading a package', () => {
  it('"An installed package\'s manifest is read when it loads at boot": its kinds\' metadata and runtimes are registered', async () => {
    const loader = await loaded({}, 'notes-pkg');
    expect(loader.getPackage('fixture-notes')).toMatchObject({ packageId: 'fixture-notes', version: '1.0.0', trust: 'trusted', kinds: ['notes'] });
    expect(loader.sourceKinds.get('notes')).toMatchObject({
      kind: 'notes',
      label: 'Notes',
      category: 'api',
      capabilities: ['list', 'read', 'write', 'stat'],
      allowedScopes: ['project', 'user'],
      runtimeGated: false,
      factory: './dist/notes-connector.js#createNotesConnector',
      providerPackageId: 'fixture-notes',
      providerTrust: 'trusted',
    });
    expect(loader.connectors.resolve('notes')).toMatchObject({ kind: 'notes', packageId: 'fixture-notes', trust: 'trusted' });
  });

  it('trust is given by the caller (the installer), never read from the manifest', async () => {
    const firstParty = new PackageLoader();
    await firstParty.loadPackage(fixture('notes-pkg'), { trust: 'first-party' });
    expect(firstParty.getPackage('fixture-notes')?.trust).toBe('first-party');
    expect(firstParty.sourceKinds.get('notes')?.providerTrust).toBe('first-party');
    const instance = await bind(firstParty, 'n', 'notes', { config: { folder: 'a' } });
    expect(getConnectorBindingProvenance(instance)?.providerTrust).toBe('first-party');

    await expect(new PackageLoader().loadPackage(fixture('notes-pkg'), {} as never)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('"A manifest never states its own trust": a `trust` key in the manifest is ignored in both directions', async () => {
    const root = await copyFixture('notes-pkg', join(dir.path, 'claims-first-party'));
    const packageJson = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { neuralis: Record<string, unknown> };
    packageJson.neuralis['trust'] = 'first-party';
    await writeFile(join(root, 'package.json'), JSON.stringify(packageJson));
    const loader = new PackageLoader();
    await loader.loadPackage(root, { trust: 'trusted' });
    expect(loader.getPackage('fixture-notes')?.trust).toBe('trusted');
    expect(getConnectorBindingProvenance(await bind(loader, 'n', 'notes', { config: { folder: 'a' } }))?.providerTrust).toBe('trusted');
    const error = await failure(new PackageLoader().loadPackage(root, { trust: 'untrusted' }));
    expect(['manifest_invalid', 'trust_violation']).toContain(error.code);
  });

  it('"an untrusted package is rejected at manifest validation": its source connector module is never imported', async () => {
    const root = await copyFixture('notes-pkg', join(dir.path, 'notes-copy'));
    const before = fixtureLog().imports['notes-connector'] ?? 0;
    for (const trust of ['untrusted', 'sandboxed'] as const) {
      const error = await failure(new PackageLoader().loadPackage(root, { trust }));
      expect(['manifest_invalid', 'trust_violation']).toContain(error.code);
    }
    expect(fixtureLog().imports['notes-connector'] ?? 0).toBe(before);
  });

  it('an untrusted package cannot run in-process code through `main` either', async () => {
    await writeFile(join(dir.path, 'package.json'), JSON.stringify({ name: 'data-only', type: 'module', neuralis: { main: './main.js' } }));
    await writeFile(join(dir.path, 'main.js'), 'globalThis.__untrustedMainRan = true; export function init() {}\n');
    await expect(new PackageLoader().loadPackage(dir.path, { trust: 'untrusted' })).rejects.toMatchObject({ code: 'trust_violation' });
    expect((globalThis as { __untrustedMainRan?: boolean }).__untrustedMainRan).toBeUndefined();
  });

  it('a folder without package.json or without a "neuralis" block is manifest_invalid; a missing folder is not_found', async () => {
    await expect(new PackageLoader().loadPackage(dir.path, { trust: 'trusted' })).rejects.toMatchObject({ code: 'manifest_invalid' });
    await writeFile(join(dir.path, 'package.json'), JSON.stringify({ name: 'plain' }));
    await expect(new PackageLoader().loadPackage(dir.path, { trust: 'trusted' })).rejects.toMatchObject({
      code: 'manifest_invalid',
      issues: [expect.objectContaining({ path: 'neuralis' })],
    });
    const missing = await failure(new PackageLoader().loadPackage(join(dir.path, 'nope'), { trust: 'trusted' }));
    expect(missing.code).toBe('not_found');
    expect(missing.message).not.toContain(dir.path);
  });

  it('a package id or kind already loaded is already_exists, and the registries are left untouched', async () => {
    const loader = await loaded({}, 'notes-pkg');
    await expect(loader.loadPackage(fixture('notes-pkg'), { trust: 'trusted' })).rejects.toMatchObject({ code: 'already_exists' });
    const copy = await copyFixture('notes-pkg', join(dir.path, 'other'));
    const manifest = JSON.parse(await readFile(join(copy, 'package.json'), 'utf8')) as { name: string };
    manifest.name = 'another-notes';
    await writeFile(join(copy, 'package.json'), JSON.stringify(manifest));
    await expect(loader.loadPackage(copy, { trust: 'trusted' })).rejects.toMatchObject({ code: 'already_exists' });
    expect(loader.sourceKinds.get('notes')?.providerPackageId).toBe('fixture-notes');
    expect(loader.getPackage('another-notes')).toBeUndefined();
  });
});

describe('factories', () => {
  it('"The loader dynamic-imports the MODULE once, when the kind is registered, and calls the FACTORY once per source binding"', async () => {
    const root = await copyFixture('notes-pkg', join(dir.path, 'notes-copy'));
    const log = fixtureLog();
    const before = log.imports['notes-connector'] ?? 0;
    const loader = new PackageLoader();
    await loader.loadPackage(root, { trust: 'trusted' });
    expect(log.imports['notes-connector']).toBe(before + 1);
    expect(log.events.filter((event) => event.startsWith('factory:'))).toEqual([]);
    for (const source of ['a', 'b', 'c']) await bind(loader, source, 'notes', { config: { folder: source } });
    expect(log.imports['notes-connector']).toBe(before + 1);
    expect(log.events.filter((event) => event.startsWith('factory:'))).toEqual(['factory:a', 'factory:b', 'factory:c']);
  });

  it('"The factory context carries exactly six fields": packageId, packageRoot, source, config, projectRoot, scope — frozen, no credentials', async () => {
    const loader = await loaded({}, 'notes-pkg');
    await loader.bindSource({ source: 'notes-u1', kind: 'notes', config: { folder: 'inbox' }, scope: 'user', projectRoot: `${PROJECT_ROOT}/` });
    const context = fixtureLog().contexts[0]!;
    expect(Object.keys(context).sort()).toEqual(['config', 'packageId', 'packageRoot', 'projectRoot', 'scope', 'source']);
    expect(context).toEqual({
      packageId: 'fixture-notes',
      packageRoot: loader.getPackage('fixture-notes')!.root,
      source: 'notes-u1',
      config: { folder: 'inbox' },
      projectRoot: PROJECT_ROOT,
      scope: 'user',
    });
    expect(Object.isFrozen(context)).toBe(true);
    expect(Object.isFrozen(context.config)).toBe(true);
  });

  it('"filesystem-only factories may omit" projectRoot: the context then has the five other fields', async () => {
    const loader = await loaded({}, 'notes-pkg');
    await bind(loader, 'n', 'notes', { config: { folder: 'x' } });
    expect(Object.keys(fixtureLog().contexts[0]!).sort()).toEqual(['config', 'packageId', 'packageRoot', 'scope', 'source']);
  });

  it('"the registry validates configs against" configSchema first: a bad config is invalid_config naming the field, and the factory never runs', async () => {
    const loader = await loaded({}, 'notes-pkg');
    const wrongType = await failure(bind(loader, 'n', 'notes', { config: { folder: 5 } }));
    expect(wrongType.code).toBe('invalid_config');
    expect(wrongType.message).toContain('folder');
    const typo = await failure(bind(loader, 'n', 'notes', { config: { folder: 'x', foldr: 'y' } }));
    expect(typo.message).toContain('foldr');
    expect(fixtureLog().events).not.toContain('factory:n');
  });

  it('a scope the kind does not allow is refused before the factory runs', async () => {
    const loader = await loaded({}, 'notes-pkg');
    await expect(loader.bindSource({ source: 'n', kind: 'notes', config: { folder: 'x' }, scope: 'agent' })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(fixtureLog().events).not.toContain('factory:n');
  });
});

describe('init(ctx) and credentials', () => {
  it('"reads it at runtime from the CredentialResolver the loader injects into init(ctx)": main\'s init runs once, before the first factory call', async () => {
    const resolveCredential = vi.fn<CredentialResolver['resolveCredential']>(async () => ({ value: 'token-1' }));
    const loader = await loaded({ credentials: () => ({ resolveCredential }), packageState: () => ({ enabled: true, auto: true }) }, 'notes-pkg');
    await bind(loader, 'a', 'notes', { config: { folder: 'a' } });
    await bind(loader, 'b', 'notes', { config: { folder: 'b' } });
    const log = fixtureLog();
    expect(log.events).toEqual(['init:fixture-notes', 'factory:a', 'factory:b']);
    expect(log.inits).toHaveLength(1);
    const context = log.inits[0]!;
    expect(Object.isFrozen(context)).toBe(true);
    expect(context.packageId).toBe('fixture-notes');
    expect(context.projectId).toBeUndefined();
    expect(context.packageState()).toEqual({ enabled: true, auto: true });
    await expect(context.credentials.resolveCredential('notes-token', { projectId: 'p1' })).resolves.toEqual({ value: 'token-1' });
    expect(resolveCredential).toHaveBeenCalledWith('notes-token', { projectId: 'p1' });
  });

  it('"packageState()" answers the platform\'s state for the project asked about (default: the one the package was loaded for), never starting anything', async () => {
    const asked: [string, string | undefined][] = [];
    const states: Record<string, { enabled: boolean; auto: boolean }> = { p1: { enabled: true, auto: true }, p2: { enabled: false, auto: false } };
    const loader = await loaded({ packageState: (packageId, projectId) => (asked.push([packageId, projectId]), states[projectId ?? ''] ?? { enabled: false, auto: false }) }, 'notes-pkg');
    await bind(loader, 'a', 'notes', { config: { folder: 'a' } });
    const context = fixtureLog().inits[0]!;
    expect(context.packageState()).toEqual({ enabled: false, auto: false });
    expect(context.packageState({ projectId: 'p1' })).toEqual({ enabled: true, auto: true });
    expect(context.packageState({ projectId: 'p2' })).toEqual({ enabled: false, auto: false });
    expect(asked).toEqual([
      ['fixture-notes', undefined],
      ['fixture-notes', 'p1'],
      ['fixture-notes', 'p2'],
    ]);
  });

  it('the injected resolver refuses a credential id the package did not declare, without asking the store', async () => {
    const resolveCredential = vi.fn<CredentialResolver['resolveCredential']>(async () => ({ value: 'x' }));
    await loaded({ credentials: () => ({ resolveCredential }) }, 'notes-pkg');
    await expect(fixtureLog().inits[0]!.credentials.resolveCredential('other-token', {})).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(resolveCredential).not.toHaveBeenCalled();
  });

  it('"(or the factory module) exports init": a factory module\'s init receives the context once', async () => {
    await loaded({}, 'shell-pkg');
    const log = fixtureLog();
    expect(log.events).toEqual(['init:fixture-shell']);
    expect(log.inits[0]?.packageId).toBe('fixture-shell');
  });

  it('an init that throws fails the load with connector_failed (cause kept) and registers nothing', async () => {
    const root = await copyFixture('notes-pkg', join(dir.path, 'notes-copy'));
    await writeFile(join(root, 'dist', 'main.js'), "export function init() { throw new Error('no network'); }\n");
    const loader = new PackageLoader();
    const error = await failure(loader.loadPackage(root, { trust: 'trusted' }));
    expect(error).toBeInstanceOf(ConnectorFailedError);
    expect((error.cause as Error).message).toBe('no network');
    expect(loader.sourceKinds.has('notes')).toBe(false);
    expect(loader.connectors.hasKind('notes')).toBe(false);
  });
});

describe('instance checks', () => {
  it('"throws ConnectorCapabilityMismatch on any divergence": declared write without a write member', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const error = await failure(bind(loader, 'l', 'liar'));
    expect(error.code).toBe('capability_mismatch');
    expect(error.details['missingMembers']).toEqual(['write']);
    await expect(Promise.resolve().then(() => loader.connectors.resolveBySource('l'))).rejects.toMatchObject({ code: 'capability_mismatch' });
  });

  it('an undeclared delete method is a mismatch, so the method can never be reached', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const error = await failure(bind(loader, 'o', 'overreach'));
    expect(error.details['undeclaredMembers']).toEqual(['delete']);
  });

  it('"a capability without the facet and a facet without the capability are the same error"', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const facetless = await failure(bind(loader, 'f', 'facetless', { projectRoot: PROJECT_ROOT }));
    expect(facetless.code).toBe('capability_mismatch');
    expect(facetless.details['missingMembers']).toEqual(['detached']);
    const stowaway = await failure(bind(loader, 's', 'stowaway', { projectRoot: PROJECT_ROOT }));
    expect(stowaway.code).toBe('capability_mismatch');
    expect(stowaway.details['undeclaredMembers']).toEqual(['detached']);
  });

  it('attack: a connector whose capabilities() changes between calls is asked once and held to its first answer', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const instance = await bind(loader, 'sh', 'shifty');
    for (let i = 0; i < 3; i++) expect([...instance.capabilities()]).toEqual(['list', 'read']);
    expect(fixtureLog().capabilityCalls['sh']).toBe(1);
    expect(instance.capabilities()).toBe(instance.capabilities());
  });

  it('"v1 execution signatures are rejected without an adapter"', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const error = await failure(bind(loader, 'old', 'legacy', { projectRoot: PROJECT_ROOT }));
    expect(error.code).toBe('port_version_unsupported');
    expect(fixtureLog().events.some((event) => event.startsWith('legacy:'))).toBe(false);
  });

  it('an explicitly registered v1 adapter is accepted, and its exec is still guarded by the entry features', async () => {
    const loader = await loaded({}, 'attack-pkg');
    loader.registerPortAdapter(1, (instance) => {
      const old = instance as { kind: string; source: string; list: ConnectorPort['list']; read: ConnectorPort['read']; exec: (command: string, cwd: string) => ReturnType<NonNullable<ConnectorPort['exec']>> };
      return {
        kind: old.kind,
        source: old.source,
        portVersion: 4,
        capabilities: () => new Set(['list', 'read', 'exec'] as const),
        list: (uri, options) => old.list(uri, options),
        read: (uri, options) => old.read(uri, options),
        exec: (request: ExecRequest) => old.exec(request.command, request.cwd),
      };
    });
    const instance = await bind(loader, 'old', 'legacy', { projectRoot: PROJECT_ROOT });
    await expect(instance.exec!({ command: 'ls', cwd: 'old://' }, { session: session() })).rejects.toMatchObject({ code: 'permission_denied' });
    expect(fixtureLog().events.some((event) => event.startsWith('legacy:'))).toBe(false);
    await expect(instance.exec!({ command: 'ls', cwd: 'old://' }, { session: session('exec.machine') })).resolves.toMatchObject({ stdout: 'ls' });
    expect(fixtureLog().events).toContain('legacy:exec:ls:old://');
  });

  it('an unknown port version is port_version_unsupported', async () => {
    const loader = await loaded({}, 'attack-pkg');
    await expect(bind(loader, 'fut', 'future')).rejects.toMatchObject({ code: 'port_version_unsupported' });
  });

  it('an instance that reports another source than it was created for is binding_conflict', async () => {
    const loader = await loaded({}, 'attack-pkg');
    await expect(bind(loader, 'imp', 'impostor')).rejects.toMatchObject({ code: 'binding_conflict' });
  });
});

describe('binding provenance', () => {
  it('"The loader snapshots provider id/trust, kind, source, project root, scope and the declared entry ids ... getConnectorBindingProvenance exposes this immutable record"', async () => {
    const loader = await loaded({}, 'shell-pkg');
    const instance = await bind(loader, 'box', 'shell', { projectRoot: PROJECT_ROOT });
    const provenance = getConnectorBindingProvenance(instance);
    expect(provenance).toEqual({
      providerPackageId: 'fixture-shell',
      providerTrust: 'trusted',
      kind: 'shell',
      source: 'box',
      projectRoot: PROJECT_ROOT,
      scope: 'project',
      execRequires: SHELL_FEATURES,
    });
    expect(Object.isFrozen(provenance)).toBe(true);
    expect(Object.isFrozen(provenance?.execRequires)).toBe(true);
    expect(loader.connectors.resolveBySource('box')).toBe(instance);
    expect(Object.isFrozen(instance)).toBe(true);
  });

  it('"stamps only a successfully checked instance": a refused instance has no provenance', async () => {
    const loader = await loaded({}, 'attack-pkg');
    await failure(bind(loader, 'l', 'liar'));
    expect(getConnectorBindingProvenance(fixtureLog().instances['l'])).toBeUndefined();
  });

  it('"Exec factories require an absolute projectRoot": without one (or with a relative one) the factory never runs', async () => {
    const loader = await loaded({}, 'shell-pkg');
    await expect(bind(loader, 'box', 'shell')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(bind(loader, 'box', 'shell', { projectRoot: 'projects/p1' })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(fixtureLog().events.filter((event) => event.startsWith('factory:'))).toEqual([]);
  });

  it('attack: "Reusing one instance for a different binding is refused" — a factory returning the same instance for two sources', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const first = await bind(loader, 'one', 'singleton');
    const error = await failure(bind(loader, 'two', 'singleton'));
    expect(error.code).toBe('binding_conflict');
    expect(loader.connectors.resolveBySource('one')).toBe(first);
    expect(() => loader.connectors.resolveBySource('two')).toThrow(expect.objectContaining({ code: 'binding_conflict' }));
  });

  it('attack: a factory that mutates a previously stamped instance to look like the new source is refused, and the first binding keeps its identity', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const first = await bind(loader, 'one', 'chameleon');
    await expect(bind(loader, 'two', 'chameleon')).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(first.source).toBe('one');
    expect(getConnectorBindingProvenance(first)?.source).toBe('one');
  });

  it('attack: a factory that resolves after the source was re-bound is discarded; the newer binding stays', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const log = fixtureLog();
    const held = gate();
    log.gates['s'] = held.promise;
    const stale = bind(loader, 's', 'slow', { config: { label: 'old' } });
    await vi.waitFor(() => expect(log.events).toContain('slow:start:s:old'));
    delete log.gates['s'];
    const fresh = await bind(loader, 's', 'slow', { config: { label: 'new' } });
    held.open();
    const error = await failure(stale);
    expect(error.code).toBe('binding_conflict');
    expect(loader.connectors.resolveBySource('s')).toBe(fresh);
    await expect(fresh.read('s://')).resolves.toMatchObject({ text: 'new' });
  });

  it('attack: the kind is unloaded while its factory runs — the late instance is discarded and the source is an orphan', async () => {
    const loader = await loaded({}, 'attack-pkg');
    const log = fixtureLog();
    const held = gate();
    log.gates['s'] = held.promise;
    const pending = bind(loader, 's', 'slow', { config: { label: 'x' } });
    await vi.waitFor(() => expect(log.events).toContain('slow:start:s:x'));
    await loader.unloadPackage('fixture-attack');
    held.open();
    await expect(pending).rejects.toMatchObject({ code: 'binding_conflict' });
    expect(() => loader.connectors.resolveBySource('s')).toThrow(expect.objectContaining({ code: 'orphan_source' }));
  });
});

describe('exec through a bound instance', () => {
  async function shell(policy: PackageLoaderOptions['execPathPolicy'] = () => true) {
    const loader = await loaded({ execPathPolicy: policy }, 'shell-pkg');
    return bind(loader, 'box', 'shell', { projectRoot: PROJECT_ROOT });
  }

  it('attack: an exec call whose session lacks one of two required features — connector code does not run', async () => {
    const instance = await shell();
    const error = await failure(instance.exec!({ command: 'cat /etc/shadow', cwd: 'box://' }, { session: session('exec.machine') }));
    expect(error.code).toBe('permission_denied');
    expect(error.details['missingFeatures']).toEqual(['exec.shell']);
    expect(fixtureLog().events.some((event) => event.startsWith('exec:'))).toBe(false);
    expect(fixtureLog().execRequests).toEqual([]);
  });

  it('with every feature and the path policy allowing, the connector runs with the checked request', async () => {
    const policy = vi.fn(() => true);
    const instance = await shell(policy);
    const caller = session(...SHELL_FEATURES);
    await expect(instance.exec!({ command: 'ls', cwd: 'box://src' }, { session: caller })).resolves.toMatchObject({ stdout: 'ran ls' });
    expect(policy).toHaveBeenCalledWith(caller, 'box://src', 'box');
    expect(fixtureLog().execRequests).toEqual([{ command: 'ls', cwd: 'box://src' }]);
  });

  it('a path policy denial is permission_denied and the connector does not run', async () => {
    const instance = await shell(() => false);
    await expect(instance.exec!({ command: 'ls', cwd: 'box://' }, { session: session(...SHELL_FEATURES) })).rejects.toMatchObject({ code: 'permission_denied' });
    expect(fixtureLog().execRequests).toEqual([]);
  });

  it('detached.start is an exec entry: refused without the features, connector code does not run', async () => {
    const instance = await shell();
    await expect(instance.detached!.start({ command: 'sleep 60', cwd: 'box://' }, { session: session('exec.shell') })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    expect(fixtureLog().events.some((event) => event.startsWith('start:'))).toBe(false);
  });

  it('attack: detached.status by a session without features still works (identity-free transport)', async () => {
    const instance = await shell();
    await expect(instance.detached!.status('run-1', 10)).resolves.toMatchObject({ runId: 'run-1', state: 'running' });
    await expect(instance.detached!.kill('run-1')).resolves.toEqual({ acknowledged: true });
    expect(fixtureLog().events).toEqual(expect.arrayContaining(['status:run-1', 'kill:run-1']));
  });
});

describe('orphans and runtime failures', () => {
  it('"makes orphan sources (metadata gone, config still on disk) distinguishable from runtime failures"', async () => {
    const loader = await loaded({}, 'notes-pkg', 'attack-pkg');
    await bind(loader, 'n', 'notes', { config: { folder: 'x' } });
    const crash = await failure(bind(loader, 'c', 'crasher'));
    expect(crash).toBeInstanceOf(ConnectorFailedError);
    expect((crash.cause as Error).message).toContain('could not open');
    expect(crash.message).not.toContain('/home/operator');
    expect(() => loader.connectors.resolveBySource('c')).toThrow(crash);

    await loader.unloadPackage('fixture-notes');
    expect(() => loader.connectors.resolveBySource('n')).toThrow(expect.objectContaining({ code: 'orphan_source' }));
    await expect(bind(loader, 'm', 'notes', { config: { folder: 'y' } })).rejects.toMatchObject({ code: 'orphan_source' });
    expect(() => loader.connectors.resolveBySource('never')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
