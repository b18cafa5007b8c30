/**
 * `inseam mcp`: the MCP endpoint over stdio, for a client that starts it (one session per
 * process, until the client closes stdin). `inseam mcp add|ls|rm` manage the network's outbound
 * MCP servers — a person's configuration, never an agent's tool.
 *
 * Who the session is (docs/mcp.md "Identity"):
 * - `--token <secret>` (or `@file`, or INSEAM_TOKEN): the API token's user, agent and network,
 *   its scopes as the session's features and its grants — exactly what the token gets over HTTP;
 * - otherwise the local user running the command, who can read the data directory and so holds
 *   its master key: user `--user` (default: the OS user name), agent `--agent` when given, the
 *   network of `--network`/INSEAM_NETWORK/the only one, and only the features named with
 *   `--feature` (exec entries and the outbound tools need one: an agent gets a shell or another
 *   server's tools only when the person starting it says so), and for an agent the grants named
 *   with `--grant` (an agent writes, deletes and runs commands only there).
 * Nothing the client sends changes who the session is.
 */
import { userInfo } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { InvalidArgumentError, NotFoundError, PermissionDeniedError, type SessionContext } from '@neuralis/package-system/contracts';
import { checkNetworkSlug } from '../../address/index.js';
import type { ConnectorLifecycle } from '../../connectors/index.js';
import { checkGrants, type Grant } from '../../fs/grants.js';
import type { Caller } from '../../fs/index.js';
import type { McpHost, McpHostOptions, OutboundServerInput } from '../../mcp/index.js';
import type { Platform } from '../../platform/index.js';
import type { CliIo } from '../io.js';
import { collect, defaultNetwork, formatTable, printJson, readCredentials, withPlatform } from './support.js';

/** The variable holding an API token for `inseam mcp`, when `--token` is not given. */
export const TOKEN_ENV = 'INSEAM_TOKEN';

interface ServeOptions {
  readonly network?: string;
  readonly token?: string;
  readonly user?: string;
  readonly agent?: string;
  readonly feature: readonly string[];
  readonly grant: readonly string[];
  readonly images?: boolean;
  readonly hostPackage: readonly string[];
  readonly allowPrivateOrigin: readonly string[];
}

interface AddOptions {
  readonly network?: string;
  readonly name?: string;
  readonly url?: string;
  readonly header: readonly string[];
  readonly command?: string;
  readonly arg: readonly string[];
  readonly env: readonly string[];
  readonly json?: boolean;
}

async function tokenSecret(given: string | undefined, io: CliIo): Promise<string | undefined> {
  if (given === undefined) return io.env[TOKEN_ENV] === '' ? undefined : io.env[TOKEN_ENV];
  if (!given.startsWith('@')) return given;
  return (await readCredentials([`token=${given}`], io))['token'];
}

/** The session's caller; see the module comment. Throws `permission_denied` for an unknown, revoked or expired token. */
export async function stdioCaller(platform: Platform, options: ServeOptions, io: CliIo): Promise<Caller> {
  const secret = await tokenSecret(options.token, io);
  if (secret !== undefined) {
    const { TokenService } = await import('../../http/tokens.js');
    const token = await new TokenService(platform.store.tokens).verify(secret);
    if (token === null) throw new PermissionDeniedError('The API token is not valid: it is malformed, unknown, revoked or expired.');
    if (options.user !== undefined || options.agent !== undefined || options.feature.length > 0 || options.grant.length > 0) {
      throw new InvalidArgumentError('With a token, the user, agent, features and grants are the token\'s; drop --user, --agent, --feature and --grant.', { details: { argument: 'token' } });
    }
    const network = token.network ?? (await defaultNetwork(platform, options.network, io));
    if (options.network !== undefined && checkNetworkSlug(options.network) !== network) {
      throw new PermissionDeniedError(`The token is limited to network "${network}".`, { details: { network } });
    }
    const session: SessionContext = { userId: token.userId, ...(token.agentId === null ? {} : { agentId: token.agentId }), projectId: network, features: new Set(token.scopes) };
    return { session, grants: token.grants as Grant[] };
  }
  const network = await defaultNetwork(platform, options.network, io);
  if (options.grant.length > 0 && options.agent === undefined) {
    throw new InvalidArgumentError('--grant narrows what an agent may change; name the agent with --agent (a person\'s session has the host\'s permission tree).', { details: { argument: 'grant' } });
  }
  const grants = checkGrants(options.grant, network);
  const session: SessionContext = {
    userId: options.user ?? userInfo().username,
    ...(options.agent === undefined ? {} : { agentId: options.agent }),
    projectId: network,
    features: new Set(options.feature),
  };
  return { session, grants };
}

/** The MCP host over the platform's filesystem; the MCP SDK is loaded here, by the mcp commands only. */
async function openMcpHost(platform: Platform, connectors?: ConnectorLifecycle, options?: McpHostOptions): Promise<McpHost> {
  const [{ McpHost }, { FsService }] = await Promise.all([import('../../mcp/index.js'), import('../../fs/index.js')]);
  return McpHost.open({ platform, fs: new FsService(platform), ...(connectors === undefined ? {} : { connectors }) }, options);
}

function serve(io: CliIo) {
  return async (options: ServeOptions, command: Command): Promise<void> => {
    // withPlatform registered the connectors installed earlier; the tools share its lifecycle.
    await withPlatform(command, io, async (platform, connectors) => {
      const caller = await stdioCaller(platform, options, io);
      const host = await openMcpHost(platform, connectors, { hostedPackages: options.hostPackage, allowPrivateOrigins: options.allowPrivateOrigin });
      const { serveStdio } = await import('../../mcp/index.js');
      const stop = new AbortController();
      const onSignal = (): void => stop.abort();
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      try {
        await serveStdio(host, { caller, ...(options.images === true ? { model: { image: true } } : {}) }, { stdin: io.stdin as Readable, stdout: io.stdout as Writable }, stop.signal);
      } finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        await host.close();
      }
    });
  };
}

export function registerMcpCommand(program: Command, io: CliIo): void {
  const mcp = program.command('mcp').description('Serve the MCP endpoint over stdio, and manage the outbound MCP servers a network can reach.');

  mcp
    .command('serve', { isDefault: true })
    .description('Serve MCP over stdin/stdout for the client that started this command (the default).')
    .option('--network <slug>', 'the session\'s network (default: $INSEAM_NETWORK, else the only network)')
    .option('--token <secret>', `act as an API token's user and agent with its scopes (or @file; default $${TOKEN_ENV})`)
    .option('--user <id>', 'without a token: the user id (default: the OS user name)')
    .option('--agent <id>', 'without a token: the agent id')
    .option('--feature <id>', 'without a token: a feature granted to the session, e.g. exec.machine or mcp.outbound (repeatable)', collect, [])
    .option('--grant <rights:address>', 'without a token, with --agent: where the agent may write, delete or run commands, e.g. write:inseam://home/files/drafts (repeatable)', collect, [])
    .option('--images', 'the client shows images to its model: read returns image content')
    .option('--host-package <id>', 'serve the hosted tools of this trusted package\'s in-process MCP connector (repeatable)', collect, [])
    .option('--allow-private-origin <origin>', 'a private origin (loopback, LAN) connector trials and installs may reach (repeatable)', collect, [])
    .action(serve(io));

  mcp
    .command('add')
    .description('Add an outbound MCP server: a stdio command or a streamable-http URL.')
    .argument('<id>', 'the server id: lowercase letters, digits, ".", "_" and "-"')
    .option('--network <slug>', 'the network (default: $INSEAM_NETWORK, else the only network)')
    .option('--name <name>', 'a human name (default: the id)')
    .option('--url <url>', 'streamable-http: the server URL')
    .option('--header <name=value>', 'streamable-http: a header, stored sealed (value, @file or - for stdin; repeatable)', collect, [])
    .option('--command <command>', 'stdio: the command to start')
    .option('--arg <arg>', 'stdio: an argument (repeatable)', collect, [])
    .option('--env <name=value>', 'stdio: an environment variable, stored sealed (value, @file or -; repeatable)', collect, [])
    .option('--json', 'print the stored definition as JSON')
    .action(async (id: string, options: AddOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        if ((options.url === undefined) === (options.command === undefined)) {
          throw new InvalidArgumentError('Give either --url (streamable-http) or --command (stdio).', { details: { argument: 'url' } });
        }
        const input: OutboundServerInput =
          options.url !== undefined
            ? { id, transport: 'streamable-http', url: options.url, headers: await readCredentials(options.header, io), ...(options.name === undefined ? {} : { name: options.name }) }
            : { id, transport: 'stdio', command: options.command!, args: [...options.arg], env: await readCredentials(options.env, io), ...(options.name === undefined ? {} : { name: options.name }) };
        const network = await defaultNetwork(platform, options.network, io);
        const host = await openMcpHost(platform);
        try {
          const stored = await host.outbound.store.add(network, input);
          if (options.json === true) return printJson(io, stored);
          io.stdout.write(`Added outbound MCP server ${stored.id} (${stored.transport}) to network ${network}.\n`);
        } finally {
          await host.close();
        }
      });
    });

  mcp
    .command('ls')
    .description('List the outbound MCP servers of a network.')
    .option('--network <slug>', 'the network (default: $INSEAM_NETWORK, else the only network)')
    .option('--json', 'print the definitions as JSON (secret values are never shown)')
    .action(async (options: { readonly network?: string; readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const network = await defaultNetwork(platform, options.network, io);
        const host = await openMcpHost(platform);
        try {
          const servers = await host.outbound.list(network);
          if (options.json === true) return printJson(io, servers);
          if (servers.length === 0) return void io.stderr.write(`Network ${network} has no outbound MCP server; add one with \`inseam mcp add\`.\n`);
          io.stdout.write(formatTable([['ID', 'TRANSPORT', 'TARGET', 'FROM'], ...servers.map((server) => [server.id, server.transport, server.url ?? [server.command!, ...server.args].join(' '), server.origin ?? ''])]));
        } finally {
          await host.close();
        }
      });
    });

  mcp
    .command('rm')
    .description('Remove an outbound MCP server and its sealed values.')
    .argument('<id>', 'the server id')
    .option('--network <slug>', 'the network (default: $INSEAM_NETWORK, else the only network)')
    .action(async (id: string, options: { readonly network?: string }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const network = await defaultNetwork(platform, options.network, io);
        const host = await openMcpHost(platform);
        try {
          if (!(await host.outbound.remove(network, id))) throw new NotFoundError(`Network ${network} has no outbound MCP server "${id}".`, { details: { network, server: id } });
          io.stdout.write(`Removed outbound MCP server ${id} from network ${network}.\n`);
        } finally {
          await host.close();
        }
      });
    });
}
