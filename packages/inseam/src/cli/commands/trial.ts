/**
 * `inseam trial <module> --config <file> [--json] [--phase submit|install] [--seed <n>] [--watch]`: runs the
 * conformance trial on a connector module and prints the report — readable by default, one JSON
 * object with --json. Exit 0 when the trial passed, 1 when a check failed, 2 for bad usage or a
 * bad config file (see program.ts). Sandbox log lines (the module's console) go to stderr.
 *
 * In the install phase, when stdin is a terminal, check 9 asks the person to rename a scratch
 * object on the host and press Enter; otherwise check 9 skips with the reason.
 *
 * With --watch the trial runs again each time the module or the config file is saved (changes
 * within WATCH_DEBOUNCE_MS count as one; a save during a run queues one more run), each report
 * printed as it comes; a run that cannot start (a config file half edited) is reported and the
 * watch goes on. Ctrl-C (SIGINT) stops it and exits 0.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError, NotFoundError } from '@neuralis/package-system/contracts';
import { readTrialConfigFile } from '../../trial/config-file.js';
import type { TrialPhase, TrialReport, TrialSandbox } from '../../trial/index.js';
import { TRIAL_PHASES } from '../../trial/types.js';
import type { SandboxLogRecord } from '../../sandbox/index.js';
import { EXIT, type CliIo } from '../io.js';

interface TrialCommandOptions {
  readonly config: string;
  readonly json?: boolean;
  readonly phase: string;
  readonly seed?: string;
  readonly watch?: boolean;
}

/** Saves closer together than this start one run. */
const WATCH_DEBOUNCE_MS = 150;

const GENERIC_NAMES = new Set(['connector', 'index', 'main', 'module']);

/** A sandbox label from the module's file name (`notes-api/connector.js` → `notes-api`). */
export function labelOf(path: string): string {
  const name = basename(path).replace(/\.[cm]?js$/i, '');
  const chosen = GENERIC_NAMES.has(name.toLowerCase()) ? basename(dirname(path)) : name;
  const label = chosen.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
  return label === '' ? 'trial' : label;
}

/** The module's text; `not_found` naming the path when it cannot be read. */
export async function readModule(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'EISDIR') throw new NotFoundError(`The connector module ${JSON.stringify(path)} does not exist.`);
    throw error;
  }
}

function phaseOf(value: string): TrialPhase {
  if (!(TRIAL_PHASES as readonly string[]).includes(value)) throw new InvalidArgumentError(`--phase must be "submit" or "install", not ${JSON.stringify(value)}.`);
  return value as TrialPhase;
}

/** `--seed`: check 5's read sample seed, as a decimal integer. */
function seedOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) > 0xffff_ffff) throw new InvalidArgumentError(`--seed must be an integer from 0 to 4294967295 (check 5 names the one it used), not ${JSON.stringify(value)}.`);
  return Number(value);
}

/** Asks the person at the terminal to rename the scratch object, and waits for Enter. */
function askToRename(io: CliIo): (from: string, to: string) => Promise<void> {
  return async (from, to) => {
    const { createInterface } = await import('node:readline');
    return new Promise<void>((resolve) => {
      const prompt = createInterface({ input: io.stdin, terminal: false });
      prompt.once('line', () => {
        prompt.close();
        resolve();
      });
      prompt.once('close', () => resolve());
      io.stderr.write(`\ninseam trial, check 9: rename "${from}" to "${to}" on the host, in its own app or API, then press Enter.\n`);
    });
  };
}

/** The module's console, and the sandbox's warnings and errors about it; failed calls are in the report. */
function logLine(io: CliIo): (record: SandboxLogRecord) => void {
  return (record) => {
    if (record.origin === 'sandbox' && record.level !== 'warn' && record.level !== 'error') return;
    io.stderr.write(`[${record.origin === 'console' ? 'connector' : 'sandbox'} ${record.level}] ${record.message}\n`);
  };
}

/** Reads the files, runs the trial once and prints its report. */
async function runOnce(io: CliIo, modulePath: string, options: TrialCommandOptions, phase: TrialPhase, sandbox?: TrialSandbox): Promise<TrialReport> {
  const file = await readTrialConfigFile(options.config);
  const source = await readModule(modulePath);
  // The trial runner and its sandbox are loaded when a trial runs, not for every command.
  const { formatTrialReport, runTrial, trialReportJson } = await import('../../trial/index.js');
  const seed = seedOf(options.seed);
  const report = await runTrial({
    subject: { module: source, label: labelOf(modulePath) },
    phase,
    ...(seed === undefined ? {} : { seed }),
    config: file.config,
    credentials: file.credentials,
    ...(file.scratchPrefix === undefined ? {} : { scratchPrefix: file.scratchPrefix }),
    ...(file.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: file.allowPrivateOrigins }),
    ...(file.webhookSample === undefined ? {} : { webhookSample: file.webhookSample }),
    ...(file.samples === undefined ? {} : { samples: file.samples }),
    ...(file.envelope === undefined ? {} : { envelope: file.envelope }),
    ...(phase === 'install' && io.stdin.isTTY === true ? { rename: askToRename(io) } : {}),
    ...(sandbox === undefined ? {} : { sandbox }),
    log: logLine(io),
  });
  io.stdout.write(options.json === true ? `${JSON.stringify(trialReportJson(report))}\n` : formatTrialReport(report));
  return report;
}

/** Runs the trial on every save of the module or the config file until SIGINT. */
async function watchTrials(io: CliIo, modulePath: string, options: TrialCommandOptions, phase: TrialPhase): Promise<void> {
  const files = [resolve(modulePath), resolve(options.config)];
  const names = files.map((path) => basename(path)).join(' and ');
  // One sandbox process for the whole session: each run loads the module afresh into it.
  const sandbox = new (await import('../../trial/index.js')).TrialSandbox();
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = runOnce(io, modulePath, options, phase, sandbox)
      .then(
        () => undefined,
        (error: unknown) => void io.stderr.write(`inseam: ${error instanceof Error ? error.message : String(error)}\n`),
      )
      .then(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          run();
          return;
        }
        io.stderr.write(`Watching ${names}; the trial runs again on every save. Ctrl-C stops.\n`);
      });
  };
  // Editors often save by writing a new file and renaming it over the old one, which ends a
  // watch on the file itself, so each file's folder is watched and events filtered by name.
  const watchers: FSWatcher[] = [];
  for (const folder of new Set(files.map((path) => dirname(path)))) {
    const wanted = new Set(files.filter((path) => dirname(path) === folder).map((path) => basename(path)));
    watchers.push(
      watch(folder, (_event, filename) => {
        if (filename === null || !wanted.has(basename(filename.toString()))) return;
        clearTimeout(timer);
        timer = setTimeout(run, WATCH_DEBOUNCE_MS);
      }),
    );
  }
  const interrupted = new Promise<void>((resolveStop) => process.once('SIGINT', () => resolveStop()));
  run();
  await interrupted;
  stopped = true;
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  io.stderr.write('\nStopped watching.\n');
  await running;
  await sandbox.close();
}

export function registerTrialCommand(program: Command, io: CliIo): void {
  program
    .command('trial')
    .description('Run the conformance trial on a connector module against its real host.')
    .argument('<module>', 'the connector module: one JavaScript file exporting createConnector(config)')
    .requiredOption('--config <file>', 'the trial config file: { "config": {...}, "credentials": {...}, "scratchPrefix"?: "..." }')
    .option('--json', 'print the report as one JSON object')
    .option('--phase <phase>', 'submit (reads only; the gate in audit mode) or install (also writes on the scratch prefix)', 'submit')
    .option('--seed <n>', 'check 5\'s read sample seed (its detail names the one a run used), to read the same objects again')
    .option('--watch', 'run again each time the module or the config file is saved; Ctrl-C stops (exit 0)')
    .action(async (modulePath: string, options: TrialCommandOptions) => {
      const phase = phaseOf(options.phase);
      seedOf(options.seed);
      if (options.watch === true) {
        await watchTrials(io, modulePath, options, phase);
        process.exitCode = EXIT.ok;
        return;
      }
      const report = await runOnce(io, modulePath, options, phase);
      process.exitCode = report.passed ? EXIT.ok : EXIT.no;
    });
}
