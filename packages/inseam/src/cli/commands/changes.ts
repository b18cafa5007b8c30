/**
 * `inseam put|rm|mkdir|mv|cp`: changing hosts from the shell, through the filesystem service —
 * the same operations, permission checks and catalog updates as `/v1` and MCP — as the local
 * person (the OS user name), in the network of the first address (see files.ts for addresses).
 *
 * `put` streams stdin or a local file to the host; `mv` and `cp` stream between any two hosts of a
 * network. Each is quiet on success, as Unix tools are; `--json` prints what was done.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { hasErrorCode, IsADirectoryError, NotFoundError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import { formatAddress } from '../../address/index.js';
import type { Caller, FsService } from '../../fs/index.js';
import type { Platform } from '../../platform/index.js';
import type { CliIo } from '../io.js';
import { printJson, resolveAddress, withPlatform } from './support.js';

interface ChangeOptions {
  readonly network?: string;
  readonly json?: boolean;
}

interface Session {
  readonly fs: FsService;
  readonly caller: Caller;
  /** The addresses given, global, in the network of the first. */
  readonly addresses: readonly string[];
}

/** The service and the local person's caller, in the network of the first address. */
async function session(platform: Platform, texts: readonly string[], options: ChangeOptions, io: CliIo): Promise<Session> {
  const { FsService } = await import('../../fs/index.js');
  const first = await resolveAddress(platform, texts[0]!, options.network, io);
  const addresses = [formatAddress(first)];
  for (const text of texts.slice(1)) addresses.push(formatAddress(await resolveAddress(platform, text, first.network, io)));
  const caller: Caller = { session: { userId: userInfo().username, projectId: first.network, features: new Set<string>() } };
  return { fs: new FsService(platform), caller, addresses };
}

/** A local file as a byte stream. Throws `not_found` or `is_a_directory`, naming the file as given. */
async function localFile(path: string): Promise<ReadableStream<Uint8Array>> {
  const found = await stat(path).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'ENOENT') throw new NotFoundError(`The local file ${JSON.stringify(path)} does not exist.`, { details: { argument: 'localFile' } });
    throw error;
  });
  if (found.isDirectory()) throw new IsADirectoryError(`${JSON.stringify(path)} is a folder; put takes one file (copy folders between hosts with \`inseam cp -r\`).`, { details: { argument: 'localFile' } });
  return Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
}

export function registerChangeCommands(program: Command, io: CliIo): void {
  const addressHelp = 'inseam://network/host/path, or host://path in the default network';

  program
    .command('put')
    .description('Write stdin, or a local file, to an object of a host (created or replaced).')
    .argument('<address>', addressHelp)
    .argument('[localFile]', 'the file to send (default: stdin)')
    .option('--network <slug>', 'the network a short address is read in')
    .option('--if-match <etag>', 'replace only the version with this etag (see `inseam stat`)')
    .option('--json', 'print the written entry as JSON')
    .action(async (text: string, file: string | undefined, options: ChangeOptions & { readonly ifMatch?: string }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const { fs, caller, addresses } = await session(platform, [text], options, io);
        const body = file === undefined ? (Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>) : await localFile(file);
        const entry = await fs.write(caller, addresses[0]!, body, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
        if (options.json === true) printJson(io, entry);
      });
    });

  program
    .command('rm')
    .description('Remove an object of a host, or with -r a folder and everything below it.')
    .argument('<address>', addressHelp)
    .option('--network <slug>', 'the network a short address is read in')
    .option('-r, --recursive', 'remove a folder and everything below it')
    .option('--if-match <etag>', 'remove only the version with this etag')
    .action(async (text: string, options: ChangeOptions & { readonly recursive?: boolean; readonly ifMatch?: string }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const { fs, caller, addresses } = await session(platform, [text], options, io);
        try {
          await fs.delete(caller, addresses[0]!, { ...(options.recursive === true ? { recursive: true } : {}), ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }) });
        } catch (error) {
          if (!hasErrorCode(error, 'precondition_failed') || error.details['reason'] !== 'not_empty') throw error;
          throw new PreconditionFailedError(`${addresses[0]!} is a folder with something in it; remove it and everything below it with \`inseam rm -r\`.`, { cause: error, details: error.details });
        }
      });
    });

  program
    .command('mkdir')
    .description('Make a folder of a host, and the folders on the way to it.')
    .argument('<address>', addressHelp)
    .option('--network <slug>', 'the network a short address is read in')
    .option('--json', 'print the folder as JSON')
    .action(async (text: string, options: ChangeOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const { fs, caller, addresses } = await session(platform, [text], options, io);
        const folder = await fs.mkdir(caller, addresses[0]!);
        if (options.json === true) printJson(io, folder);
        else if (folder.implied) io.stderr.write(`inseam: ${folder.address} keeps no empty folders; the folder shows once something is put in it.\n`);
      });
    });

  for (const verb of ['mv', 'cp'] as const) {
    const move = verb === 'mv';
    const defined = program
      .command(verb)
      .description(
        move
          ? 'Move an object or a folder to another place, on the same host or another; into <to> when it is a folder.'
          : 'Copy an object (with -r a folder) to another place, on the same host or another; into <to> when it is a folder.',
      )
      .argument('<from>', addressHelp)
      .argument('<to>', `${addressHelp}, in the network of <from>`)
      .option('--network <slug>', 'the network short addresses are read in')
      .option('-n, --no-clobber', 'never replace a file at the target')
      .option('--json', 'print what was done as JSON');
    if (!move) defined.option('-r, --recursive', 'copy a folder and everything below it');
    defined.action(async (from: string, to: string, options: ChangeOptions & { readonly clobber?: boolean; readonly recursive?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const { fs, caller, addresses } = await session(platform, [from, to], options, io);
        const createOnly = options.clobber === false ? { createOnly: true } : {};
        const done = move
          ? await fs.move(caller, addresses[0]!, addresses[1]!, createOnly)
          : await fs.copy(caller, addresses[0]!, addresses[1]!, { ...createOnly, ...(options.recursive === true ? { recursive: true } : {}) }).catch((error: unknown) => {
              if (!hasErrorCode(error, 'is_a_directory') || error.details['argument'] !== 'recursive') throw error;
              throw new IsADirectoryError(`${addresses[0]!} is a folder; copy it and everything below it with \`inseam cp -r\`.`, { cause: error, details: error.details });
            });
        if (options.json === true) printJson(io, done);
      });
    });
  }
}
