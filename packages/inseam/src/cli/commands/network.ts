/**
 * `inseam network init <slug> [--label …] [--json]` creates a network with its pad and the
 * sources the loaded packages seed; `inseam network ls [--json]` lists networks.
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { formatTable, printJson, withPlatform } from './support.js';

interface InitOptions {
  readonly label?: string;
  readonly json?: boolean;
}

export function registerNetworkCommand(program: Command, io: CliIo): void {
  const network = program.command('network').description('Create and list networks (named spaces of hosts).');

  network
    .command('init')
    .description('Create a network with its pad and the sources installed packages seed.')
    .argument('<slug>', 'the network slug: lowercase letters, digits and "-", e.g. home')
    .option('--label <label>', 'a human label (default: the slug)')
    .option('--json', 'print the result as JSON')
    .action(async (slug: string, options: InitOptions, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const result = await platform.networks.init(slug, options.label === undefined ? {} : { label: options.label });
        if (options.json === true) return printJson(io, result);
        io.stdout.write(`Created network ${result.network.slug} with ${result.hosts.length} host${result.hosts.length === 1 ? '' : 's'}:\n`);
        io.stdout.write(formatTable(result.hosts.map((host) => ['  ' + host.slug, host.kind, host.address, host.origin === null ? '' : `(from ${host.origin})`])));
        for (const skipped of result.skipped) {
          io.stderr.write(`Skipped source "${skipped.source}" of ${skipped.packageId}: ${skipped.error.message} [${skipped.error.code}]\n`);
        }
      });
    });

  network
    .command('ls')
    .description('List networks.')
    .option('--json', 'print the networks as JSON')
    .action(async (options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const networks = await platform.networks.list();
        const rows = await Promise.all(
          networks.map(async (item) => ({ slug: item.slug, label: item.label, hosts: (await platform.store.hosts.list(item.slug)).length, createdAt: new Date(item.createdAt).toISOString() })),
        );
        if (options.json === true) return printJson(io, rows);
        if (rows.length === 0) return void io.stderr.write('No networks yet; create one with `inseam network init <slug>`.\n');
        io.stdout.write(formatTable([['NETWORK', 'LABEL', 'HOSTS', 'CREATED'], ...rows.map((row) => [row.slug, row.label, String(row.hosts), row.createdAt])]));
      });
    });
}
