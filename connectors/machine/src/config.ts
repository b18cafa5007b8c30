/**
 * A machine source's settings. The registry validates a config against the manifest's closed
 * schema first; parseMachineConfig checks again so a factory called directly gets the same typed
 * errors. Secrets are never here: the key or password comes from the credential store.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { DEFAULT_INLINE_CAPS, DEFAULT_TEXT_CAP_BYTES } from '@inseam/connector-fs';
import type { InlineCaps } from '@inseam/connector-fs';

export type MachineAuth = 'key' | 'password';

export interface MachineExecSettings {
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly outputCapBytes: number;
  readonly envAllowlist: readonly string[];
}

export interface MachineConfig {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** Absolute path of the folder on the machine. */
  readonly root: string;
  readonly auth: MachineAuth;
  /** The approved host key, `SHA256:<base64>` as ssh-keygen -l prints it; absent until a person approves one. */
  readonly hostKey?: string;
  readonly textCapBytes: number;
  readonly inlineCaps: InlineCaps;
  readonly exec: MachineExecSettings;
  /** Folder on the machine for detached-run state; relative paths are below the login's home. */
  readonly stateDir: string;
  readonly connectTimeoutMs: number;
  /** How long after a lost connection the next attempt is made (doubling to 16 × this, at most 60 s). */
  readonly reconnectMs: number;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const DEFAULT_EXEC_MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_EXEC_OUTPUT_CAP_BYTES = 1024 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_RECONNECT_MS = 2_000;
export const DEFAULT_STATE_DIR = '.inseam/runs';

export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
export const HOST_KEY_PATTERN = '^SHA256:[A-Za-z0-9+/]{43}$';
const HOST_PATTERN = /^[A-Za-z0-9.:_-]{1,253}$/;
const USER_PATTERN = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;

const KEYS = new Set([
  'host', 'port', 'username', 'root', 'auth', 'hostKey', 'textCapBytes', 'inlineCaps', 'execTimeoutMs', 'execMaxTimeoutMs',
  'execOutputCapBytes', 'execEnvAllowlist', 'stateDir', 'connectTimeoutMs', 'reconnectMs',
]);

function bad(field: string, message: string): never {
  throw new InvalidConfigError(`Invalid machine config: field "${field}" ${message}`, { details: { fields: [field] } });
}

function integer(config: Readonly<Record<string, unknown>>, field: string, fallback: number, min: number, max: number): number {
  const value = config[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) bad(field, `must be a whole number from ${min} to ${max}.`);
  return value;
}

/** A remote path with no `.`/`..` segment and no NUL; `absolute` requires a leading `/`. */
function remotePath(value: unknown, field: string, absolute: boolean): string {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) bad(field, 'must be a non-empty path.');
  if (absolute && !value.startsWith('/')) bad(field, 'must be an absolute path on the machine, e.g. /srv/shared.');
  if (value.split('/').some((segment) => segment === '.' || segment === '..')) bad(field, 'must not contain "." or ".." segments.');
  const trimmed = value.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

export function parseMachineConfig(config: Readonly<Record<string, unknown>>): MachineConfig {
  if (config === null || typeof config !== 'object') throw new InvalidConfigError('A machine config must be an object.');
  const unknown = Object.keys(config).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) {
    throw new InvalidConfigError(`Invalid machine config: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}.`, { details: { fields: unknown } });
  }
  const host = config['host'];
  if (typeof host !== 'string' || !HOST_PATTERN.test(host)) bad('host', 'must be a host name or IP address.');
  const username = config['username'];
  if (typeof username !== 'string' || !USER_PATTERN.test(username)) bad('username', 'must be a login name.');
  const auth = config['auth'] ?? 'key';
  if (auth !== 'key' && auth !== 'password') bad('auth', 'must be "key" or "password".');
  const hostKey = config['hostKey'];
  if (hostKey !== undefined && (typeof hostKey !== 'string' || !new RegExp(HOST_KEY_PATTERN).test(hostKey))) {
    bad('hostKey', 'must be a SHA256 fingerprint as ssh-keygen -l prints it, e.g. SHA256:…');
  }
  const allowlist = config['execEnvAllowlist'] ?? [];
  if (!Array.isArray(allowlist) || allowlist.some((name) => typeof name !== 'string' || !new RegExp(ENV_NAME_PATTERN).test(name))) {
    bad('execEnvAllowlist', 'must be a list of environment variable names.');
  }
  const caps = config['inlineCaps'] ?? {};
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps)) bad('inlineCaps', 'must be an object.');
  const capsRecord = caps as Record<string, unknown>;
  const inlineCaps: InlineCaps = {
    image: integer(capsRecord, 'image', DEFAULT_INLINE_CAPS.image, 0, 268_435_456),
    video: integer(capsRecord, 'video', DEFAULT_INLINE_CAPS.video, 0, 268_435_456),
    pdf: integer(capsRecord, 'pdf', DEFAULT_INLINE_CAPS.pdf, 0, 268_435_456),
    binary: integer(capsRecord, 'binary', DEFAULT_INLINE_CAPS.binary, 0, 268_435_456),
  };
  const defaultTimeoutMs = integer(config, 'execTimeoutMs', DEFAULT_EXEC_TIMEOUT_MS, 1, 86_400_000);
  return {
    host,
    port: integer(config, 'port', 22, 1, 65_535),
    username,
    root: remotePath(config['root'], 'root', true),
    auth,
    ...(hostKey === undefined ? {} : { hostKey: hostKey }),
    textCapBytes: integer(config, 'textCapBytes', DEFAULT_TEXT_CAP_BYTES, 1, 67_108_864),
    inlineCaps,
    exec: {
      defaultTimeoutMs,
      maxTimeoutMs: integer(config, 'execMaxTimeoutMs', DEFAULT_EXEC_MAX_TIMEOUT_MS, 1, 86_400_000),
      outputCapBytes: integer(config, 'execOutputCapBytes', DEFAULT_EXEC_OUTPUT_CAP_BYTES, 1, 67_108_864),
      envAllowlist: Object.freeze([...(allowlist as string[])]),
    },
    stateDir: config['stateDir'] === undefined ? DEFAULT_STATE_DIR : remotePath(config['stateDir'], 'stateDir', false),
    connectTimeoutMs: integer(config, 'connectTimeoutMs', DEFAULT_CONNECT_TIMEOUT_MS, 100, 120_000),
    reconnectMs: integer(config, 'reconnectMs', DEFAULT_RECONNECT_MS, 50, 600_000),
  };
}
