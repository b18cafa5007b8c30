/**
 * Command lines for the machine's shell. Everything inseam puts into a command line is quoted
 * here, once: single quotes, with `'` spelled `'\''`, so no path, name or value is ever read as
 * shell syntax. The machine needs a POSIX /bin/sh and util-linux's setsid.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { DEFAULT_ENV_ALLOWLIST } from '@inseam/connector-fs';

export function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Throws `invalid_argument` unless `command` is a non-empty string without NUL bytes. */
export function checkCommand(command: unknown): string {
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
    throw new InvalidArgumentError('command must be a non-empty shell command line without NUL bytes.', { details: { argument: 'command' } });
  }
  return command;
}

/**
 * `env -i` arguments: the login's own value of each default name (PATH, HOME, LANG, …) when it
 * has one, then the request's values for allow-listed names. Other requested names are dropped.
 */
export function environmentWords(allowlist: readonly string[], requested: Readonly<Record<string, string>> | undefined): string {
  const allowed = new Set([...DEFAULT_ENV_ALLOWLIST, ...allowlist]);
  const words = DEFAULT_ENV_ALLOWLIST.map((name) => `\${${name}+"${name}=$${name}"}`);
  if (requested !== undefined && requested !== null && typeof requested === 'object') {
    for (const [name, value] of Object.entries(requested)) {
      if (allowed.has(name) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && typeof value === 'string' && !value.includes('\0')) words.push(quote(`${name}=${value}`));
    }
  }
  return words.join(' ');
}

/** Runs `script` with /bin/sh whatever the login's shell is. */
export function viaSh(script: string): string {
  return `/bin/sh -c ${quote(script)}`;
}
