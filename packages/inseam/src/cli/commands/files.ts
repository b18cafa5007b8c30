/**
 * `inseam ls|stat|cat <address>`: the live host, through the host's permission tree.
 *
 * An address is global (`inseam://home/notes/docs/a.md`) or short (`notes://docs/a.md`, read in
 * `--network`, INSEAM_NETWORK or the only network). A path the host's permissions do not let be
 * read is `permission_denied`; `ls` leaves out entries that may not be read.
 *
 * `cat --range a-b` writes bytes a to b inclusive (0-based, as HTTP ranges count), `a-` from a
 * to the end, `-n` the last n bytes. Bytes go to stdout as they come, never decoded.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, NotFoundError, PermissionDeniedError, type ConnectorEntry, type ConnectorPort } from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import { addressFromSourceUri, addressToSourceUri, formatAddress, type Address } from '../../address/index.js';
import type { Platform } from '../../platform/index.js';
import type { HostRecord } from '../../store/index.js';
import type { CliIo } from '../io.js';
import { listRecursive } from './listing.js';
import { copyToOutput } from './output.js';
import { formatBytes, resolveAddress, write, withPlatform } from './support.js';

interface FileOptions {
  readonly network?: string;
  readonly json?: boolean;
  readonly names?: boolean;
  readonly recursive?: boolean;
}

interface Located {
  readonly address: Address & { readonly network: string };
  readonly record: HostRecord;
}

async function locate(platform: Platform, text: string, options: FileOptions, io: CliIo): Promise<Located> {
  const address = await resolveAddress(platform, text, options.network, io);
  const record = await platform.networks.hostRecord({ network: address.network, host: address.host });
  if (!platform.kinds.permissionsOf(record).allows(address.segments, 'read')) {
    throw new PermissionDeniedError(`The permissions of host "${record.slug}" do not allow reading ${formatAddress(address)}.`, {
      details: { network: address.network, host: record.slug, right: 'read' },
    });
  }
  return { address, record };
}

/** `a-b`, `a-` or `-n` as a host read range `[start, end)`; the size is only asked for `-n`. */
async function parseRange(text: string, size: () => Promise<number>): Promise<[number, number]> {
  const match = /^(\d{0,15})-(\d{0,15})$/.exec(text);
  const refuse = (): never => {
    throw new InvalidArgumentError(`--range ${JSON.stringify(text)} is not a-b (bytes a to b, inclusive), a- (from a to the end) or -n (the last n bytes).`, {
      details: { argument: 'range' },
    });
  };
  if (match === null || (match[1] === '' && match[2] === '')) return refuse();
  const [, from = '', to = ''] = match;
  if (from === '') {
    const total = await size();
    return [Math.max(0, total - Number(to)), total];
  }
  if (to === '') return [Number(from), Number.MAX_SAFE_INTEGER];
  if (Number(to) < Number(from)) return refuse();
  return [Number(from), Number(to) + 1];
}

function entryLine(entry: ConnectorEntry): string {
  const size = entry.type === 'directory' ? '-' : entry.size === undefined ? '?' : formatBytes(entry.size);
  return `${entry.type === 'directory' ? 'd' : '-'}  ${size.padStart(9)}  ${(entry.mtime ?? '-').padEnd(24)}  ${entry.name}${entry.type === 'directory' ? '/' : ''}\n`;
}

function entryJson(entry: ConnectorEntry, network: string): Record<string, unknown> {
  return {
    address: formatAddress(addressFromSourceUri(entry.uri, { network })),
    name: entry.name,
    type: entry.type,
    ...(entry.size === undefined ? {} : { size: entry.size }),
    ...(entry.mtime === undefined ? {} : { mtime: entry.mtime }),
    ...(entry.mime === undefined ? {} : { mime: entry.mime }),
    ...(entry.etag === undefined ? {} : { etag: entry.etag }),
  };
}

async function statOf(platform: Platform, located: Located): Promise<ConnectorEntry | Entry | null> {
  const port: ConnectorPort = await platform.kinds.openPort(located.record);
  if (port.capabilities().has('stat') && port.stat !== undefined) return port.stat(addressToSourceUri(located.address));
  return (await platform.kinds.openHost(located.record)).stat(located.address.path);
}

export function registerFilesCommand(program: Command, io: CliIo): void {
  program
    .command('ls')
    .description('List a folder of a host, live.')
    .argument('<address>', 'inseam://network/host/path, or host://path in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--json', 'print the entries as a JSON array')
    .option('--names', 'names and types only: no size or time, and no stat per entry (faster on large folders)')
    .option('-R, --recursive', 'every folder below too, depth first, paths relative to the folder (with --json: like rclone lsjson -R)')
    .action(async (text: string, options: FileOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        if (options.recursive === true) return listRecursive(platform, text, options, io);
        const located = await locate(platform, text, options, io);
        const permissions = platform.kinds.permissionsOf(located.record);
        const detail = options.names === true ? { detail: 'names' as const } : {};
        const port = await platform.kinds.openPort(located.record);
        const uri = addressToSourceUri(located.address);
        let cursor: string | undefined;
        let first = true;
        if (options.json === true) await write(io.stdout, '[');
        do {
          const page = await port.list(uri, { ...detail, ...(cursor === undefined ? {} : { cursor }) });
          for (const entry of page.entries) {
            if (!permissions.allows(addressFromSourceUri(entry.uri, { network: located.address.network }).segments, 'read')) continue;
            if (options.json === true) {
              await write(io.stdout, `${first ? '\n  ' : ',\n  '}${JSON.stringify(entryJson(entry, located.address.network))}`);
            } else {
              await write(io.stdout, options.names === true ? `${entry.name}${entry.type === 'directory' ? '/' : ''}\n` : entryLine(entry));
            }
            first = false;
          }
          cursor = page.cursor;
        } while (cursor !== undefined);
        if (options.json === true) await write(io.stdout, first ? ']\n' : '\n]\n');
      });
    });

  program
    .command('stat')
    .description('Show one object of a host, live.')
    .argument('<address>', 'inseam://network/host/path, or host://path in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--json', 'print the entry as JSON')
    .action(async (text: string, options: FileOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const located = await locate(platform, text, options, io);
        const found = await statOf(platform, located);
        const address = formatAddress(located.address);
        if (found === null) throw new NotFoundError(`Nothing exists at ${address}.`, { details: { network: located.address.network, host: located.record.slug } });
        const fields: Record<string, unknown> = { address, type: 'type' in found ? found.type : 'file' };
        for (const key of ['size', 'mtime', 'mime', 'etag', 'nativeId', 'nativeHash'] as const) {
          const value = (found as Partial<Record<typeof key, unknown>>)[key];
          if (value !== undefined) fields[key] = value;
        }
        if (options.json === true) return void io.stdout.write(`${JSON.stringify(fields, null, 2)}\n`);
        for (const [key, value] of Object.entries(fields)) io.stdout.write(`${`${key}:`.padEnd(10)} ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
      });
    });

  program
    .command('cat')
    .description('Write an object of a host to stdout, as bytes.')
    .argument('<address>', 'inseam://network/host/path, or host://path in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--range <a-b>', 'only bytes a to b (inclusive); a- to the end; -n the last n bytes')
    .action(async (text: string, options: FileOptions & { readonly range?: string }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const located = await locate(platform, text, options, io);
        const host = await platform.kinds.openHost(located.record);
        const path = located.address.path;
        const range =
          options.range === undefined
            ? undefined
            : await parseRange(options.range, async () => {
                const entry = await host.stat(path);
                return entry?.size ?? 0;
              });
        await copyToOutput(await host.read(path, range === undefined ? {} : { range }), io.stdout);
      });
    });
}
