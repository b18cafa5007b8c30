/**
 * What the platform commands share: the global `--data` and `--store` options, opening the
 * platform around a command (with the installed connectors registered) and closing it, reading
 * JSON arguments, naming hosts and addresses, and printing.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidArgumentError, InvalidConfigError, NotFoundError } from '@neuralis/package-system/contracts';
import { checkHostSlug, checkNetworkSlug, parseAddress, type Address } from '../../address/index.js';
import type { ConnectorLifecycle } from '../../connectors/index.js';
import type { OpenPlatformOptions, Platform } from '../../platform/index.js';
import type { HostRef } from '../../store/index.js';
import type { CliIo } from '../io.js';
import { jsonFault } from './json-fault.js';

/** The variable naming the network short addresses are read in, when `--network` is not given. */
export const NETWORK_ENV = 'INSEAM_NETWORK';

/**
 * `--data <dir>` and `--store <url>` on the program: the data directory every platform command
 * works on, and the store it keeps its state in.
 */
export function registerDataOption(program: Command): void {
  program.option('--data <dir>', 'the inseam data directory (default: $INSEAM_DATA_DIR, else $XDG_DATA_HOME/inseam, else ~/.local/share/inseam)');
  program.option('--store <url>', 'the store: a postgres://user:password@host/database URL shared by several processes (default: $INSEAM_DATABASE_URL, else the embedded SQLite file in the data directory)');
}

/** The openPlatform options the global `--data` and `--store` and the environment give. */
export function platformOptions(command: Command, io: CliIo): OpenPlatformOptions {
  const { data, store } = command.optsWithGlobals<{ data?: string; store?: string }>();
  return { ...(data === undefined ? {} : { dataDir: data }), ...(store === undefined ? {} : { storeUrl: store }), env: io.env };
}

/**
 * Opens the platform named by `--data`, `--store` and the environment, registers the sandboxed
 * connectors installed earlier (so hosts of their kinds work in every command), runs `work` with the platform
 * and that connector lifecycle, and always closes the platform. A module that cannot be registered
 * again is reported on stderr, not thrown: the command goes on, only hosts of that kind fail.
 */
export async function withPlatform<T>(command: Command, io: CliIo, work: (platform: Platform, connectors: ConnectorLifecycle) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: `inseam --help` and friends must not pay for the platform.
  const [{ openPlatform }, { ConnectorLifecycle }] = await Promise.all([import('../../platform/index.js'), import('../../connectors/index.js')]);
  const platform = await openPlatform(platformOptions(command, io));
  try {
    const connectors = new ConnectorLifecycle(platform);
    for (const failure of (await connectors.restore()).failed) {
      io.stderr.write(`inseam: connector module ${failure.sha.slice(0, 12)} could not be registered again: ${failure.message} [${failure.code}]\n`);
    }
    return await work(platform, connectors);
  } finally {
    await platform.close();
  }
}

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

/**
 * A JSON argument given inline or as `@file`. Throws `not_found` for a missing file and
 * `invalid_config` for text that is not JSON, naming where it goes wrong and what was expected
 * there (never echoing the text: it may hold a secret).
 */
export async function readJsonArgument(value: string, option: string): Promise<unknown> {
  let text = value;
  if (value.startsWith('@')) {
    const path = value.slice(1);
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') throw new NotFoundError(`The file ${JSON.stringify(path)} given to ${option} does not exist.`);
      throw error;
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const fault = jsonFault(text);
    throw new InvalidConfigError(`${option} is not JSON: ${fault.problem} at line ${fault.line}, column ${fault.column}; give a JSON value inline or as @file.`, {
      details: { argument: option, line: fault.line, column: fault.column, position: fault.position },
    });
  }
}

/** A JSON object argument (see readJsonArgument). Throws `invalid_config` for anything else. */
export async function readJsonObject(value: string, option: string): Promise<Record<string, unknown>> {
  const parsed = await readJsonArgument(value, option);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidConfigError(`${option} must be a JSON object.`, { details: { argument: option } });
  return parsed as Record<string, unknown>;
}

/**
 * `--credential field=value` values: `value` as given, `@file` for a file's contents (one
 * trailing newline dropped), `-` for one line read from stdin. Throws `invalid_argument` for a
 * malformed entry or a field given twice; never echoes a value.
 */
export async function readCredentials(entries: readonly string[], io: CliIo): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    const name = equals < 0 ? '' : entry.slice(0, equals);
    if (name === '') throw new InvalidArgumentError('A --credential is written field=value (or field=@file, or field=- to read it from stdin).', { details: { argument: 'credential' } });
    if (Object.hasOwn(values, name)) throw new InvalidArgumentError(`The credential field "${name}" is given twice.`, { details: { argument: 'credential' } });
    const raw = entry.slice(equals + 1);
    if (raw === '-') values[name] = await readLine(io);
    else if (raw.startsWith('@')) values[name] = (await readFile(raw.slice(1), 'utf8').catch(() => Promise.reject(new NotFoundError(`The credential file for field "${name}" cannot be read.`)))).replace(/\r?\n$/, '');
    else values[name] = raw;
  }
  return values;
}

async function readLine(io: CliIo): Promise<string> {
  // Loaded here, not at the top: only a prompt needs readline, and every command loads this module.
  const { createInterface } = await import('node:readline');
  return new Promise((resolve) => {
    const lines = createInterface({ input: io.stdin, terminal: false });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) resolve('');
    });
  });
}

/**
 * A host named `network/host` or `inseam://network/host[/]`. Throws `invalid_uri` for bad slugs
 * and `invalid_argument` for another shape.
 */
export function parseHostArgument(text: string): HostRef {
  if (text.startsWith('inseam://')) {
    const address = parseAddress(text);
    if (address.path !== '') throw new InvalidArgumentError(`${JSON.stringify(text)} names a path inside a host; name the host itself, e.g. inseam://home/notes.`);
    return { network: address.network!, host: address.host };
  }
  const parts = text.split('/');
  if (parts.length !== 2) throw new InvalidArgumentError(`A host is named network/host (e.g. home/notes) or inseam://network/host; ${JSON.stringify(text)} is neither.`);
  return { network: checkNetworkSlug(parts[0]), host: checkHostSlug(parts[1]) };
}

/**
 * The network a short address or a command is read in: `--network`, else INSEAM_NETWORK, else
 * the only network there is. Throws `invalid_argument` when that leaves it open.
 */
export async function defaultNetwork(platform: Platform, given: string | undefined, io: CliIo): Promise<string> {
  const named = given ?? (io.env[NETWORK_ENV] === '' ? undefined : io.env[NETWORK_ENV]);
  if (named !== undefined) return checkNetworkSlug(named);
  const networks = await platform.networks.list();
  if (networks.length === 1) return networks[0]!.slug;
  throw new InvalidArgumentError(
    networks.length === 0
      ? 'There is no network yet; create one with `inseam network init <slug>`.'
      : `Which network? There are ${networks.length}; name one with --network or ${NETWORK_ENV}, or use a global address inseam://network/host/path.`,
    { details: { argument: 'network' } },
  );
}

/** An address in either form, with its network filled in (see defaultNetwork). */
export async function resolveAddress(platform: Platform, text: string, network: string | undefined, io: CliIo): Promise<Address & { readonly network: string }> {
  const parsed = parseAddress(text);
  if (parsed.network !== undefined) return parsed as Address & { readonly network: string };
  return { ...parsed, network: await defaultNetwork(platform, network, io) };
}

/** A host named like parseHostArgument, or by a short address `host://` in the default network. */
export async function resolveHost(platform: Platform, text: string, network: string | undefined, io: CliIo): Promise<HostRef> {
  if (!text.includes('://') || text.startsWith('inseam://')) return parseHostArgument(text);
  const address = await resolveAddress(platform, text, network, io);
  if (address.path !== '') throw new InvalidArgumentError(`${JSON.stringify(text)} names a path inside a host; name the host itself, e.g. ${address.host}://.`);
  return { network: address.network, host: address.host };
}

export { write } from './output.js';

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Left-aligned columns, two spaces apart; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!))).join('  ').trimEnd()).join('\n') + (rows.length > 0 ? '\n' : '');
}

// Made at the first use: building a NumberFormat starts ICU, which every command would otherwise pay for at load.
let counts: Intl.NumberFormat | undefined;

/** 1234567 → "1,234,567": every count a person reads (progress lines and summaries alike). */
export function formatCount(value: number): string {
  return (counts ??= new Intl.NumberFormat('en-US')).format(value);
}

/** (1, 'entry', 'entries') → "1 entry"; (1234, …) → "1,234 entries". */
export function formatCountOf(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** 1234567 → "1.2 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** 75000 → "1:15", 3725000 → "1:02:05". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** Whether a stream is a terminal. */
export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Resolves at the first SIGINT or SIGTERM; `again` at every later one. */
export function stopSignals(again: () => void): { readonly stopped: Promise<string>; dispose(): void } {
  let first = true;
  let resolveStop: (signal: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (resolveStop = resolve));
  const onSignal = (signal: string): void => {
    if (first) {
      first = false;
      resolveStop(signal);
    } else again();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
