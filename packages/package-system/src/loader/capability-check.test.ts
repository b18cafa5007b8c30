import { describe, expect, it } from 'vitest';
import { ConnectorCapabilityMismatch, type ConnectorCapability } from '../contracts/index.js';
import { FrozenCapabilitySet, checkConnectorCapabilities } from './capability-check.js';

const noop = async (): Promise<undefined> => undefined;
const facet = { start: noop, status: noop, output: noop, kill: noop, release: noop };

function instance(capabilities: readonly string[], members: Record<string, unknown> = {}): object {
  return { kind: 'k', source: 's', portVersion: 4, capabilities: () => new Set(capabilities), list: noop, read: noop, ...members };
}

function mismatch(run: () => unknown): ConnectorCapabilityMismatch {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorCapabilityMismatch);
    return error as ConnectorCapabilityMismatch;
  }
  throw new Error('expected capability_mismatch');
}

const declared = (capabilities: ConnectorCapability[], runtimeGated = false) => ({ kind: 'k', capabilities, runtimeGated });

describe('capability cross-check', () => {
  it('"capabilities() set must exactly match the capabilities[] declared": an exact match passes and the set is the snapshot', () => {
    const checked = checkConnectorCapabilities(instance(['list', 'read', 'write'], { write: noop }), declared(['list', 'read', 'write']));
    expect([...checked.capabilities]).toEqual(['list', 'read', 'write']);
    expect(checked.members.write).toBe(noop);
  });

  it('"A connector can never claim more ... at runtime than it declared": an undeclared capability is a mismatch naming it', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read', 'write'], { write: noop }), declared(['list', 'read'])));
    expect(error.code).toBe('capability_mismatch');
    expect(error.details['undeclared']).toEqual(['write']);
    expect(error.message).toContain('"write"');
  });

  it('"A connector can never claim ... less": a declared capability missing from capabilities() is a mismatch naming it', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read'], { stat: noop }), declared(['list', 'read', 'stat'])));
    expect(error.details['missing']).toEqual(['stat']);
  });

  it('a declared capability whose member is absent is a mismatch (every capability\'s member present)', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read', 'delete']), declared(['list', 'read', 'delete'])));
    expect(error.details['missingMembers']).toEqual(['delete']);
  });

  it('an undeclared capability-gated member is a mismatch: "a facet without the capability" is the same error (decision: extra gated methods count)', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read'], { delete: noop }), declared(['list', 'read'])));
    expect(error.details['undeclaredMembers']).toEqual(['delete']);
  });

  it('members that gate no capability (probeConnection, helpers) are not a mismatch', () => {
    const probe = async () => ({ connected: true });
    const checked = checkConnectorCapabilities(instance(['list', 'read'], { probeConnection: probe, helper: noop }), declared(['list', 'read']));
    expect(checked.members.probeConnection).toBe(probe);
  });

  it('"The check covers execDetached against the detached facet": a capability without the facet is a mismatch', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read', 'execDetached']), declared(['list', 'read', 'execDetached'])));
    expect(error.details['missingMembers']).toEqual(['detached']);
  });

  it('"...and a facet without the capability are the same error"', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read'], { detached: facet }), declared(['list', 'read'])));
    expect(error.details['undeclaredMembers']).toEqual(['detached']);
  });

  it('a detached facet missing one of its five verbs does not count as the facet', () => {
    const { release: _release, ...partial } = facet;
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read', 'execDetached'], { detached: partial }), declared(['list', 'read', 'execDetached'])));
    expect(error.details['missingMembers']).toEqual(['detached']);
  });

  it('values outside the closed capability list are a mismatch', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read', 'teleport']), declared(['list', 'read'])));
    expect(error.details['unknown']).toBe(1);
  });

  it('a capabilities() that returns no iterable, or is missing, is a mismatch; one that throws is connector_failed', () => {
    mismatch(() => checkConnectorCapabilities({ ...instance([]), capabilities: () => 'list,read' }, declared(['list', 'read'])));
    mismatch(() => checkConnectorCapabilities({ ...instance([]), capabilities: undefined }, declared(['list', 'read'])));
    expect(() =>
      checkConnectorCapabilities(
        {
          ...instance([]),
          capabilities: () => {
            throw new Error('boom');
          },
        },
        declared(['list', 'read']),
      ),
    ).toThrow(expect.objectContaining({ code: 'connector_failed' }));
  });

  it('"runtimeGated ... the platform reads the configured connector\'s isRuntimeActive() member": a gated kind without it is refused', () => {
    const error = mismatch(() => checkConnectorCapabilities(instance(['list', 'read']), declared(['list', 'read'], true)));
    expect(error.message).toContain('isRuntimeActive');
    const active = () => true;
    expect(checkConnectorCapabilities(instance(['list', 'read'], { isRuntimeActive: active }), declared(['list', 'read'], true)).members.isRuntimeActive).toBe(active);
  });

  it('attack: capabilities() that changes between calls is called once and its first answer frozen', () => {
    let calls = 0;
    const shifty = instance([], {
      capabilities: () => {
        calls += 1;
        return new Set(calls === 1 ? ['list', 'read'] : ['list', 'read', 'write']);
      },
    });
    const checked = checkConnectorCapabilities(shifty, declared(['list', 'read']));
    expect(calls).toBe(1);
    expect(checked.capabilities.has('write')).toBe(false);
  });
});

describe('FrozenCapabilitySet', () => {
  it('cannot be widened, not even through Set.prototype', () => {
    const set = new FrozenCapabilitySet(['list', 'read']);
    expect(Object.isFrozen(set)).toBe(true);
    expect(() => Set.prototype.add.call(set, 'write')).toThrow(TypeError);
    expect('add' in set).toBe(false);
    expect(set.has('write')).toBe(false);
    expect(set.size).toBe(2);
  });

  it('behaves as a ReadonlySet', () => {
    const set = new FrozenCapabilitySet(['list', 'read']);
    const seen: string[] = [];
    set.forEach((value, key, owner) => {
      expect(owner).toBe(set);
      seen.push(`${value}=${key}`);
    });
    expect(seen).toEqual(['list=list', 'read=read']);
    expect([...set.keys()]).toEqual(['list', 'read']);
    expect([...set.values()]).toEqual(['list', 'read']);
    expect([...set.entries()]).toEqual([
      ['list', 'list'],
      ['read', 'read'],
    ]);
  });
});
