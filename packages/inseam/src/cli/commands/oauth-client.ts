/**
 * `inseam oauth-client set|rm`: the network admin's OAuth clients — the `network` client source a
 * connector's AuthSpec may name in `clientSources` — stored encrypted in the network's scope,
 * keyed by the exact token URL (so a connector declaring another token URL never gets the
 * secret). Deployment-wide clients (the `inseam` source) live in `<data>/oauth-clients.json`
 * instead (docs/credentials.md).
 */
import type { Command } from 'commander';
import type { TokenEndpointAuthMethod } from '../../credentials/index.js';
import type { CliIo } from '../io.js';
import { defaultNetwork, readCredentials, withPlatform } from './support.js';

interface SetOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod?: string;
  readonly network?: string;
}

export function registerOAuthClientCommand(program: Command, io: CliIo): void {
  const command = program.command('oauth-client').description('Store or remove a network\'s OAuth client for a token URL (the "network" client source of an AuthSpec).');

  command
    .command('set')
    .description('Store (replacing) the OAuth client used for one token URL in a network.')
    .requiredOption('--token-url <url>', 'the token endpoint, exactly as connectors declare it in acquire.tokenUrl')
    .requiredOption('--client-id <id>', 'the client id the authorization server issued')
    .option('--client-secret <value>', 'the client secret: the value, @file to read it from a file, or - to read one line from stdin (keeps it out of shell history)')
    .option('--auth-method <method>', 'client_secret_basic (default with a secret), client_secret_post, or none (default without)')
    .option('--network <slug>', 'the network (default: the only one, or INSEAM_NETWORK)')
    .action(async (options: SetOptions, sub: Command) => {
      const secret = options.clientSecret === undefined ? undefined : (await readCredentials([`clientSecret=${options.clientSecret}`], io))['clientSecret'];
      await withPlatform(sub, io, async (platform) => {
        const network = await defaultNetwork(platform, options.network, io);
        await platform.credentials.setNetworkClient(network, options.tokenUrl, {
          clientId: options.clientId,
          ...(secret === undefined ? {} : { clientSecret: secret }),
          ...(options.authMethod === undefined ? {} : { tokenEndpointAuthMethod: options.authMethod as TokenEndpointAuthMethod }),
        });
        io.stdout.write(`Stored the OAuth client ${options.clientId} for ${options.tokenUrl} in network "${network}"${secret === undefined ? ' (a public client, no secret)' : ''}.\n`);
      });
    });

  command
    .command('rm')
    .description('Remove a network\'s OAuth client for a token URL (grants made with it keep working until their next refresh).')
    .requiredOption('--token-url <url>', 'the token endpoint the client was stored for')
    .option('--network <slug>', 'the network (default: the only one, or INSEAM_NETWORK)')
    .action(async (options: { tokenUrl: string; network?: string }, sub: Command) => {
      await withPlatform(sub, io, async (platform) => {
        const network = await defaultNetwork(platform, options.network, io);
        const removed = await platform.credentials.removeNetworkClient(network, options.tokenUrl);
        io.stdout.write(removed ? `Removed the OAuth client for ${options.tokenUrl} from network "${network}".\n` : `Network "${network}" had no OAuth client for ${options.tokenUrl}.\n`);
      });
    });
}
