/**
 * The `inseam` command. Each subcommand lives in its own module under commands/ and registers
 * itself here; this file only assembles them and owns the exit-code contract:
 *
 *   0  success (for `inseam trial`: the trial passed)
 *   1  the operation ran and its answer is "no" (a failed trial, a failed check)
 *   2  bad usage or bad input (a typed error whose code is invalid_*, *_invalid, not_found, …)
 *   3  the platform could not do it now (unavailable, timeout, rate_limited)
 *   4  an unexpected failure (a bug); the message says where to report it
 */
import { Command, CommanderError } from 'commander';
import { isConnectorError, type ErrorCode } from '@neuralis/package-system/contracts';
import { registerCommands } from './commands/index.js';
import { EXIT, type CliIo } from './io.js';
import { isClosedOutput } from './commands/output.js';
import { VERSION } from './version.js';

export { EXIT, type CliIo } from './io.js';

const UNAVAILABLE_CODES: ReadonlySet<ErrorCode> = new Set(['unavailable', 'timeout', 'rate_limited']);

export function createProgram(io: CliIo): Command {
  const program = new Command('inseam')
    .description('Mount folders, buckets, APIs and mailboxes into one URI-addressed filesystem.')
    .version(VERSION)
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();
  registerCommands(program, io);
  return program;
}

/** Runs the CLI and resolves with the process exit code; never calls process.exit itself. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  // Commands report "no" through process.exitCode; a previous in-process run must not leak into this one.
  process.exitCode = undefined;
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return exitCodeFor(error, io);
  }
}

function exitCodeFor(error: unknown, io: CliIo): number {
  // The reader of stdout went away (`inseam cat big | head`): done, as a Unix tool is — whichever
  // command wrote, and however (the output layer's write, or a stream's own EPIPE).
  if (isClosedOutput(error, io.stdout)) return EXIT.ok;
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (isConnectorError(error)) {
    io.stderr.write(`inseam: ${error.message} [${error.code}]\n`);
    return UNAVAILABLE_CODES.has(error.code) ? EXIT.unavailable : EXIT.usage;
  }
  io.stderr.write(`inseam: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.internal;
}
