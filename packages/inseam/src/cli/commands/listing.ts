/**
 * Whole trees of a host, live: `inseam ls -R` (every entry below a folder; with `--json`, the
 * fields of `rclone lsjson -R` plus inseam's etag and address), `inseam tree` (drawn, `--depth N`
 * levels) and `inseam du` / `inseam size` (the bytes and the count of files below an address).
 *
 * Each goes through the filesystem service as the person running the command, so the host's
 * permission tree applies as for `ls` (what may not be read is left out), and an offline host is
 * answered from its synced catalog. Output is written as the walk goes (walk.ts): a tree of any
 * size is never held in memory, and `| head` stops it.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { formatAddress } from '../../address/index.js';
import type { FsEntry } from '../../fs/index.js';
import type { Platform } from '../../platform/index.js';
import type { CliIo } from '../io.js';
import { formatBytes, formatCountOf, printJson, resolveAddress, withPlatform, write } from './support.js';
import { localCaller, openFs, walk } from './walk.js';

export interface RecursiveListOptions {
  readonly network?: string;
  readonly json?: boolean;
  readonly names?: boolean;
}

interface DepthOptions {
  readonly network?: string;
  readonly depth?: string;
  readonly json?: boolean;
}

/** `--depth`: a whole number of levels, at least 1. */
function depthOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) {
    throw new InvalidArgumentError(`--depth must be a whole number of levels, 1 or more, not ${JSON.stringify(text)}.`, { details: { argument: 'depth' } });
  }
  return Number(text);
}

/** The global address the command works on, and the caller it works as. */
async function target(platform: Platform, text: string, network: string | undefined, io: CliIo) {
  const address = await resolveAddress(platform, text, network, io);
  return { global: formatAddress(address), caller: localCaller(address.network) };
}

/** An entry as `rclone lsjson` prints it (Path relative to the listed folder), with inseam's etag and address. */
function lsjsonOf(entry: FsEntry, path: string): Record<string, unknown> {
  const directory = entry.type === 'directory';
  return {
    Path: path,
    Name: entry.name,
    Size: directory || entry.size === undefined ? -1 : entry.size,
    MimeType: directory ? 'inode/directory' : (entry.mime ?? 'application/octet-stream'),
    ...(entry.mtime === undefined ? {} : { ModTime: entry.mtime }),
    IsDir: directory,
    ...(entry.etag === undefined ? {} : { ETag: entry.etag }),
    Address: entry.address,
  };
}

function entryLine(entry: FsEntry, path: string): string {
  const directory = entry.type === 'directory';
  const size = directory ? '-' : entry.size === undefined ? '?' : formatBytes(entry.size);
  return `${directory ? 'd' : '-'}  ${size.padStart(9)}  ${(entry.mtime ?? '-').padEnd(24)}  ${path}${directory ? '/' : ''}\n`;
}

/** `inseam ls -R <address>`: every entry below the folder, one line (or one JSON object) each. */
export async function listRecursive(platform: Platform, text: string, options: RecursiveListOptions, io: CliIo): Promise<void> {
  const { global, caller } = await target(platform, text, options.network, io);
  const fs = await openFs(platform);
  const names = options.names === true;
  let first = true;
  if (options.json === true) await write(io.stdout, '[');
  for await (const { entry, path } of walk(fs, caller, global, names ? { detail: 'names' } : {})) {
    if (options.json === true) await write(io.stdout, `${first ? '\n  ' : ',\n  '}${JSON.stringify(lsjsonOf(entry, path))}`);
    else await write(io.stdout, names ? `${path}${entry.type === 'directory' ? '/' : ''}\n` : entryLine(entry, path));
    first = false;
  }
  if (options.json === true) await write(io.stdout, first ? ']\n' : '\n]\n');
}

interface Usage {
  readonly address: string;
  readonly bytes: number;
  readonly files: number;
  readonly folders: number;
  /** Files whose host gave no size: counted, not in `bytes`. */
  readonly unsized: number;
}

async function usageOf(platform: Platform, text: string, options: DepthOptions, io: CliIo): Promise<Usage> {
  const depth = depthOption(options.depth);
  const { global, caller } = await target(platform, text, options.network, io);
  const fs = await openFs(platform);
  const self = await fs.stat(caller, global);
  if (self.type !== 'directory') return { address: self.address, bytes: self.size ?? 0, files: 1, folders: 0, unsized: self.size === undefined ? 1 : 0 };
  let bytes = 0;
  let files = 0;
  let folders = 0;
  let unsized = 0;
  for await (const { entry } of walk(fs, caller, global, depth === undefined ? {} : { depth })) {
    if (entry.type === 'directory') folders += 1;
    else {
      files += 1;
      if (entry.size === undefined) unsized += 1;
      else bytes += entry.size;
    }
  }
  return { address: self.address, bytes, files, folders, unsized };
}

export function registerListingCommands(program: Command, io: CliIo): void {
  program
    .command('tree')
    .description('Draw a folder of a host and what is below it, live.')
    .argument('<address>', 'inseam://network/host/path, or host://path in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--depth <n>', 'how many levels to go down (default: all)')
    .action(async (text: string, options: DepthOptions, command: Command) => {
      const depth = depthOption(options.depth);
      await withPlatform(command, io, async (platform) => {
        const { global, caller } = await target(platform, text, options.network, io);
        const fs = await openFs(platform);
        // Written once the folder listed, so a refused address prints nothing on stdout.
        let headed = false;
        const head = async (): Promise<void> => {
          if (!headed) await write(io.stdout, `${global}\n`);
          headed = true;
        };
        // Whether the folder at each level above the entry was the last of its own folder.
        const lastAt: boolean[] = [];
        let files = 0;
        let folders = 0;
        for await (const { entry, depth: level, last } of walk(fs, caller, global, { detail: 'names', ...(depth === undefined ? {} : { depth }) })) {
          await head();
          lastAt.length = level - 1;
          const indent = lastAt.map((ended) => (ended ? '    ' : '│   ')).join('');
          const directory = entry.type === 'directory';
          await write(io.stdout, `${indent}${last ? '└── ' : '├── '}${entry.name}${directory ? '/' : ''}\n`);
          lastAt.push(last);
          if (directory) folders += 1;
          else files += 1;
        }
        await head();
        await write(io.stdout, `\n${formatCountOf(folders, 'folder', 'folders')}, ${formatCountOf(files, 'file', 'files')}\n`);
      });
    });

  program
    .command('du')
    .alias('size')
    .description('Total the bytes and count the files below an address of a host, live.')
    .argument('<address>', 'inseam://network/host/path, or host://path in the default network')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--depth <n>', 'only count this many levels down (default: all)')
    .option('--json', 'print { address, bytes, files, folders, unsized } as JSON')
    .action(async (text: string, options: DepthOptions, command: Command) => {
      depthOption(options.depth);
      await withPlatform(command, io, async (platform) => {
        const usage = await usageOf(platform, text, options, io);
        if (options.json === true) return printJson(io, usage);
        const unsized = usage.unsized === 0 ? '' : ` (${formatCountOf(usage.unsized, 'file', 'files')} of unknown size not counted)`;
        io.stdout.write(
          `${formatBytes(usage.bytes)} (${formatCountOf(usage.bytes, 'byte', 'bytes')}) in ${formatCountOf(usage.files, 'file', 'files')} and ${formatCountOf(usage.folders, 'folder', 'folders')}${unsized}: ${usage.address}\n`,
        );
      });
    });
}
