/**
 * The trial's egress: the real gate, bound to the connector's own AuthSpec once describe() has
 * been validated, with every attempt recorded.
 *
 * Submit phase: one port in audit mode — reads (GET, HEAD, OPTIONS, PROPFIND, REPORT, SEARCH)
 * and POSTs to the declared `auth.readEndpoints` pass, every other write is refused before it is
 * sent.
 * Install phase: writes are confined to the trial's own writes. Requests go through the audit
 * port, except while a trial write, replace or delete is running (`duringWrites`): only then do
 * they go through an enforce-mode port. The trial issues those calls only for paths under the
 * scratch prefix, so a write the connector sends at any other time — while listing, reading or
 * watching — is refused and fails check 11, as in the submit phase.
 *
 * A request sent before describe() was validated (from createConnector, say) is refused too:
 * until then nothing says which origins the module may reach.
 */
import { EgressError, type AuthSpec, type EgressPort, type EgressRequest, type EgressResponse } from '@inseam/connector';
import { createEgressGate, InMemoryEgressRecorder, type EgressGate } from '../gate/index.js';
import type { TrialPhase, TrialRefusal } from './types.js';

const TRIAL_HOST_ID = 'trial';

function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : '';
  } catch {
    return '';
  }
}

export interface TrialEgressBinding {
  readonly auth: Pick<AuthSpec, 'origins' | 'present' | 'fields' | 'readEndpoints'>;
  readonly credentials: Readonly<Record<string, string>>;
  readonly allowPrivateOrigins: readonly string[];
  readonly phase: TrialPhase;
}

export class TrialEgress implements EgressPort {
  readonly #recorder = new InMemoryEgressRecorder();
  readonly #gate: EgressGate = createEgressGate({ recorder: this.#recorder });
  readonly #early: TrialRefusal[] = [];
  #audit: EgressPort | undefined;
  #enforce: EgressPort | undefined;
  #writers = 0;
  #sent = 0;

  /** Binds the gate to the validated AuthSpec. Throws `invalid_config` for a malformed approval. */
  bind(binding: TrialEgressBinding): void {
    const credentials = { fields: async () => binding.credentials };
    const policy = { hostId: TRIAL_HOST_ID, auth: binding.auth, credentials, allowPrivateOrigins: binding.allowPrivateOrigins };
    this.#audit = this.#gate.forHost({ ...policy, mode: 'audit' });
    this.#enforce = binding.phase === 'install' ? this.#gate.forHost({ ...policy, mode: 'enforce' }) : undefined;
  }

  fetch(request: EgressRequest): Promise<EgressResponse> {
    this.#sent += 1;
    const port = this.#writers > 0 && this.#enforce !== undefined ? this.#enforce : this.#audit;
    if (port === undefined) {
      const origin = originOf(request.url);
      this.#early.push({ origin, method: String(request.method).toUpperCase(), reason: 'sent before describe() was validated' });
      return Promise.reject(new EgressError('origin_refused', origin, `The trial refused a request to ${origin || 'an unparseable URL'}: no request may be sent before describe() is validated.`));
    }
    return port.fetch(request);
  }

  /** Runs one of the trial's own write calls with writes let through the gate. */
  async duringWrites<T>(call: () => Promise<T>): Promise<T> {
    this.#writers += 1;
    try {
      return await call();
    } finally {
      this.#writers -= 1;
    }
  }

  /**
   * How many requests the connector has asked for so far (its own, not the gate's redirect hops
   * or retries): a check compares the counts before and after a call to learn what the call cost.
   */
  requestsSent(): number {
    return this.#sent;
  }

  /** Distinct origins reached (allowed attempts), in first-use order. */
  originsUsed(): string[] {
    return this.#recorder.originsUsed();
  }

  /** Every refused attempt, the gate's and the trial's own, by origin, method and reason. */
  refusals(): TrialRefusal[] {
    const refused = this.#recorder.refusals().map((record) => ({
      origin: record.origin,
      method: record.method,
      reason: record.reason ?? 'refused',
      ...(record.part === undefined ? {} : { part: record.part }),
    }));
    return [...this.#early, ...refused];
  }

  close(): Promise<void> {
    return this.#gate.close();
  }
}
