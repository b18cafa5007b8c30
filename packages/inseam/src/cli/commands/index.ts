/** Every subcommand, registered in the order `inseam --help` lists them. */
import type { Command } from 'commander';
import type { CliIo } from '../program.js';

export function registerCommands(_program: Command, _io: CliIo): void {}
