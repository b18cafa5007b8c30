/**
 * `inseam token create|ls|revoke`: API tokens for the HTTP API and the MCP endpoint. A new token
 * is printed once, on stdout alone (so `TOKEN=$(inseam token create --name ci)` works); only its
 * hash is stored.
 *
 *   inseam token create --name helper --agent helper --grant write,delete:inseam://home/files/drafts
 *
 * An agent's token writes, deletes and runs commands only where its grants say (and the host's
 * permission tree allows); a person's token takes no grants.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { TokenView } from '../../http/tokens.js';
import { ALL_FEATURES } from '../../platform/authorization.js';
import { parseDuration, subtractDuration } from '../../scope/duration.js';
import type { CliIo } from '../io.js';
import { collect, formatTable, printJson, withPlatform } from './support.js';

interface CreateOptions {
  readonly name: string;
  readonly user?: string;
  readonly agent?: string;
  readonly network?: string;
  readonly features?: string;
  readonly grant: readonly string[];
  readonly expires?: string;
  readonly json?: boolean;
}

/** The user a token is for when none is named: the local account's name, when it is a usable id. */
export function localUser(): string {
  try {
    const name = userInfo().username;
    if (/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/.test(name)) return name;
  } catch {
    // No passwd entry (a container): fall through.
  }
  return 'admin';
}

/** `P30D` → a time 30 days from now; an RFC 3339 time as itself. Throws `invalid_argument`. */
function expiresAt(text: string, now = Date.now()): number {
  if (text.startsWith('P')) {
    const duration = parseDuration(text);
    if (!('problem' in duration)) return now + (now - subtractDuration(new Date(now), duration));
  }
  const at = Date.parse(text);
  if (Number.isFinite(at) && /^\d{4}-\d{2}-\d{2}/.test(text)) return at;
  throw new InvalidArgumentError(`--expires takes an ISO 8601 duration such as P90D, or a time such as 2026-01-31T00:00:00Z; not ${JSON.stringify(text)}.`, { details: { argument: 'expires' } });
}

function features(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** `write:inseam://home/files/drafts, exec:…`, or `none` (an agent that may change nothing). */
function grantList(token: TokenView): string {
  return token.grants.length === 0 ? 'none' : token.grants.map((grant) => `${grant.right}:${grant.address}`).join(', ');
}

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function stateOf(token: TokenView, now: number): string {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

export function registerTokenCommand(program: Command, io: CliIo): void {
  const token = program.command('token').description('Make, list and revoke API tokens for the HTTP API and MCP.');

  token
    .command('create')
    .description('Make a token; it is printed once and only its hash is kept.')
    .requiredOption('--name <name>', 'what the token is for, e.g. "laptop" or "ci"')
    .option('--user <id>', 'the user it acts as (default: your login name)')
    .option('--agent <id>', 'an agent acting for the user (such a token can never approve connectors)')
    .option('--network <slug>', 'limit it to one network (default: every network)')
    .option('--features <list>', `comma-separated features: ${ALL_FEATURES.join(', ')}, or an entry feature a kind asks for`)
    .option('--grant <rights:address>', 'with --agent: where it may write, delete or run commands, e.g. write,delete:inseam://home/files/drafts (repeatable; default: nowhere)', collect, [])
    .option('--expires <when>', 'an ISO 8601 duration (P90D) or a time; default: never')
    .option('--json', 'print the token and its record as JSON')
    .action(async (options: CreateOptions, command: Command) => {
      // TokenService, and node:crypto with it, loads here: `inseam --help` does not need it.
      const { TokenService } = await import('../../http/tokens.js');
      await withPlatform(command, io, async (platform) => {
        const created = await new TokenService(platform.store.tokens).create({
          name: options.name,
          userId: options.user ?? localUser(),
          agentId: options.agent ?? null,
          network: options.network ?? null,
          features: features(options.features),
          grants: options.grant,
          expiresAt: options.expires === undefined ? null : expiresAt(options.expires),
        });
        if (options.json === true) return printJson(io, { token: created.token, ...created.record });
        io.stdout.write(`${created.token}\n`);
        const record = created.record;
        io.stderr.write(
          `Token ${record.id} "${record.name}" for ${record.userId}${record.agentId === null ? '' : ` (agent ${record.agentId})`} in ${record.network === null ? 'every network' : `network ${record.network}`}; features: ${record.features.length === 0 ? 'none' : record.features.join(', ')}${record.agentId === null ? '' : `; grants: ${grantList(record)}`}. It is shown this once: store it now.\n`,
        );
      });
    });

  token
    .command('ls')
    .description('List a user\'s tokens (never their secrets).')
    .option('--user <id>', 'whose tokens (default: your login name)')
    .option('--json', 'print them as JSON')
    .action(async (options: { readonly user?: string; readonly json?: boolean }, command: Command) => {
      const { TokenService } = await import('../../http/tokens.js');
      await withPlatform(command, io, async (platform) => {
        const tokens = await new TokenService(platform.store.tokens).list(options.user ?? localUser());
        if (options.json === true) return printJson(io, tokens);
        if (tokens.length === 0) return void io.stderr.write('No tokens; make one with `inseam token create --name <name>`.\n');
        const now = Date.now();
        io.stdout.write(
          formatTable([
            ['ID', 'NAME', 'AGENT', 'NETWORK', 'FEATURES', 'GRANTS', 'CREATED', 'LAST USED', 'STATE'],
            ...tokens.map((item) => [item.id, item.name, item.agentId ?? '-', item.network ?? '*', item.features.join(',') || '-', item.agentId === null ? '-' : grantList(item), when(item.createdAt), when(item.lastUsedAt), stateOf(item, now)]),
          ]),
        );
      });
    });

  token
    .command('revoke')
    .description('Revoke a token by its id (see `inseam token ls`).')
    .argument('<id>', 'the token id, tok_…')
    .action(async (id: string, _options: unknown, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const { TokenService } = await import('../../http/tokens.js');
        await new TokenService(platform.store.tokens).revoke(id);
        io.stderr.write(`Revoked ${id}.\n`);
      });
    });
}
