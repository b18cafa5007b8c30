import { describe, expect, it } from 'vitest';
import type { SessionContext } from '../contracts/index.js';
import { assertCapability, guardedCall } from './guard.js';
import { createMemoryConnector } from '../testing/memory/memory-connector.js';

const session: SessionContext = { userId: 'u', projectId: 'p', features: new Set() };

describe('assertCapability (OpenDAL style: one flat capability set, checked before dispatch)', () => {
  it('spec: "answer Unsupported naming kind, operation and argument" — an undeclared operation', () => {
    expect(() => assertCapability('notion', ['list', 'read'], 'write')).toThrow(
      expect.objectContaining({
        code: 'unsupported',
        kind: 'notion',
        operation: 'write',
        argument: undefined,
        message: 'Connector kind "notion" does not support operation "write".',
      }),
    );
    expect(() => assertCapability('notion', new Set(['list', 'read'] as const), 'detached.kill')).toThrow(
      expect.objectContaining({ details: { kind: 'notion', operation: 'detached.kill' } }),
    );
  });

  it('names the argument when one argument is what is unsupported: exec with background needs execDetached', () => {
    expect(() => assertCapability('box', ['list', 'read', 'exec'], 'exec', [{ command: 'x', cwd: 'box://', background: true }])).toThrow(
      expect.objectContaining({ code: 'unsupported', details: { kind: 'box', operation: 'exec', argument: 'background' } }),
    );
    expect(() => assertCapability('box', ['list', 'read', 'exec', 'execDetached'], 'exec', [{ command: 'x', cwd: 'box://', background: true }])).not.toThrow();
  });

  it('accepts any set-like capability set, such as the frozen set the loader hands out', () => {
    const frozen: ReadonlySet<'list' | 'read' | 'write'> = {
      has: (capability: string) => capability === 'list' || capability === 'read',
      size: 2,
    } as unknown as ReadonlySet<'list' | 'read' | 'write'>;
    expect(() => assertCapability('notion', frozen, 'read')).not.toThrow();
    expect(() => assertCapability('notion', frozen, 'write')).toThrow(expect.objectContaining({ code: 'unsupported', operation: 'write' }));
  });

  it('refuses an operation name outside the closed list', () => {
    expect(() => assertCapability('box', ['list', 'read'], 'rename' as never)).toThrow(expect.objectContaining({ code: 'unsupported', operation: 'rename' }));
  });
});

describe('guardedCall', () => {
  it('refuses before dispatch: the member is never entered', async () => {
    let entered = false;
    const port = { ...createMemoryConnector(), write: async () => { entered = true; throw new Error('unreachable'); } };
    await expect(guardedCall(port, ['list', 'read'], 'write', 'mem://a.txt', 'x')).rejects.toMatchObject({ code: 'unsupported', operation: 'write' });
    expect(entered).toBe(false);
  });

  it('keeps the member\'s shape: a refused walk is an iterable whose first step throws', async () => {
    const iterable = guardedCall(createMemoryConnector(), ['list', 'read'], 'walk', 'mem://');
    const iterator = iterable[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'unsupported', operation: 'walk' });
  });

  it('dispatches allowed calls, detached verbs included', async () => {
    const port = createMemoryConnector({ files: { 'a.txt': 'hello' } });
    const all = [...port.capabilities()];
    expect((await guardedCall(port, all, 'read', 'mem://a.txt')).text).toBe('hello');
    const { runId } = await guardedCall(port, all, 'detached.start', { command: 'echo hi', cwd: 'mem://' }, { session });
    expect((await guardedCall(port, all, 'detached.status', runId, 1000)).state).toBe('exited');
    await guardedCall(port, all, 'detached.release', runId);
  });

  it('answers capability_mismatch when the set allows an operation the port has no member for', async () => {
    const port = createMemoryConnector({ capabilities: ['list', 'read'] });
    await expect(guardedCall(port, ['list', 'read', 'stat'], 'stat', 'mem://')).rejects.toMatchObject({
      code: 'capability_mismatch',
      message: 'Connector kind "memory" declares "stat" but has no "stat" member.',
    });
    await expect(guardedCall(port, ['list', 'read', 'execDetached'], 'detached.kill', 'run-1')).rejects.toMatchObject({
      code: 'capability_mismatch',
      message: 'Connector kind "memory" declares "execDetached" but has no "detached.kill" member.',
    });
  });
});
