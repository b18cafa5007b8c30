/**
 * `inseam package add|ls|rm|swap`: connector packages installed into the deployment while it runs.
 * The person installing gives the trust (`--trust`); a manifest never states its own. A running
 * `inseam up` picks up what these commands change within its package-swap interval.
 *
 *   inseam package add ./acme-board --trust trusted
 *   inseam package swap acme.board             (the same folder, read again: new code or manifest)
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { PackageView } from '../../platform/installed-packages.js';
import { EXIT, type CliIo } from '../io.js';
import { localUser } from './token.js';
import { formatTable, printJson, withPlatform } from './support.js';

function describePackage(view: PackageView): string {
  const kinds = view.kinds.length === 0 ? 'no source kinds' : `kinds ${view.kinds.join(', ')}`;
  return `${view.packageId}${view.version === undefined ? '' : `@${view.version}`} (${view.trust}; ${kinds})`;
}

export function registerPackageCommand(program: Command, io: CliIo): void {
  const pkg = program.command('package').description('Install, list, swap and remove connector packages while inseam runs.');

  pkg
    .command('add')
    .description('Install the connector package in a folder, with the trust you give it.')
    .argument('<folder>', 'the package folder (its package.json holds the neuralis manifest)')
    .requiredOption('--trust <trust>', 'trusted (runs in inseam\'s process; may add source kinds), untrusted or sandboxed (MCP connectors only)')
    .option('--json', 'print the installed package as JSON')
    .action(async (folder: string, options: { readonly trust: string; readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const added = await platform.packages.add(resolve(folder), options.trust, localUser());
        if (options.json === true) return printJson(io, added);
        io.stderr.write(`Installed ${describePackage(added)}.\n`);
      });
    });

  pkg
    .command('ls')
    .description('List the built-in and installed packages, their trust, kinds and state.')
    .option('--json', 'print them as JSON')
    .action(async (options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const views = await platform.packages.list();
        if (options.json === true) return printJson(io, views);
        io.stdout.write(
          formatTable([
            ['PACKAGE', 'VERSION', 'TRUST', 'KINDS', 'STATE', 'SOURCE'],
            ...views.map((view) => [
              view.packageId,
              view.version ?? '-',
              view.trust,
              view.kinds.join(',') || '-',
              view.error === undefined ? view.state : `${view.state} (${view.error.code}: ${view.error.message})`,
              view.builtin ? 'built in' : `installed by ${view.installedBy ?? '?'}`,
            ]),
          ]),
        );
      });
    });

  pkg
    .command('swap')
    .description('Replace an installed package with a new version, keeping its trust; on failure the old one stays.')
    .argument('<package>', 'the package id (see `inseam package ls`)')
    .option('--folder <folder>', 'where the new version is (default: the folder it was installed from)')
    .option('--json', 'print the package as JSON')
    .action(async (packageId: string, options: { readonly folder?: string; readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const swapped = await platform.packages.swap(packageId, options.folder === undefined ? {} : { folder: resolve(options.folder) }, localUser());
        if (options.json === true) return printJson(io, swapped);
        io.stderr.write(`Swapped in ${describePackage(swapped)}.\n`);
      });
    });

  pkg
    .command('rescan')
    .description("Load a network's _packages/ drops again (new and changed ones load, gone ones unload); drops are untrusted.")
    .argument('<network>', 'the network whose folder holds the _packages/ drops')
    .option('--json', 'print what the scan did as JSON')
    .action(async (network: string, options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const scan = await platform.packages.rescan(network);
        if (options.json === true) return printJson(io, scan);
        const said = [
          scan.loaded.length > 0 ? `loaded ${scan.loaded.join(', ')}` : '',
          scan.removed.length > 0 ? `unloaded ${scan.removed.join(', ')}` : '',
          scan.unchanged.length > 0 ? `${scan.unchanged.length} unchanged` : '',
        ].filter(Boolean);
        io.stderr.write(`Network ${network}: ${said.length === 0 ? 'no drops' : said.join('; ')}.\n`);
        for (const failed of scan.failed) io.stderr.write(`  ${failed.drop}: ${failed.message} [${failed.code}]\n`);
        if (scan.failed.length > 0) process.exitCode = EXIT.no;
      });
    });

  pkg
    .command('rm')
    .description('Remove an installed package; hosts of its kinds stay, as orphans, until a package provides the kind again.')
    .argument('<package>', 'the package id (see `inseam package ls`)')
    .action(async (packageId: string, _options: unknown, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const removed = await platform.packages.remove(packageId);
        io.stderr.write(`Removed ${removed.packageId}${removed.kinds.length === 0 ? '' : `; hosts of ${removed.kinds.join(', ')} are orphans until a package provides the kind again`}.\n`);
      });
    });
}
