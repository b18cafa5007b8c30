/**
 * `inseam credential set|rm|ls`: the values of packages' declared credentials
 * (`neuralis.credentials[]`), at the deployment's, a network's, a user's or an agent's scope. A
 * value is read from stdin only — never from the command line, where `ps` and the shell history
 * would keep it — and never printed again.
 *
 *   inseam credential set @inseam/connector-machine ssh-key --scope deployment < ~/.ssh/id_ed25519
 *   echo '{"user":"app","password":"…"}' | inseam credential set acme.db db --scope network --network home
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { ALL_FEATURES } from '../../platform/authorization.js';
import type { SecretActor } from '../../platform/package-secrets.js';
import type { CliIo } from '../io.js';
import { localUser } from './token.js';
import { formatTable, printJson, withPlatform } from './support.js';

interface ScopeOptions {
  readonly scope: string;
  readonly network?: string;
  readonly user?: string;
  readonly agent?: string;
}

/** The CLI acts as the data directory's operator: for a user's or agent's scope, as that owner. */
function operator(options: ScopeOptions): SecretActor {
  return { userId: options.user ?? localUser(), agentId: options.scope === 'agent' ? (options.agent ?? missing('--agent <id>', 'agent')) : null, features: new Set(ALL_FEATURES) };
}

function missing(flag: string, scope: string): never {
  throw new InvalidArgumentError(`--scope ${scope} needs ${flag}.`, { details: { argument: flag.split(' ')[0]!.slice(2) } });
}

function networkOf(options: ScopeOptions): string | undefined {
  return options.network ?? (options.scope === 'deployment' ? undefined : missing('--network <slug>', options.scope));
}

async function readStdin(io: CliIo): Promise<string> {
  if (io.stdin.isTTY === true) throw new InvalidArgumentError('Give the value on stdin (a file or a pipe), not on the command line.', { details: { argument: 'stdin' } });
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A one-secret credential takes stdin as its value (one trailing newline dropped); one with fields, a JSON object. */
function valuesFrom(text: string, fields: readonly { readonly name: string }[]): Record<string, string> {
  if (fields.length === 1) return { [fields[0]!.name]: text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError(`This credential has the fields ${fields.map((field) => field.name).join(', ')}: give them on stdin as a JSON object.`, { details: { argument: 'stdin' } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((value) => typeof value !== 'string')) {
    throw new InvalidArgumentError('stdin must hold a JSON object of field names to string values.', { details: { argument: 'stdin' } });
  }
  return parsed as Record<string, string>;
}

const SCOPE_HELP = 'deployment (every network), network (--network), user (--network; --user, default your login) or agent (--network --agent)';

export function registerCredentialCommand(program: Command, io: CliIo): void {
  const credential = program.command('credential').description("Store and remove the values of packages' declared credentials (never shown again).");

  credential
    .command('set')
    .description('Store a credential\'s value, read from stdin, at a scope.')
    .argument('<package>', 'the package id (see `inseam credential ls`)')
    .argument('<credential>', 'the credential id the package declares')
    .requiredOption('--scope <scope>', SCOPE_HELP)
    .option('--network <slug>', 'the network, for a network, user or agent scope')
    .option('--user <id>', 'the user, for --scope user (default: your login name)')
    .option('--agent <id>', 'the agent, for --scope agent')
    .action(async (packageId: string, credentialId: string, options: ScopeOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const actor = operator(options);
        const network = networkOf(options);
        const declared = (await platform.packageSecrets.list(actor, network)).find((view) => view.packageId === packageId && view.credential === credentialId);
        const values = valuesFrom(await readStdin(io), declared?.fields ?? [{ name: 'value' }]);
        await platform.packageSecrets.set(actor, { packageId, credential: credentialId, scope: options.scope, network }, values);
        io.stderr.write(`Stored ${credentialId} of ${packageId} at scope ${options.scope}${network === undefined ? '' : ` in ${network}`}; it is not shown again.\n`);
      });
    });

  credential
    .command('rm')
    .description('Remove a credential\'s value from a scope.')
    .argument('<package>', 'the package id')
    .argument('<credential>', 'the credential id')
    .requiredOption('--scope <scope>', SCOPE_HELP)
    .option('--network <slug>', 'the network, for a network, user or agent scope')
    .option('--user <id>', 'the user, for --scope user')
    .option('--agent <id>', 'the agent, for --scope agent')
    .action(async (packageId: string, credentialId: string, options: ScopeOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const removed = await platform.packageSecrets.remove(operator(options), { packageId, credential: credentialId, scope: options.scope, network: networkOf(options) });
        io.stderr.write(removed ? `Removed ${credentialId} of ${packageId} from scope ${options.scope}.\n` : `Nothing was stored for ${credentialId} of ${packageId} at scope ${options.scope}.\n`);
      });
    });

  credential
    .command('ls')
    .description('List the declared credentials and the scopes holding a value (never the value).')
    .option('--network <slug>', 'the network whose network and user scopes to show')
    .option('--user <id>', 'whose user scope to show (default: your login name)')
    .option('--json', 'print them as JSON')
    .action(async (options: { readonly network?: string; readonly user?: string; readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const actor: SecretActor = { userId: options.user ?? localUser(), agentId: null, features: new Set(ALL_FEATURES) };
        const views = await platform.packageSecrets.list(actor, options.network);
        if (options.json === true) return printJson(io, views);
        io.stdout.write(
          formatTable([
            ['PACKAGE', 'CREDENTIAL', 'FIELDS', 'STORED AT'],
            ...views.map((view) => [view.packageId, view.credential, view.fields.map((field) => field.name).join(','), Object.entries(view.stored).filter(([, held]) => held).map(([scope]) => scope).join(',') || '-']),
          ]),
        );
      });
    });
}
