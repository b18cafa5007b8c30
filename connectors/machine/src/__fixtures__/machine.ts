/** A machine source bound to the test sshd, with the client key as its stored secret. */
import type { ConnectorFactoryContext, SessionContext } from '@neuralis/package-system/contracts';
import { createMachinePort } from '../factory.js';
import type { MachinePort } from '../port.js';
import type { SshdFixture } from './sshd.mjs';

export function machineContext(sshd: SshdFixture, config: Record<string, unknown> = {}, source = 'box'): ConnectorFactoryContext {
  return {
    packageId: '@inseam/connector-machine',
    packageRoot: sshd.base,
    source,
    config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, hostKey: sshd.fingerprint, stateDir: `${sshd.base}/runs`, reconnectMs: 100, ...config },
    projectRoot: sshd.base,
    scope: 'project',
  };
}

export function machinePort(sshd: SshdFixture, config: Record<string, unknown> = {}, source = 'box'): MachinePort {
  return createMachinePort(machineContext(sshd, config, source), { secret: async () => ({ privateKey: sshd.privateKey }) });
}

export const EXEC_SESSION: SessionContext = { userId: 'user-1', projectId: 'project-1', features: new Set(['exec.machine']) };

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
