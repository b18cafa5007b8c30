import type { EgressPort } from '@inseam/connector';
import { createEgressGate } from '../gate.js';
import type { EgressGate, EgressGateOptions, HostEgressPolicy } from '../gate.js';
import type { HostCredentialSource } from '../credentials.js';
import { EgressGateError } from '../errors.js';
import { InMemoryEgressRecorder } from '../recorder.js';

export const noCredentials: HostCredentialSource = { fields: async () => ({}) };

export interface GateUnderTest {
  readonly gate: EgressGate;
  readonly recorder: InMemoryEgressRecorder;
  readonly logs: string[];
  host(policy: Partial<HostEgressPolicy> & Pick<HostEgressPolicy, 'auth'>): EgressPort;
}

/** A gate with an in-memory recorder, captured log lines and fast retries. */
export function gateUnderTest(options: Partial<EgressGateOptions> = {}): GateUnderTest {
  const recorder = new InMemoryEgressRecorder();
  const logs: string[] = [];
  const gate = createEgressGate({
    recorder,
    logger: { warn: (line) => logs.push(line) },
    retry: { baseDelayMs: 1, maxDelayMs: 2000 },
    ...options,
  });
  return {
    gate,
    recorder,
    logs,
    host: (policy) => gate.forHost({ hostId: 'test-host', credentials: noCredentials, ...policy }),
  };
}

/** The rejection of `promise`, which must reject with an EgressGateError. */
export async function rejection(promise: Promise<unknown>): Promise<EgressGateError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EgressGateError) return error;
    throw error;
  }
  throw new Error('expected the gate to reject');
}
