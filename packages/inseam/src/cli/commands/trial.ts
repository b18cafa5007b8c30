/**
 * `inseam trial <module> --config <file> [--json] [--phase submit|install]`: runs the conformance
 * trial on a connector module and prints the report — readable by default, one JSON object with
 * --json. Exit 0 when the trial passed, 1 when a check failed, 2 for bad usage or a bad config
 * file (see program.ts). Sandbox log lines (the module's console) go to stderr.
 *
 * In the install phase, when stdin is a terminal, check 9 asks the person to rename a scratch
 * object on the host and press Enter; otherwise check 9 skips with the reason.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { InvalidArgumentError, NotFoundError } from '@neuralis/package-system/contracts';
import { formatTrialReport, readTrialConfigFile, runTrial, trialReportJson, TRIAL_PHASES, type TrialPhase } from '../../trial/index.js';
import type { SandboxLogRecord } from '../../sandbox/index.js';
import { EXIT, type CliIo } from '../program.js';

interface TrialCommandOptions {
  readonly config: string;
  readonly json?: boolean;
  readonly phase: string;
}

const GENERIC_NAMES = new Set(['connector', 'index', 'main', 'module']);

/** A sandbox label from the module's file name (`notes-api/connector.js` → `notes-api`). */
function labelOf(path: string): string {
  const name = basename(path).replace(/\.[cm]?js$/i, '');
  const chosen = GENERIC_NAMES.has(name.toLowerCase()) ? basename(dirname(path)) : name;
  const label = chosen.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
  return label === '' ? 'trial' : label;
}

async function readModule(path: string): Promise<string> {
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

/** Asks the person at the terminal to rename the scratch object, and waits for Enter. */
function askToRename(io: CliIo): (from: string, to: string) => Promise<void> {
  return (from, to) =>
    new Promise<void>((resolve) => {
      const prompt = createInterface({ input: io.stdin, terminal: false });
      prompt.once('line', () => {
        prompt.close();
        resolve();
      });
      prompt.once('close', () => resolve());
      io.stderr.write(`\ninseam trial, check 9: rename "${from}" to "${to}" on the host, in its own app or API, then press Enter.\n`);
    });
}

/** The module's console, and the sandbox's warnings and errors about it; failed calls are in the report. */
function logLine(io: CliIo): (record: SandboxLogRecord) => void {
  return (record) => {
    if (record.origin === 'sandbox' && record.level !== 'warn' && record.level !== 'error') return;
    io.stderr.write(`[${record.origin === 'console' ? 'connector' : 'sandbox'} ${record.level}] ${record.message}\n`);
  };
}

export function registerTrialCommand(program: Command, io: CliIo): void {
  program
    .command('trial')
    .description('Run the conformance trial on a connector module against its real host.')
    .argument('<module>', 'the connector module: one JavaScript file exporting createConnector(config)')
    .requiredOption('--config <file>', 'the trial config file: { "config": {...}, "credentials": {...}, "scratchPrefix"?: "..." }')
    .option('--json', 'print the report as one JSON object')
    .option('--phase <phase>', 'submit (reads only; the gate in audit mode) or install (also writes on the scratch prefix)', 'submit')
    .action(async (modulePath: string, options: TrialCommandOptions) => {
      const phase = phaseOf(options.phase);
      const file = await readTrialConfigFile(options.config);
      const source = await readModule(modulePath);
      const report = await runTrial({
        subject: { module: source, label: labelOf(modulePath) },
        phase,
        config: file.config,
        credentials: file.credentials,
        ...(file.scratchPrefix === undefined ? {} : { scratchPrefix: file.scratchPrefix }),
        ...(file.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: file.allowPrivateOrigins }),
        ...(file.webhookSample === undefined ? {} : { webhookSample: file.webhookSample }),
        ...(phase === 'install' && io.stdin.isTTY === true ? { rename: askToRename(io) } : {}),
        log: logLine(io),
      });
      io.stdout.write(options.json === true ? `${JSON.stringify(trialReportJson(report))}\n` : formatTrialReport(report));
      process.exitCode = report.passed ? EXIT.ok : EXIT.no;
    });
}
