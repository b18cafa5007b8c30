/** Every subcommand, registered in the order `inseam --help` lists them. */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { registerChangeCommands } from './changes.js';
import { registerConnectorCommands } from './connector.js';
import { registerCrawlCommand } from './crawl.js';
import { registerCredentialCommand } from './credential.js';
import { registerFilesCommand } from './files.js';
import { registerHostCommand } from './host.js';
import { registerListingCommands } from './listing.js';
import { registerMcpCommand } from './mcp.js';
import { registerNetworkCommand } from './network.js';
import { registerOAuthClientCommand } from './oauth-client.js';
import { registerPackageCommand } from './package.js';
import { registerSearchCommand } from './search.js';
import { registerSigninCommand } from './signin.js';
import { registerStatusCommand } from './status.js';
import { registerStoreCommand } from './store.js';
import { registerDataOption } from './support.js';
import { registerTrialCommand } from './trial.js';
import { registerTokenCommand } from './token.js';
import { registerUpCommand } from './up.js';
import { registerWorkerCommand } from './worker.js';

export function registerCommands(program: Command, io: CliIo): void {
  registerDataOption(program);
  registerUpCommand(program, io);
  registerWorkerCommand(program, io);
  registerStatusCommand(program, io);
  registerStoreCommand(program, io);
  registerNetworkCommand(program, io);
  registerHostCommand(program, io);
  registerFilesCommand(program, io);
  registerListingCommands(program, io);
  registerChangeCommands(program, io);
  registerCrawlCommand(program, io);
  registerSearchCommand(program, io);
  registerTrialCommand(program, io);
  registerConnectorCommands(program, io);
  registerPackageCommand(program, io);
  registerCredentialCommand(program, io);
  registerTokenCommand(program, io);
  registerSigninCommand(program, io);
  registerOAuthClientCommand(program, io);
  registerMcpCommand(program, io);
}
