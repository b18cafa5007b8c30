/**
 * The folder connector's settings, shared by the `fs` and `local` kinds. Only `root` differs
 * between them (an absolute path for `fs`, a root token for `local`); everything else has the same
 * name, meaning and default. The registry validates a source's config against the manifest's
 * closed schema first; `parseFolderSettings` checks again so a factory called directly (tests, the
 * trial) gets the same typed errors.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';

const KIB = 1024;
const MIB = 1024 * KIB;

/** Per-MIME caps for inline base64 bytes on read; over a cap, read returns a marker instead. */
export interface InlineCaps {
  readonly image: number;
  readonly video: number;
  readonly pdf: number;
  /** Every other binary type (archives, fonts, unknown bytes). */
  readonly binary: number;
}

export interface ExecSettings {
  /** Used when a request names no timeout. */
  readonly defaultTimeoutMs: number;
  /** The ceiling a request's timeout is clipped to. */
  readonly maxTimeoutMs: number;
  /** Per stream (stdout, stderr); output beyond it is dropped and `truncated` is set. */
  readonly outputCapBytes: number;
  /** Environment names passed through on top of DEFAULT_ENV_ALLOWLIST. */
  readonly envAllowlist: readonly string[];
  /** Whether commands share the machine's network; otherwise they get an empty network namespace. */
  readonly network: boolean;
  /** Most processes and threads one command may have at once (RLIMIT_NPROC inside its sandbox). */
  readonly maxProcesses: number;
}

export interface FolderSettings {
  /** As configured: an absolute path (fs) or a root token (local). */
  readonly root: string;
  /** Largest text read without a range; larger reads get `too_large` and must page with ranges. */
  readonly textCapBytes: number;
  readonly inlineCaps: InlineCaps;
  readonly exec: ExecSettings;
  /** Whether regular files with more than one hard link are served (their content may live outside the root too). */
  readonly allowHardLinks: boolean;
  /** Where detached runs keep their state; absolute. Defaults under the project root. */
  readonly stateDir?: string;
  /** Most directories one watch() call watches; beyond it the watcher emits `rescan` and stops descending. */
  readonly watchMaxDirectories: number;
}

export const DEFAULT_TEXT_CAP_BYTES = 1 * MIB;

export const DEFAULT_INLINE_CAPS: InlineCaps = Object.freeze({
  image: 5 * MIB,
  video: 20 * MIB,
  pdf: 10 * MIB,
  binary: 1 * MIB,
});

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const DEFAULT_EXEC_MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_EXEC_OUTPUT_CAP_BYTES = 1 * MIB;
export const DEFAULT_WATCH_MAX_DIRECTORIES = 8192;
export const DEFAULT_EXEC_MAX_PROCESSES = 1024;

/** Hard upper bounds, so a config cannot ask for unbounded memory per call. */
const MAX_TEXT_CAP_BYTES = 64 * MIB;
const MAX_INLINE_CAP_BYTES = 256 * MIB;
const MAX_OUTPUT_CAP_BYTES = 64 * MIB;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const MAX_WATCH_DIRECTORIES = 1_000_000;
const MIN_EXEC_PROCESSES = 16;
const MAX_EXEC_PROCESSES = 65_536;

/** Environment variable names a process may receive; the pattern keeps `=` and NUL out. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
const ENV_NAME = new RegExp(ENV_NAME_PATTERN);

const SETTINGS_KEYS = new Set([
  'root',
  'textCapBytes',
  'inlineCaps',
  'execTimeoutMs',
  'execMaxTimeoutMs',
  'execOutputCapBytes',
  'execEnvAllowlist',
  'execNetwork',
  'execMaxProcesses',
  'allowHardLinks',
  'stateDir',
  'watchMaxDirectories',
]);
const INLINE_CAP_KEYS = new Set(['image', 'video', 'pdf', 'binary']);

/**
 * The config schema properties every folder kind shares (everything but `root`), closed at every
 * level. Each kind adds its own `root` property.
 */
export const SHARED_CONFIG_PROPERTIES = {
  textCapBytes: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_TEXT_CAP_BYTES,
    description: 'Largest text file read whole, in bytes; larger files are read in ranges. Default 1 MiB.',
  },
  inlineCaps: {
    type: 'object',
    additionalProperties: false,
    description: 'Per-MIME caps, in bytes, for returning binary files inline (base64) on read.',
    properties: {
      image: { type: 'integer', minimum: 0, maximum: MAX_INLINE_CAP_BYTES, description: 'image/*. Default 5 MiB.' },
      video: { type: 'integer', minimum: 0, maximum: MAX_INLINE_CAP_BYTES, description: 'video/*. Default 20 MiB.' },
      pdf: { type: 'integer', minimum: 0, maximum: MAX_INLINE_CAP_BYTES, description: 'application/pdf. Default 10 MiB.' },
      binary: { type: 'integer', minimum: 0, maximum: MAX_INLINE_CAP_BYTES, description: 'Any other binary type. Default 1 MiB.' },
    },
  },
  execTimeoutMs: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_TIMEOUT_MS,
    description: 'Timeout for a command that names none, in milliseconds. Default 60000.',
  },
  execMaxTimeoutMs: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_TIMEOUT_MS,
    description: 'Ceiling for any command timeout, in milliseconds. Default 600000.',
  },
  execOutputCapBytes: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_OUTPUT_CAP_BYTES,
    description: 'Bytes kept per output stream (stdout, stderr) of a command; the rest is cut. Default 1 MiB.',
  },
  execEnvAllowlist: {
    type: 'array',
    items: { type: 'string', pattern: ENV_NAME_PATTERN },
    uniqueItems: true,
    maxItems: 256,
    description: 'Environment variable names passed to commands on top of PATH, HOME, LANG and the other defaults.',
  },
  execNetwork: {
    type: 'boolean',
    description: "Whether commands may use the machine's network. Default false: a command gets its own empty network namespace.",
  },
  execMaxProcesses: {
    type: 'integer',
    minimum: MIN_EXEC_PROCESSES,
    maximum: MAX_EXEC_PROCESSES,
    description: 'Most processes and threads one command may have at once. Default 1024.',
  },
  allowHardLinks: {
    type: 'boolean',
    description: 'Whether files with more than one hard link are served; such a file may also be reachable outside the root. Default false.',
  },
  stateDir: {
    type: 'string',
    pattern: '^/',
    minLength: 2,
    description: 'Absolute folder for detached-run state and logs. Default: <projectRoot>/.inseam/runs/<kind>/<source>.',
  },
  watchMaxDirectories: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_WATCH_DIRECTORIES,
    description: 'Most directories watched at once; beyond it the watcher asks for a rescan. Default 8192.',
  },
} as const;

/**
 * Checks and fills in defaults. `checkRoot` validates the kind's own `root` form and returns it.
 * Throws `invalid_config` naming the field and what would be accepted.
 */
export function parseFolderSettings(config: Readonly<Record<string, unknown>>, checkRoot: (root: unknown) => string): FolderSettings {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new InvalidConfigError('The source config must be an object.');
  }
  for (const key of Object.keys(config)) {
    if (!SETTINGS_KEYS.has(key)) throw new InvalidConfigError(`Unknown config field "${key}"; check its spelling.`, { details: { field: key } });
  }
  const root = checkRoot(config.root);
  const exec: ExecSettings = {
    defaultTimeoutMs: integer(config, 'execTimeoutMs', 1, MAX_TIMEOUT_MS, DEFAULT_EXEC_TIMEOUT_MS),
    maxTimeoutMs: integer(config, 'execMaxTimeoutMs', 1, MAX_TIMEOUT_MS, DEFAULT_EXEC_MAX_TIMEOUT_MS),
    outputCapBytes: integer(config, 'execOutputCapBytes', 1, MAX_OUTPUT_CAP_BYTES, DEFAULT_EXEC_OUTPUT_CAP_BYTES),
    envAllowlist: envNames(config.execEnvAllowlist),
    network: flag(config, 'execNetwork'),
    maxProcesses: integer(config, 'execMaxProcesses', MIN_EXEC_PROCESSES, MAX_EXEC_PROCESSES, DEFAULT_EXEC_MAX_PROCESSES),
  };
  const stateDir = config.stateDir;
  if (stateDir !== undefined && (typeof stateDir !== 'string' || !stateDir.startsWith('/') || stateDir.length < 2 || stateDir.includes('\0'))) {
    throw new InvalidConfigError('"stateDir" must be an absolute folder path.', { details: { field: 'stateDir' } });
  }
  return Object.freeze({
    root,
    textCapBytes: integer(config, 'textCapBytes', 1, MAX_TEXT_CAP_BYTES, DEFAULT_TEXT_CAP_BYTES),
    inlineCaps: inlineCaps(config.inlineCaps),
    exec: Object.freeze(exec),
    allowHardLinks: flag(config, 'allowHardLinks'),
    ...(stateDir === undefined ? {} : { stateDir: stateDir }),
    watchMaxDirectories: integer(config, 'watchMaxDirectories', 1, MAX_WATCH_DIRECTORIES, DEFAULT_WATCH_MAX_DIRECTORIES),
  });
}

function integer(config: Readonly<Record<string, unknown>>, field: string, min: number, max: number, fallback: number): number {
  const value = config[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidConfigError(`"${field}" must be an integer from ${min} to ${max}.`, { details: { field } });
  }
  return value;
}

function flag(config: Readonly<Record<string, unknown>>, field: string): boolean {
  const value = config[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new InvalidConfigError(`"${field}" must be true or false.`, { details: { field } });
  return value;
}

function inlineCaps(value: unknown): InlineCaps {
  if (value === undefined) return DEFAULT_INLINE_CAPS;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidConfigError('"inlineCaps" must be an object with optional image, video, pdf and binary byte caps.', {
      details: { field: 'inlineCaps' },
    });
  }
  const caps = value as Record<string, unknown>;
  for (const key of Object.keys(caps)) {
    if (!INLINE_CAP_KEYS.has(key)) {
      throw new InvalidConfigError(`Unknown field "inlineCaps.${key}"; use image, video, pdf or binary.`, { details: { field: `inlineCaps.${key}` } });
    }
  }
  const cap = (key: keyof InlineCaps): number => integer(caps, key, 0, MAX_INLINE_CAP_BYTES, DEFAULT_INLINE_CAPS[key]);
  return Object.freeze({ image: cap('image'), video: cap('video'), pdf: cap('pdf'), binary: cap('binary') });
}

function envNames(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 256 || !value.every((name) => typeof name === 'string' && ENV_NAME.test(name))) {
    throw new InvalidConfigError('"execEnvAllowlist" must be a list of environment variable names (letters, digits and "_").', {
      details: { field: 'execEnvAllowlist' },
    });
  }
  return Object.freeze([...new Set(value as string[])]);
}
