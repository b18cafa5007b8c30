import { describe, expect, it, vi } from 'vitest';
import type { ExecContext, ExecRequest, SessionContext } from '../contracts/index.js';
import { PermissionDeniedError } from '../contracts/index.js';
import { checkConnectorCapabilities } from './capability-check.js';
import { guardExecEntry, type ExecPathPolicy } from './exec-guard.js';
import { buildGuardedInstance } from './guarded-instance.js';
import { session } from './__fixtures__/support.js';

const REQUIRES = ['exec.machine', 'exec.shell'] as const;
const RESULT = { exitCode: 0, stdout: 'ok', stderr: '', truncated: false, durationMs: 1 };

function guarded(pathPolicy: ExecPathPolicy | undefined = () => true) {
  const ran: ExecRequest[] = [];
  const exec = guardExecEntry(
    'exec',
    async (request: ExecRequest) => {
      ran.push(request);
      return RESULT;
    },
    { kind: 'shell', source: 'box', execRequires: REQUIRES, pathPolicy },
  );
  return { exec, ran };
}

async function denied(promise: Promise<unknown>): Promise<PermissionDeniedError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PermissionDeniedError);
  return error as PermissionDeniedError;
}

describe('exec entry guard', () => {
  it('"wraps exec so each one is checked before your code runs": a session lacking one of two features is refused and the connector never runs', async () => {
    const { exec, ran } = guarded();
    const error = await denied(exec({ command: 'ls', cwd: 'box://' }, { session: session('exec.machine') }));
    expect(error.code).toBe('permission_denied');
    expect(error.details['missingFeatures']).toEqual(['exec.shell']);
    expect(error.message).toContain('"exec.shell"');
    expect(ran).toEqual([]);
  });

  it('names every missing feature id', async () => {
    const { exec, ran } = guarded();
    const error = await denied(exec({ command: 'ls', cwd: 'box://' }, { session: session() }));
    expect(error.details['missingFeatures']).toEqual(['exec.machine', 'exec.shell']);
    expect(ran).toEqual([]);
  });

  it('no session at all is refused', async () => {
    const { exec, ran } = guarded();
    await denied(exec({ command: 'ls', cwd: 'box://' }, {} as ExecContext));
    await denied(exec({ command: 'ls', cwd: 'box://' }, undefined as unknown as ExecContext));
    expect(ran).toEqual([]);
  });

  it('"the consuming tool evaluates the source\'s own path policy on the cwd after that": the policy sees (session, cwd, source) only after the features pass', async () => {
    const policy = vi.fn<ExecPathPolicy>(() => true);
    const { exec, ran } = guarded(policy);
    await denied(exec({ command: 'ls', cwd: 'box://work' }, { session: session('exec.machine') }));
    expect(policy).not.toHaveBeenCalled();
    const caller: SessionContext = session(...REQUIRES);
    await expect(exec({ command: 'ls', cwd: 'box://work' }, { session: caller })).resolves.toEqual(RESULT);
    expect(policy).toHaveBeenCalledWith(caller, 'box://work', 'box');
    expect(ran).toHaveLength(1);
  });

  it('"Your provider gets the call only once both have passed": a policy denial (sync or async) is permission_denied and the connector never runs', async () => {
    for (const policy of [() => false, async () => false] as ExecPathPolicy[]) {
      const { exec, ran } = guarded(policy);
      const error = await denied(exec({ command: 'rm -rf x', cwd: 'box://secret' }, { session: session(...REQUIRES) }));
      expect(error.details['cwd']).toBe('box://secret');
      expect(ran).toEqual([]);
    }
  });

  it('only an answer of exactly true allows; a truthy non-boolean denies', async () => {
    const { exec, ran } = guarded((() => 'yes') as unknown as ExecPathPolicy);
    await denied(exec({ command: 'ls', cwd: 'box://' }, { session: session(...REQUIRES) }));
    expect(ran).toEqual([]);
  });

  it('deny by default: with no path policy configured every exec is refused', async () => {
    const exec = guardExecEntry('exec', async () => RESULT, { kind: 'shell', source: 'box', execRequires: REQUIRES, pathPolicy: undefined });
    const error = await denied(exec({ command: 'ls', cwd: 'box://' }, { session: session(...REQUIRES) }));
    expect(error.message).toContain('No exec path policy');
  });

  it('a kind without entry features never allows exec (an empty list is not an open door)', async () => {
    const exec = guardExecEntry('exec', async () => RESULT, { kind: 'shell', source: 'box', execRequires: [], pathPolicy: () => true });
    await denied(exec({ command: 'ls', cwd: 'box://' }, { session: session('anything') }));
  });

  it('"cwd is the exact source URI": a cwd on another source or with dot segments is invalid_uri; a malformed request is invalid_argument', async () => {
    const { exec, ran } = guarded();
    const caller = { session: session(...REQUIRES) };
    await expect(exec({ command: 'ls', cwd: 'other://' }, caller)).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(exec({ command: 'ls', cwd: 'box://a/../..' }, caller)).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(exec({ command: '', cwd: 'box://' }, caller)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(exec({ command: 'ls', cwd: 'box://', timeout: -1 }, caller)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(exec({ command: 'ls', cwd: 'box://', env: { A: 1 } as unknown as Record<string, string> }, caller)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(ran).toEqual([]);
  });

  it('attack: a request whose cwd changes between reads — the connector receives the frozen value that was checked', async () => {
    const policy = vi.fn<ExecPathPolicy>((_session, cwd) => cwd === 'box://safe');
    const { exec, ran } = guarded(policy);
    let reads = 0;
    const request = {
      command: 'ls',
      get cwd() {
        reads += 1;
        return reads === 1 ? 'box://safe' : 'box://secret';
      },
      env: { LANG: 'C' },
    };
    await exec(request, { session: session(...REQUIRES) });
    expect(ran[0]?.cwd).toBe('box://safe');
    expect(Object.isFrozen(ran[0])).toBe(true);
    expect(Object.isFrozen(ran[0]?.env)).toBe(true);
  });
});

describe('guarded instance', () => {
  function shellInstance() {
    const calls: string[] = [];
    const raw = {
      kind: 'shell',
      source: 'box',
      portVersion: 4,
      capabilities: () => new Set(['list', 'read', 'exec', 'execDetached']),
      list: async () => ({ entries: [] }),
      read: async () => ({ text: '', mime: 'text/plain', size: 0 }),
      exec: async () => {
        calls.push('exec');
        return RESULT;
      },
      detached: {
        start: async () => {
          calls.push('start');
          return { runId: 'r1' };
        },
        status: async (runId: string) => {
          calls.push(`status:${runId}`);
          return { runId, state: 'running', exitCode: null, startedAt: '2025-01-01T00:00:00Z', outputBytes: 0 };
        },
        output: async (runId: string, since: number) => {
          calls.push(`output:${runId}`);
          return { data: '', next: since, done: false };
        },
        kill: async (runId: string) => {
          calls.push(`kill:${runId}`);
          return { acknowledged: true as const };
        },
        release: async (runId: string) => {
          calls.push(`release:${runId}`);
        },
      },
    };
    const checked = checkConnectorCapabilities(raw, { kind: 'shell', capabilities: ['list', 'read', 'exec', 'execDetached'] });
    const port = buildGuardedInstance(raw, checked, { kind: 'shell', source: 'box', execRequires: REQUIRES, pathPolicy: () => true });
    return { raw, port, calls };
  }

  it('"detached.start ... the platform enforces the kind\'s declared entry feature(s) on it exactly as it does on exec"', async () => {
    const { port, calls } = shellInstance();
    const error = await denied(port.detached!.start({ command: 'sleep 9', cwd: 'box://' }, { session: session('exec.shell') }));
    expect(error.details['missingFeatures']).toEqual(['exec.machine']);
    expect(calls).toEqual([]);
    await expect(port.detached!.start({ command: 'sleep 9', cwd: 'box://' }, { session: session(...REQUIRES) })).resolves.toEqual({ runId: 'r1' });
    expect(calls).toEqual(['start']);
  });

  it('"a caller who has since lost the entry feature must still be able to read and stop a run they own": status/output/kill/release are not feature-checked', async () => {
    const { port, calls } = shellInstance();
    await expect(port.detached!.status('r1')).resolves.toMatchObject({ runId: 'r1', state: 'running' });
    await port.detached!.output('r1', 0);
    await expect(port.detached!.kill('r1', 'someone')).resolves.toEqual({ acknowledged: true });
    await port.detached!.release('r1');
    expect(calls).toEqual(['status:r1', 'output:r1', 'kill:r1', 'release:r1']);
  });

  it('the handed-out instance and its facet are frozen, and swapping a method on the connector afterwards changes nothing', async () => {
    const { raw, port, calls } = shellInstance();
    expect(Object.isFrozen(port)).toBe(true);
    expect(Object.isFrozen(port.detached)).toBe(true);
    raw.exec = async () => {
      calls.push('swapped');
      return RESULT;
    };
    await port.exec!({ command: 'ls', cwd: 'box://' }, { session: session(...REQUIRES) });
    expect(calls).toEqual(['exec']);
    expect(Object.keys(port).sort()).toEqual(['capabilities', 'detached', 'exec', 'kind', 'list', 'portVersion', 'read', 'source']);
  });
});
