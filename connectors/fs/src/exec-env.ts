/**
 * The environment a command runs with: only allow-listed names, never the platform's own
 * environment wholesale (which holds the master key, tokens and database URLs).
 */

/** Names passed from the platform's environment by default: what shells and tools need to work. */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = Object.freeze([
  'PATH', 'HOME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ', 'TERM', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR',
]);

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * Allow-listed names take the platform's value, then the request's value for allow-listed names
 * overrides it; every other name in the request is dropped without an error (the contract's
 * "passes only names on its allowlist"). PATH always has a value.
 */
export function commandEnvironment(
  extraAllowed: readonly string[],
  requested: Readonly<Record<string, string>> | undefined,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const allowed = new Set([...DEFAULT_ENV_ALLOWLIST, ...extraAllowed]);
  const env: Record<string, string> = {};
  for (const name of allowed) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  if (requested !== undefined && requested !== null && typeof requested === 'object') {
    for (const [name, value] of Object.entries(requested)) {
      if (allowed.has(name) && typeof value === 'string' && !value.includes('\0')) env[name] = value;
    }
  }
  env.PATH ??= FALLBACK_PATH;
  return env;
}

/**
 * The environment inside the command sandbox: the platform's home and temp folders do not exist
 * there (and their paths are the platform's), so HOME and TMPDIR default to the sandbox's /tmp.
 */
export function sandboxEnvironment(
  extraAllowed: readonly string[],
  requested: Readonly<Record<string, string>> | undefined,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return commandEnvironment(extraAllowed, requested, { ...parent, HOME: '/tmp', TMPDIR: '/tmp' });
}
