/**
 * The sandboxed connector lifecycle from the command line (inseam/connectors):
 *
 *   inseam connector new <kind> [--dir <folder>]                          a module, host.json and README to start from
 *   inseam connector check <module> [--config f] [--schema json|@file] [--json]  describe() and defaultScope, offline
 *   inseam connector submit <module> [--name n] [--schema json|@file]     store it by its sha
 *   inseam connector trial <sha> --config <file>                          run and record the trial
 *   inseam connector ls                                                   modules and their state
 *   inseam approve <sha|trial-id>                                         a person approves (terminal only)
 *   inseam install <sha> --host <slug> [--config …] [--credential …]      kind, host, first crawl
 *
 * Approval needs a person at a terminal: it shows what the trial found and asks them to type the
 * confirmation phrase. Installing from the command line registers the kind in this process; a
 * running `inseam up` registers it at its next start (or install through the HTTP API instead).
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { NotFoundError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import { progressOf } from '../../catalog/progress.js';
import type { TrialPhases, TrialSummary } from '../../connectors/index.js';
import { readTrialConfigFile } from '../../trial/config-file.js';
import type { TrialPhase } from '../../trial/index.js';
import { EXIT, type CliIo } from '../io.js';
import { scaffoldConnector } from './connector-scaffold.js';
import { progressView } from './progress.js';
import { collect, defaultNetwork, formatBytes, formatCount, formatTable, printJson, readCredentials, readJsonObject, withPlatform } from './support.js';
import { localUser } from './token.js';
import { labelOf, readModule } from './trial.js';

const SHA_TEXT = /^[0-9a-f]{8,64}$/i;

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function ask(io: CliIo, prompt: string): Promise<string> {
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
    io.stderr.write(prompt);
  });
}

function describeTrial(trial: TrialSummary): string {
  const reads = trial.readEndpoints.length === 0 ? '' : `; POST as reads: ${trial.readEndpoints.join(', ')}`;
  return `trial ${trial.id} (${trial.phase} phase) of kind "${trial.kind}": ${trial.passed ? 'passed' : 'FAILED'}; origins used: ${trial.origins.length === 0 ? 'none' : trial.origins.join(', ')}${reads}`;
}

/** Which phases the module's trials passed, and what that allows, for the person approving. */
function describePhases(phases: TrialPhases): string {
  const shown = (result: TrialPhases['submit']): string => (result === 'not_run' ? 'not run' : result);
  const line = `Phases: submit (read only) ${shown(phases.submit)}, install (writes) ${shown(phases.install)}`;
  if (!phases.declaresWrites) return `${line}.`;
  const checked = phases.writesCheckedOn.length === 0 ? '' : `; writes (check 10) passed on scratch prefix ${phases.writesCheckedOn.map((prefix) => JSON.stringify(prefix)).join(', ')}`;
  return `${line}${checked}. It declares writes: a host of it is installed read only unless made writable with --writable --scratch-prefix <folder>, and then writes are turned on only once the install-phase trial, run on that host, passes.`;
}

/** `name` in the module's folder, when it exists there. */
async function besideModule(modulePath: string, name: string): Promise<string | undefined> {
  const path = join(dirname(resolve(modulePath)), name);
  return (await stat(path).then((info) => info.isFile()).catch(() => false)) ? path : undefined;
}

export function registerConnectorCommands(program: Command, io: CliIo): void {
  const connector = program.command('connector').description('Submit, trial and list sandboxed connector modules (then `inseam approve` and `inseam install`).');

  connector
    .command('new')
    .description('Start a connector: write connector.js, host.json and README.md into a new folder (never overwriting a file).')
    .argument('<kind>', 'the kind name, e.g. "tickets" (lowercase letters, digits and "-")')
    .option('--dir <folder>', 'where to write the files (default ./<kind>)')
    .action(async (kind: string, options: { dir?: string }) => {
      const dir = resolve(options.dir ?? kind);
      const written = await scaffoldConnector(kind, dir);
      io.stdout.write(`${written.join('\n')}\n`);
      io.stderr.write(`Next: adapt connector.js to the host, then \`inseam connector check ${written[0]}\` and \`inseam trial ${written[0]} --config ${written[1]} --watch\`. The rules: docs/connectors/authoring.md.\n`);
    });

  connector
    .command('check')
    .description('Check a connector module offline: describe(), its defaultScope, and a config file and a config schema when given.')
    .argument('<module>', 'the connector module: one JavaScript file exporting createConnector(config)')
    .option('--config <file>', 'a trial config file: its "config" goes to createConnector, its "credentials" must fill the present templates (default: host.json beside the module, if there is one)')
    .option('--schema <json|@file>', 'the closed JSON Schema of a host\'s config, checked, and the config checked against it')
    .option('--json', 'print the outcome as one JSON object')
    .action(async (modulePath: string, options: { config?: string; schema?: string; json?: boolean }) => {
      const started = performance.now();
      const source = await readModule(modulePath);
      const configPath = options.config ?? (await besideModule(modulePath, 'host.json'));
      const file = configPath === undefined ? undefined : await readTrialConfigFile(configPath);
      const schema = options.schema === undefined ? undefined : await readJsonObject(options.schema, '--schema');
      const label = labelOf(modulePath);
      // The check loads the sandbox and the manifest validators: only `connector check` pays for them.
      const { checkConnectorModule, formatModuleCheck } = await import('./connector-check.js');
      const check = await checkConnectorModule({
        source,
        label,
        ...(file === undefined ? {} : { config: file.config, credentials: file.credentials }),
        ...(schema === undefined ? {} : { schema }),
      });
      const durationMs = Math.round(performance.now() - started);
      io.stdout.write(options.json === true ? `${JSON.stringify({ kind: check.kind ?? null, ok: check.ok, problems: check.problems, durationMs })}\n` : formatModuleCheck(check, label, durationMs));
      process.exitCode = check.ok ? EXIT.ok : EXIT.no;
    });

  connector
    .command('submit')
    .description('Store a connector module under its SHA-256.')
    .argument('<module>', 'the module file: one JavaScript ES module exporting createConnector(config)')
    .option('--name <name>', 'a name for people, e.g. "Notes API"')
    .option('--schema <json|@file>', 'the closed JSON Schema of a host\'s config (default: inferred at install)')
    .option('--network <slug>', 'the network it is submitted in')
    .option('--json', 'print the module\'s state as JSON')
    .action(async (path: string, options: { name?: string; schema?: string; network?: string; json?: boolean }, command: Command) => {
      const text = await readFile(path, 'utf8').catch(() => Promise.reject(new NotFoundError(`The module ${JSON.stringify(path)} cannot be read.`)));
      const schema = options.schema === undefined ? undefined : await readJsonObject(options.schema, '--schema');
      await withPlatform(command, io, async (platform, connectors) => {
        const network = await defaultNetwork(platform, options.network, io);
        const { connector: view, created } = await connectors.submit({ userId: localUser() }, network, {
          module: text,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(schema === undefined ? {} : { configSchema: schema }),
        });
        if (options.json === true) return printJson(io, view);
        io.stdout.write(`${view.sha}\n`);
        io.stderr.write(`${created ? 'Submitted' : 'Submitted already'}: ${formatBytes(view.bytes)}. Next: inseam connector trial ${view.sha.slice(0, 12)} --config <file>\n`);
      });
    });

  connector
    .command('trial')
    .description('Run the conformance trial on a submitted module and record it in the network.')
    .argument('<sha>', 'the module\'s sha (or its first 8+ hex digits)')
    .requiredOption('--config <file>', 'the trial config file: { "config": {...}, "credentials": {...}, … } (see docs/trial.md)')
    .option('--phase <phase>', 'submit (reads only) or install (also writes on the scratch prefix)', 'submit')
    .option('--network <slug>', 'the network the trial is recorded in')
    .option('--json', 'print the recorded trial and its report as JSON')
    .action(async (sha: string, options: { config: string; phase: string; network?: string; json?: boolean }, command: Command) => {
      const file = await readTrialConfigFile(options.config);
      await withPlatform(command, io, async (platform, connectors) => {
        const network = await defaultNetwork(platform, options.network, io);
        const outcome = await connectors.trial({ userId: localUser() }, network, sha, {
          ...file,
          // Checked by the trial: an unknown phase is `invalid_argument`.
          phase: options.phase as TrialPhase,
        });
        if (options.json === true) printJson(io, outcome);
        else {
          for (const check of outcome.report.checks) io.stdout.write(`${check.status.toUpperCase().padEnd(4)} ${check.id} — ${check.name}\n${check.status === 'pass' ? '' : `     ${check.detail.replace(/\n/g, '\n     ')}\n`}`);
          io.stdout.write(`${describeTrial(outcome.trial)}\n`);
          if (outcome.trial.passed) io.stderr.write(`Next: a person approves it with \`inseam approve ${outcome.trial.id}\`.\n`);
        }
        process.exitCode = outcome.trial.passed ? EXIT.ok : EXIT.no;
      });
    });

  connector
    .command('ls')
    .description('List submitted modules with their state in the network.')
    .option('--network <slug>', 'the network')
    .option('--json', 'print them as JSON')
    .action(async (options: { network?: string; json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform, connectors) => {
        const views = await connectors.list(await defaultNetwork(platform, options.network, io));
        if (options.json === true) return printJson(io, views);
        if (views.length === 0) return void io.stderr.write('No modules submitted; submit one with `inseam connector submit <module>`.\n');
        io.stdout.write(formatTable([['SHA', 'NAME', 'KIND', 'STATE', 'TRIALS', 'SUBMITTED'], ...views.map((view) => [view.sha.slice(0, 12), view.name ?? '-', view.kind ?? '-', view.state, String(view.trials.length), when(view.submittedAt)])]));
      });
    });

  program
    .command('approve')
    .description('Approve a connector whose trial passed. A person\'s act: it asks you to type a confirmation.')
    .argument('<sha|trial>', 'the module\'s sha (its newest trial is approved), or a trial id')
    .option('--network <slug>', 'the network the approval is for')
    .action(async (target: string, options: { network?: string }, command: Command) => {
      if (io.stdin.isTTY !== true) {
        throw new PermissionDeniedError('Approving a connector is a person\'s act: run `inseam approve` in a terminal, or approve it in the browser.', { details: { reason: 'not_a_terminal' } });
      }
      await withPlatform(command, io, async (platform, connectors) => {
        const network = await defaultNetwork(platform, options.network, io);
        const bySha = SHA_TEXT.test(target);
        const pending = bySha ? await connectors.confirmation(network, target) : await connectors.trialRecord(network, target);
        const phrase = 'phrase' in pending ? pending.phrase : pending.confirmation;
        const trial = 'trial' in pending ? pending.trial : pending;
        if (phrase === null) throw new NotFoundError(`Trial ${target} is not a passed trial waiting for approval.`);
        io.stderr.write(`Network ${network}: ${describeTrial(trial)}.\nApproving lets this module run as kind "${trial.kind}", reaching only those origins through the gate${trial.readEndpoints.length === 0 ? '' : ', and sending POST while read-only only to those read endpoints'}.\n`);
        const typed = await ask(io, `Type "${phrase}" to approve: `);
        const approved = bySha ? await connectors.approve({ userId: localUser() }, network, target, typed) : await connectors.approveTrial({ userId: localUser() }, network, target, typed);
        io.stdout.write(`Approved ${describeTrial(approved)} (by ${approved.approvedBy ?? '?'}).\n${describePhases(approved.phases)}\n`);
      });
    });

  program
    .command('install')
    .description('Install an approved connector: register its kind, add the host, run its first crawl.')
    .argument('<sha>', 'the module\'s sha (or its first 8+ hex digits)')
    .requiredOption('--host <slug>', 'the new host\'s slug')
    .option('--network <slug>', 'the network (where it was approved)')
    .option('--config <json|@file>', 'the host\'s config, handed to createConnector(config)')
    .option('--credential <field=value>', 'a credential field (field=@file, field=- for stdin); repeat per field', collect, [])
    .option('--schema <json|@file>', 'the closed JSON Schema of a host\'s config, if the submission had none')
    .option('--label <label>', 'a label for people')
    .option('--description <text>', 'what the host holds, for agents')
    .option('--scope <json|@file>', 'which entries are crawled')
    .option('--sync <json|@file>', 'sync settings, e.g. {"trigger":"auto"}')
    .option('--permissions <json|@file>', 'the host\'s permission tree')
    .option('--writable', 'let callers write and delete on the new host (default: read only)')
    .option('--scratch-prefix <prefix>', 'with --writable, for a module that declares writes: the host folder where the install-phase trial writes before the host becomes writable')
    .option('--allow-private-origin <origin>', 'approve a declared origin on a private address; repeatable', collect, [])
    .option('--json', 'print the host and its first crawl as JSON')
    .action(async (sha: string, options: InstallOptions, command: Command) => {
      const credentials = await readCredentials(options.credential, io);
      const json = async (value: string | undefined, name: string) => (value === undefined ? undefined : readJsonObject(value, name));
      const [config, schema, scope, sync, permissions] = await Promise.all([
        json(options.config, '--config'),
        json(options.schema, '--schema'),
        json(options.scope, '--scope'),
        json(options.sync, '--sync'),
        json(options.permissions, '--permissions'),
      ]);
      await withPlatform(command, io, async (platform, connectors) => {
        const network = await defaultNetwork(platform, options.network, io);
        const { host, crawl: ticket, writes } = await connectors.install({ userId: localUser() }, network, sha, {
          host: options.host,
          ...(config === undefined ? {} : { config }),
          ...(Object.keys(credentials).length === 0 ? {} : { credentials }),
          ...(schema === undefined ? {} : { configSchema: schema }),
          ...(options.label === undefined ? {} : { label: options.label }),
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(scope === undefined ? {} : { scope: scope }),
          ...(sync === undefined ? {} : { sync: sync as never }),
          ...(permissions === undefined ? {} : { permissions: permissions as never }),
          ...(options.writable === undefined ? {} : { writable: options.writable }),
          ...(options.scratchPrefix === undefined ? {} : { scratchPrefix: options.scratchPrefix }),
          ...(options.allowPrivateOrigin.length === 0 ? {} : { privateOrigins: options.allowPrivateOrigin }),
        });
        // Writes were asked of a module that declares them: whether the platform's trial of the host let them on.
        if (writes !== null) io.stderr.write(`${writes.message}\n`);
        if (ticket.where === 'queue') {
          io.stderr.write(`Installed kind "${host.kind}" and added host ${host.address}; its first crawl is queued for a worker.\n`);
          if (options.json === true) printJson(io, { host, crawl: null, job: ticket.job, writes });
          return;
        }
        const crawl = ticket.handle;
        io.stderr.write(`Installed kind "${host.kind}" and added host ${host.address}; crawling it (Ctrl-C pauses; \`inseam crawl\` resumes).\n`);
        const view = progressView(io.stderr, `${host.network}/${host.slug}`);
        crawl.on('progress', (progress) => view.update(progress));
        const pause = (): void => crawl.pause();
        process.once('SIGINT', pause);
        let run;
        try {
          run = await crawl.result;
        } finally {
          process.off('SIGINT', pause);
          view.finish();
        }
        const progress = progressOf(run);
        if (options.json === true) printJson(io, { host, crawl: progress, writes });
        else io.stdout.write(`First crawl of ${host.network}/${host.slug}: ${formatCount(progress.entries)} entries, ${formatCount(progress.indexed)} indexed — ${progress.state}${progress.error === null ? '' : `: ${progress.error.message}`}.\n`);
        process.exitCode = run.state === 'completed' ? EXIT.ok : EXIT.no;
      });
    });
}

interface InstallOptions {
  readonly host: string;
  readonly network?: string;
  readonly config?: string;
  readonly credential: readonly string[];
  readonly schema?: string;
  readonly label?: string;
  readonly description?: string;
  readonly scope?: string;
  readonly sync?: string;
  readonly permissions?: string;
  readonly writable?: boolean;
  readonly scratchPrefix?: string;
  readonly allowPrivateOrigin: readonly string[];
  readonly json?: boolean;
}
