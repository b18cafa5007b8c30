/**
 * `inseam store check [--json]` and `inseam store backup <file>`: the embedded store's file,
 * checked in full or copied while a server runs (docs/store.md says how to restore).
 *
 * `check` runs SQLite's full `integrity_check` and exits 1 when the file is damaged (empty, not
 * a database, or failing the check), 0 when it is sound; it opens the file without writing to
 * it, so it works on a store every other command refuses. `backup` refuses to copy a store that
 * fails the quick check, and never replaces a file. On PostgreSQL both are refused with a
 * pointer to the database's own tools: a server has its own checks and backups, and inseam holds
 * no more of the database than any other client.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { PlatformPaths, resolveDataDir } from '../../platform/data-dir.js';
import { EXIT, type CliIo } from '../io.js';
import { formatCount, printJson } from './support.js';
import { storeUrlOf } from './worker.js';

const POSTGRES_TOOLS = {
  check: 'check a PostgreSQL store with the server\'s own tools (pg_amcheck, or the amcheck extension)',
  backup: 'back up a PostgreSQL store with pg_dump (or the server\'s physical backups: pg_basebackup, WAL archiving)',
} as const;

/** The SQLite file the global options name. Throws `invalid_argument` for a PostgreSQL store. */
async function storeFile(command: Command, io: CliIo, what: keyof typeof POSTGRES_TOOLS): Promise<string> {
  // Loaded in the action: the store module brings better-sqlite3, which no other command's start should pay for.
  const { storeTarget } = await import('../../store/index.js');
  const { data } = command.optsWithGlobals<{ data?: string }>();
  const paths = new PlatformPaths(resolveDataDir({ dataDir: data, env: io.env }));
  const target = storeTarget(storeUrlOf(command, io), { defaultPath: paths.database });
  if (target.kind === 'postgres') {
    throw new InvalidArgumentError(`inseam store ${what} works on the embedded SQLite store; ${POSTGRES_TOOLS[what]}. See docs/store.md.`, { details: { argument: 'store', reason: 'store_postgres' } });
  }
  if (target.path === ':memory:') throw new InvalidArgumentError('An in-memory store has no file.', { details: { argument: 'store' } });
  return target.path;
}

export function registerStoreCommand(program: Command, io: CliIo): void {
  const store = program.command('store').description('Check or back up the embedded store (the SQLite file in the data directory).');
  store
    .command('check')
    .description('Run SQLite\'s full integrity check on the store file; exit 1 when it is damaged.')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { checkStoreFile } = await import('../../store/index.js');
      const report = await checkStoreFile(await storeFile(command, io, 'check'));
      if (options.json === true) printJson(io, report);
      else if (report.ok) io.stdout.write(`${report.file}: ok (${formatCount(report.bytes)} bytes; every page, index and constraint checked)\n`);
      else {
        io.stdout.write(`${report.file}: DAMAGED [${report.reason ?? 'store_corrupt'}]\n${report.problems.map((line) => `  ${line}\n`).join('')}`);
        io.stdout.write('Do not use this file: restore the store from a backup (docs/store.md, "Restoring"), or move it away to start an empty store.\n');
      }
      if (!report.ok) process.exitCode = EXIT.no;
    });
  store
    .command('backup')
    .description('Write a consistent copy of the store to <file> (a new file), safe while the server runs.')
    .argument('<file>', 'the copy to write; it must not exist')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, options: { json?: boolean }, command: Command) => {
      const { backupStore } = await import('../../store/index.js');
      const result = await backupStore(await storeFile(command, io, 'backup'), file);
      if (options.json === true) printJson(io, result);
      else io.stdout.write(`Backed up the store to ${result.file} (${formatCount(result.bytes)} bytes; its integrity check passed).\n`);
    });
}
