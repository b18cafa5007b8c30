/**
 * Approving a machine's host key. A machine host is never trusted on first use: its config holds
 * no key until a person has looked at the fingerprint the machine presents (presentedHostKey),
 * compared it with the machine's own (`ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub` there)
 * and approved it (trustHostKey), which pins it in the host's config. Approving checks that the
 * machine presents that same key at that moment, so a key read earlier from somewhere else is
 * not pinned by mistake.
 */
import { InvalidArgumentError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { HostRecord } from '../store/index.js';

/** The SSH client loads with the first scan, not with the network service. */
async function scanHostKey(target: { host: string; port: number; username: string }): Promise<string> {
  return (await import('@inseam/connector-machine')).scanHostKey(target);
}

const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

function machineTarget(record: HostRecord): { host: string; port: number; username: string } {
  if (record.kind !== 'machine') {
    throw new InvalidArgumentError(`Host "${record.slug}" is of kind "${record.kind}"; only machine hosts have a host key to approve.`, { details: { argument: 'host' } });
  }
  const { host, port, username } = record.config as { host?: unknown; port?: unknown; username?: unknown };
  return { host: String(host), port: typeof port === 'number' ? port : 22, username: String(username) };
}

/** The fingerprint the machine presents now. Throws `invalid_argument` (not a machine), `unavailable`. */
export async function presentedHostKey(record: HostRecord): Promise<string> {
  return scanHostKey(machineTarget(record));
}

/**
 * The config with `fingerprint` pinned, after checking the machine presents it. Throws
 * `invalid_argument` (not a machine, not a fingerprint), `precondition_failed` (the machine
 * presents another key; details.presented is it), `unavailable`.
 */
export async function approvedConfig(record: HostRecord, fingerprint: string): Promise<Readonly<Record<string, unknown>>> {
  const target = machineTarget(record);
  if (typeof fingerprint !== 'string' || !FINGERPRINT.test(fingerprint)) {
    throw new InvalidArgumentError('The fingerprint must be SHA256:… as ssh-keygen -l prints it.', { details: { argument: 'fingerprint' } });
  }
  const presented = await scanHostKey(target);
  if (presented !== fingerprint) {
    throw new PreconditionFailedError(`The machine presents ${presented}, not the key given; compare again on the machine before approving.`, { details: { presented } });
  }
  return { ...record.config, hostKey: fingerprint };
}
