import { describe, expect, it, vi } from 'vitest';
import type { ConnectorInitContext, CredentialResolver } from '../contracts/index.js';
import { UnavailableError } from '../contracts/index.js';
import type { ImportedModule } from './factory-import.js';
import { collectInits, createInitContext, runInits } from './package-init.js';

function module(namespace: Record<string, unknown>): ImportedModule {
  return { file: '/pkg/m.js', digest: 'd', namespace };
}

function context(resolveCredential: CredentialResolver['resolveCredential'], projectId?: string): ConnectorInitContext {
  return createInitContext({
    packageId: 'pkg',
    ...(projectId === undefined ? {} : { projectId }),
    declaredCredentials: [{ id: 'api-key', label: 'API key' }],
    credentials: { resolveCredential },
    packageState: (project) => ({ enabled: project === 'p1', auto: false }),
  });
}

describe('package init(ctx)', () => {
  it('"init(ctx)" runs once per distinct function: main first, then factory modules; a re-exported init is not run twice', async () => {
    const calls: string[] = [];
    const mainInit = () => void calls.push('main');
    const factoryInit = () => void calls.push('factory');
    const inits = collectInits([
      { module: module({ init: mainInit }), where: 'main' },
      { module: module({ init: mainInit, createA: () => undefined }), where: 'connectors[0].connectorFactory' },
      { module: module({ init: factoryInit }), where: 'connectors[1].connectorFactory' },
      { module: module({}), where: 'connectors[2].connectorFactory' },
    ]);
    await runInits(inits, context(async () => null));
    expect(calls).toEqual(['main', 'factory']);
  });

  it('an `init` export that is not a function is manifest_invalid at the module\'s field', () => {
    expect(() => collectInits([{ module: module({ init: 42 }), where: 'main' }])).toThrow(
      expect.objectContaining({ code: 'manifest_invalid', issues: [expect.objectContaining({ path: 'main' })] }),
    );
  });

  it('"ctx.credentials.resolveCredential(id, { projectId })" reaches the store only for declared ids', async () => {
    const resolveCredential = vi.fn<CredentialResolver['resolveCredential']>(async () => ({ value: 's3cret' }));
    const ctx = context(resolveCredential);
    await expect(ctx.credentials.resolveCredential('api-key', { projectId: 'p1' })).resolves.toEqual({ value: 's3cret' });
    await expect(ctx.credentials.resolveCredential('root-password', {})).rejects.toMatchObject({ code: 'permission_denied' });
    expect(resolveCredential).toHaveBeenCalledTimes(1);
  });

  it('a package loaded for one project resolves that project\'s credentials only', async () => {
    const resolveCredential = vi.fn<CredentialResolver['resolveCredential']>(async () => ({ value: 'v' }));
    const ctx = context(resolveCredential, 'p1');
    expect(ctx.projectId).toBe('p1');
    await ctx.credentials.resolveCredential('api-key', {});
    expect(resolveCredential).toHaveBeenLastCalledWith('api-key', { projectId: 'p1' });
    await expect(ctx.credentials.resolveCredential('api-key', { projectId: 'p2' })).rejects.toMatchObject({ code: 'permission_denied' });
    expect(resolveCredential).toHaveBeenCalledTimes(1);
  });

  it('an init that throws untyped is connector_failed with the cause kept; a typed error passes through', async () => {
    const cause = new Error('boom');
    const failed = await runInits([() => Promise.reject(cause)], context(async () => null)).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'connector_failed', cause });
    const typed = new UnavailableError();
    await expect(runInits([() => Promise.reject(typed)], context(async () => null))).rejects.toBe(typed);
  });

  it('"packageState()" of a package loaded for one project answers for that project and refuses another', () => {
    const ctx = context(async () => null, 'p1');
    expect(ctx.packageState()).toEqual({ enabled: true, auto: false });
    expect(ctx.packageState({ projectId: 'p1' })).toEqual({ enabled: true, auto: false });
    expect(() => ctx.packageState({ projectId: 'p2' })).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    expect(context(async () => null).packageState({ projectId: 'p2' })).toEqual({ enabled: false, auto: false });
  });
});
