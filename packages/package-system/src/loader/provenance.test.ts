import { describe, expect, it } from 'vitest';
import { assertUnclaimed, getConnectorBindingProvenance, snapshotBindingProvenance, stampInstance, type ProvenanceInput } from './provenance.js';

const base: ProvenanceInput = {
  providerPackageId: 'pkg',
  providerTrust: 'trusted',
  kind: 'shell',
  source: 'box',
  projectRoot: '/srv/project/',
  scope: 'project',
  execRequires: ['exec.machine'],
  executes: true,
};

describe('binding provenance', () => {
  it('"stamps a frozen copy of those ids on the instance\'s binding record": the record and its ids are frozen copies', () => {
    const ids = ['exec.machine'];
    const record = snapshotBindingProvenance({ ...base, execRequires: ids });
    ids.push('exec.other');
    expect(record).toEqual({
      providerPackageId: 'pkg',
      providerTrust: 'trusted',
      kind: 'shell',
      source: 'box',
      projectRoot: '/srv/project',
      scope: 'project',
      execRequires: ['exec.machine'],
    });
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.execRequires)).toBe(true);
  });

  it('"Exec factories require an absolute projectRoot; filesystem-only factories may omit it"', () => {
    const { projectRoot: _omit, ...withoutRoot } = base;
    expect(() => snapshotBindingProvenance(withoutRoot)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => snapshotBindingProvenance({ ...base, projectRoot: 'relative/root' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(snapshotBindingProvenance({ ...withoutRoot, executes: false, execRequires: [] }).projectRoot).toBeUndefined();
  });

  it('the refusal never echoes the project root', () => {
    expect(() => snapshotBindingProvenance({ ...base, projectRoot: 'home/alice/secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('alice') }),
    );
  });

  it('"getConnectorBindingProvenance exposes this immutable record" only for stamped instances', () => {
    const record = snapshotBindingProvenance(base);
    const raw = {};
    const handedOut = {};
    expect(getConnectorBindingProvenance(handedOut)).toBeUndefined();
    stampInstance(raw, handedOut, record);
    expect(getConnectorBindingProvenance(handedOut)).toBe(record);
    expect(getConnectorBindingProvenance(raw)).toBeUndefined();
    expect(getConnectorBindingProvenance(null)).toBeUndefined();
  });

  it('"Reusing one instance for a different binding is refused" (the factory object or the handed-out one); the same binding again is not reuse', () => {
    const record = snapshotBindingProvenance(base);
    const raw = {};
    const handedOut = {};
    stampInstance(raw, handedOut, record);
    const other = snapshotBindingProvenance({ ...base, source: 'box2' });
    expect(() => assertUnclaimed(raw, other)).toThrow(expect.objectContaining({ code: 'binding_conflict' }));
    expect(() => assertUnclaimed(handedOut, other)).toThrow(expect.objectContaining({ code: 'binding_conflict' }));
    expect(() => assertUnclaimed(raw, snapshotBindingProvenance({ ...base, scope: 'user' }))).toThrow(expect.objectContaining({ code: 'binding_conflict' }));
    expect(() => assertUnclaimed(raw, snapshotBindingProvenance(base))).not.toThrow();
  });
});
