/**
 * What a failed connection means, in the package system's fixed vocabulary: a probe reason (so the
 * platform can dim the host) and the typed error an operation throws meanwhile. Messages name the
 * problem and what to do, never a path on the machine, the key, or the password.
 */
import { UnavailableError } from '@neuralis/package-system/contracts';
import type { ErrorCode, ProbeReason } from '@neuralis/package-system/contracts';
import type { SshError } from './ssh.js';

export type ConnectionProblem =
  | 'unreachable'
  | 'timeout'
  | 'authentication_failed'
  | 'no_credential'
  | 'host_key_unapproved'
  | 'host_key_changed'
  | 'root_missing'
  | 'root_forbidden'
  | 'sftp_unavailable'
  | 'disconnected';

export interface ConnectionFailure {
  readonly problem: ConnectionProblem;
  readonly reason: ProbeReason;
  readonly code: ErrorCode;
  /** For host key problems: the fingerprint the machine presented (public, safe to show). */
  readonly fingerprint?: string;
}

const REASONS: Record<ConnectionProblem, { readonly reason: ProbeReason; readonly code: ErrorCode; readonly message: string }> = {
  unreachable: { reason: 'runtime_offline', code: 'unavailable', message: 'The machine does not answer on its SSH port; check that it is running and reachable.' },
  timeout: { reason: 'runtime_offline', code: 'timeout', message: 'The machine did not finish the SSH handshake in time; check that it is running and reachable.' },
  disconnected: { reason: 'runtime_offline', code: 'unavailable', message: 'The connection to the machine was lost; inseam reconnects on its own.' },
  authentication_failed: { reason: 'fs_permission', code: 'permission_denied', message: 'The machine refused the login; store the right key or password for this host.' },
  no_credential: { reason: 'fs_permission', code: 'permission_denied', message: 'No SSH key or password is stored for this machine; store one (inseam credential set).' },
  host_key_unapproved: {
    reason: 'fs_permission',
    code: 'permission_denied',
    message: "The machine's host key has not been approved; compare its fingerprint with the machine's and approve it (inseam host trust-key).",
  },
  host_key_changed: {
    reason: 'fs_permission',
    code: 'permission_denied',
    message: "The machine presented a host key other than the approved one, so inseam did not log in; if the machine's key really changed, approve the new one.",
  },
  root_missing: { reason: 'fs_unreachable', code: 'not_found', message: "The host's folder does not exist on the machine (or is not a folder)." },
  root_forbidden: { reason: 'fs_permission', code: 'permission_denied', message: "The login may not read the host's folder on the machine." },
  sftp_unavailable: { reason: 'store_unreachable', code: 'unavailable', message: 'The machine does not offer SFTP to this login; enable the sftp subsystem in its sshd.' },
};

export function failure(problem: ConnectionProblem, fingerprint?: string): ConnectionFailure {
  const { reason, code } = REASONS[problem];
  return { problem, reason, code, ...(fingerprint === undefined ? {} : { fingerprint }) };
}

/** The failure an ssh2 connection error stands for. */
export function failureOfSshError(error: SshError): ConnectionFailure {
  if (error.level === 'client-authentication') return failure('authentication_failed');
  if (error.level === 'client-timeout' || error.code === 'ETIMEDOUT') return failure('timeout');
  return failure('unreachable');
}

/** The error every operation throws while the machine cannot be used. */
export function unavailable(cause: ConnectionFailure): UnavailableError {
  return new UnavailableError(REASONS[cause.problem].message, {
    details: { reason: cause.reason, problem: cause.problem, ...(cause.fingerprint === undefined ? {} : { fingerprint: cause.fingerprint }) },
  });
}
