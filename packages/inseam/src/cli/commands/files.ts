/**
 * `inseam ls|stat|cat <address>`: a host, through the filesystem service as the person running
 * the command — the same permission, ownership and concealment checks as `/v1`, MCP and the web
 * page, and an offline host answered from its synced catalog (`stat` says which in `source`).
 *
 * An address is global (`inseam://home/notes/docs/a.md`) or short (`notes://docs/a.md`, read in
 * `--network`, INSEAM_NETWORK or the only network). A path the host's permissions do not let be
 * read is `permission_denied`; `ls` leaves out entries that may not be read.
 *
 * `cat --range a-b` writes bytes a to b inclusive (0-based, as HTTP ranges count), `a-` from a
 * to the end, `-n` the last n bytes. Bytes go to stdout as they come, never decoded.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { formatAddress } from '../../address/index.js';
import type { Caller, FsEntry, FsService } from '../../fs/index.js';
import type { Platform } from '../../platform/index.js';
import type { CliIo } from '../io.js';
import { listRecursive } from './listing.js';
import { copyToOutput } from './output.js';
import { formatBytes, resolveAddress, write, withPlatform } from './support.js';
import { localCaller, openFs } from './walk.js';

interface FileOptions {
  readonly network?: string;
  readonly json?: boolean;
  readonly names?: boolean;
  readonly recursive?: boolean;
}

interface Located {
  readonly fs: FsService;
  readonly caller: Caller;
  /** The global address. */
  readonly address: string;
}

async function locate(platform: Platform, text: string, options: FileOptions, io: CliIo): Promise<Located> {
  const address = await resolveAddress(platform, text, options.network, io);
  return { fs: await openFs(platform), caller: localCaller(address.network), address: formatAddress(address) };
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

function entryLine(entry: FsEntry): string {
  const size = entry.type === 'directory' ? '-' : entry.size === undefined ? '?' : formatBytes(entry.size);
  return `${entry.type === 'directory' ? 'd' : '-'}  ${size.padStart(9)}  ${(entry.mtime ?? '-').padEnd(24)}  ${entry.name}${entry.type === 'directory' ? '/' : ''}\n`;
}

function entryJson(entry: FsEntry): Record<string, unknown> {
  return {
    address: entry.address,
    name: entry.name,
    type: entry.type,
    ...(entry.size === undefined ? {} : { size: entry.size }),
    ...(entry.mtime === undefined ? {} : { mtime: entry.mtime }),
    ...(entry.mime === undefined ? {} : { mime: entry.mime }),
    ...(entry.etag === undefined ? {} : { etag: entry.etag }),
  };
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
        const { fs, caller, address } = await locate(platform, text, options, io);
        const detail = options.names === true ? { detail: 'names' as const } : {};
        let cursor: string | undefined;
        let first = true;
        if (options.json === true) await write(io.stdout, '[');
        do {
          const page = await fs.list(caller, address, { ...detail, ...(cursor === undefined ? {} : { cursor }) });
          for (const entry of page.entries) {
            if (options.json === true) {
              await write(io.stdout, `${first ? '\n  ' : ',\n  '}${JSON.stringify(entryJson(entry))}`);
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
        const { fs, caller, address } = await locate(platform, text, options, io);
        const found = await fs.stat(caller, address);
        const fields: Record<string, unknown> = { address: found.address, type: found.type };
        for (const key of ['size', 'mtime', 'mime', 'etag', 'source', 'envelope'] as const) {
          const value = found[key];
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
        const { fs, caller, address } = await locate(platform, text, options, io);
        const range =
          options.range === undefined
            ? undefined
            : await parseRange(options.range, async () => (await fs.stat(caller, address)).size ?? 0);
        const read = await fs.readStream(caller, address, range === undefined ? {} : { range: { offset: range[0], length: range[1] - range[0] } });
        await copyToOutput(read.stream, io.stdout);
      });
    });
}
