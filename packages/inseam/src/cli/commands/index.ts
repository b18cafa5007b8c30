/** Every subcommand, registered in the order `inseam --help` lists them. */
import type { Command } from 'commander';
import type { CliIo } from '../program.js';
import { registerTrialCommand } from './trial.js';

export function registerCommands(program: Command, io: CliIo): void {
  registerTrialCommand(program, io);
}
