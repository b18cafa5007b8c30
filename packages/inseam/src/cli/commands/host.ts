/**
 * `inseam host add|ls|show|set|rm|permissions|trust-key|kinds|discover|webhook-url`: the hosts of a network.
 *
 *   inseam host add home/notes --kind fs --config '{"root":"/srv/notes"}'            (read only, synced automatically)
 *   inseam host set home/notes --label 'My notes' --sync-mode auto --interval PT5M
 *   inseam host set home/notes --config '{"root":"/srv/other"}'             (re-binds and syncs in full)
 *   inseam host add home/drafts --kind fs --config '{"root":"/srv/drafts"}' --writable
 *   inseam host permissions home/notes --writable        (or --read-only, or --permissions <tree>)
 *   inseam host add home/archive --kind bucket --config @bucket.json \
 *       --credential accessKeyId=AKIA… --credential secretAccessKey=@secret.txt
 *   inseam host add home/reports --from test.seeds          (a discoverable source)
 *
 *   inseam host webhook-url home/tickets --base https://inseam.example.com   (once; --revoke to stop it)
 *
 * Credentials are never printed; `host show` lists which fields are stored. A webhook URL is
 * printed once, when it is minted: only its key's hash is stored.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, PreconditionFailedError, type OwnershipScope, type PermissionTree, type SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { Scope } from '@inseam/connector';
import type { WritesOutcome } from '../../connectors/index.js';
import type { AddHostInput, HostChange, HostView } from '../../network/index.js';
import type { CatalogSize, SyncRecord } from '../../store/index.js';
import type { CliIo } from '../io.js';
import { describeLastSync, describePermissions, describeSync, effectiveHost, type EffectiveHost } from './host-effective.js';
import { unknownKind } from './kind-suggestion.js';
import { localUser } from './token.js';
import { collect, defaultNetwork, formatBytes, formatCount, formatCountOf, formatTable, parseHostArgument, printJson, readCredentials, readJsonArgument, readJsonObject, withPlatform } from './support.js';

interface AddOptions {
  readonly kind?: string;
  readonly config?: string;
  readonly scope?: string;
  readonly sync?: string;
  readonly permissions?: string;
  readonly writable?: boolean;
  readonly credential: readonly string[];
  readonly label?: string;
  readonly description?: string;
  readonly ownership?: string;
  readonly owner?: string;
  readonly allowPrivateOrigin: readonly string[];
  readonly from?: string;
  readonly syncMode?: string;
  readonly interval?: string;
  readonly scratchPrefix?: string;
  readonly json?: boolean;
}

/**
 * `--sync`, or `--sync-mode` with `--interval` (which build the same settings); none gives
 * undefined. `default` for `--sync` stands for the kind's default (null). Throws
 * `invalid_argument` for a mode that is neither, or for both spellings at once.
 */
async function syncOption(options: { readonly sync?: string; readonly syncMode?: string; readonly interval?: string }): Promise<SourceSyncSettings | null | undefined> {
  if (options.sync !== undefined && (options.syncMode !== undefined || options.interval !== undefined)) {
    throw new InvalidArgumentError('Give --sync, or --sync-mode with --interval, not both.', { details: { argument: 'sync' } });
  }
  if (options.sync === 'default') return null;
  if (options.sync !== undefined) return (await readJsonArgument(options.sync, '--sync')) as SourceSyncSettings;
  if (options.syncMode === undefined && options.interval === undefined) return undefined;
  const mode = options.syncMode ?? 'auto';
  if (mode !== 'auto' && mode !== 'manual') throw new InvalidArgumentError(`--sync-mode must be auto or manual, not ${JSON.stringify(mode)}.`, { details: { argument: 'sync-mode' } });
  // An interval without a trigger is the service's to refuse with manual; it is given as typed.
  return { trigger: mode, ...(options.interval === undefined ? {} : { interval: options.interval }) };
}

const OWNERSHIPS: readonly string[] = ['project', 'user', 'agent'];

async function addInput(options: AddOptions, io: CliIo): Promise<Omit<AddHostInput, 'network' | 'slug' | 'kind'> & { kind?: string }> {
  if (options.ownership !== undefined && !OWNERSHIPS.includes(options.ownership)) {
    throw new InvalidArgumentError(`--ownership must be project, user or agent, not ${JSON.stringify(options.ownership)}.`, { details: { argument: 'ownership' } });
  }
  const credentials = await readCredentials(options.credential, io);
  const sync = await syncOption(options);
  return {
    ...(options.kind === undefined ? {} : { kind: options.kind }),
    ...(options.config === undefined ? {} : { config: await readJsonObject(options.config, '--config') }),
    ...(options.scope === undefined ? {} : { scope: (await readJsonArgument(options.scope, '--scope')) as Scope }),
    ...(sync === undefined ? {} : { sync }),
    ...(options.permissions === undefined ? {} : { permissions: (await readJsonArgument(options.permissions, '--permissions')) as PermissionTree }),
    ...(options.writable === undefined ? {} : { writable: options.writable }),
    ...(Object.keys(credentials).length === 0 ? {} : { credentials }),
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.ownership === undefined ? {} : { ownership: options.ownership as OwnershipScope }),
    ...(options.owner === undefined ? {} : { ownerId: options.owner }),
    ...(options.allowPrivateOrigin.length === 0 ? {} : { privateOrigins: options.allowPrivateOrigin }),
  };
}

interface SetOptions {
  readonly config?: string;
  readonly label?: string;
  readonly description?: string;
  readonly scope?: string;
  readonly sync?: string;
  readonly syncMode?: string;
  readonly interval?: string;
  readonly permissions?: string;
  readonly writable?: boolean;
  readonly readOnly?: boolean;
  readonly scratchPrefix?: string;
  readonly json?: boolean;
}

async function changeOf(options: SetOptions): Promise<HostChange> {
  if (options.writable === true && options.readOnly === true) throw new InvalidArgumentError('Give --writable or --read-only, not both.', { details: { argument: 'writable' } });
  const sync = await syncOption(options);
  const writable = options.writable === true ? true : options.readOnly === true ? false : undefined;
  return {
    ...(options.config === undefined ? {} : { config: await readJsonObject(options.config, '--config') }),
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.scope === undefined ? {} : { scope: options.scope === 'default' ? null : ((await readJsonArgument(options.scope, '--scope')) as Scope) }),
    ...(sync === undefined ? {} : { sync }),
    ...(options.permissions === undefined ? {} : { permissions: (await readJsonArgument(options.permissions, '--permissions')) as PermissionTree }),
    ...(writable === undefined ? {} : { writable }),
  };
}

/** One line per sync: when it started, how long it took, its mode and state, what it changed, and its error. */
export function describeSyncs(syncs: readonly SyncRecord[]): string {
  if (syncs.length === 0) return 'last syncs: none yet\n';
  const rows = syncs.map((sync) => [
    new Date(sync.startedAt).toISOString(),
    `${(sync.elapsedMs / 1000).toFixed(1)}s`,
    sync.mode,
    sync.state,
    `+${formatCount(sync.added)} ~${formatCount(sync.changed)} -${formatCount(sync.removed)}${sync.moved > 0 ? ` >${formatCount(sync.moved)}` : ''}`,
    sync.error === null ? (sync.errors > 0 ? `${formatCount(sync.errors)} entries failed` : '') : `${sync.error.message} [${sync.error.code}]`,
  ]);
  return `last syncs:\n${formatTable([['STARTED', 'TOOK', 'MODE', 'STATE', 'ADDED ~CHANGED -REMOVED', 'ERRORS'], ...rows])}`;
}

function describeHost(host: HostView, effective: EffectiveHost, catalog: CatalogSize): string {
  const lines: [string, string][] = [
    ['address', host.address],
    ['kind', host.kindRegistered ? host.kind : `${host.kind} (not registered: its package is not installed)`],
    ['label', host.label],
    ['description', host.description],
    ['origin', host.origin ?? '-'],
    ['ownership', host.ownerId === null ? host.ownership : `${host.ownership} ${host.ownerId}`],
    ['config', JSON.stringify(host.config)],
    ['scope', host.scope === null ? '(the kind\'s default)' : JSON.stringify(host.scope)],
    ['sync', describeSync(effective.sync)],
    ['last sync', describeLastSync(effective.lastSync)],
    ['catalog', `${formatCountOf(catalog.entries, 'entry', 'entries')}, ${formatBytes(catalog.bytes)}`],
    ['permissions', describePermissions(effective.permissions)],
  ];
  if (host.privateOrigins.length > 0) lines.push(['private origins', host.privateOrigins.join(', ')]);
  if (host.credentials !== null && host.credentials.acquire !== 'none') {
    const missing = host.credentials.fields.filter((field) => !host.credentials!.stored.includes(field));
    lines.push(['credentials', `${host.credentials.acquire}; stored: ${host.credentials.stored.join(', ') || 'none'}${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}`]);
  }
  lines.push(['created', new Date(host.createdAt).toISOString()], ['updated', new Date(host.updatedAt).toISOString()]);
  return formatTable(lines.map(([key, value]) => [`${key}:`, value]));
}

export function registerHostCommand(program: Command, io: CliIo): void {
  const host = program.command('host').description('Add, list, show and remove the hosts of a network.');

  host
    .command('add')
    .description('Add a host to a network. Nothing is stored unless every part is valid.')
    .argument('<host>', 'network/slug (or inseam://network/slug) of the new host')
    .option('--kind <kind>', 'the connector kind: fs, local, bucket, or a sandboxed kind (see `inseam host kinds`)')
    .option('--config <json|@file>', "the host's config, checked against the kind's schema")
    .option('--scope <json|@file>', 'which entries are crawled (see docs/scope.md)')
    .option('--sync <json|@file>', 'sync settings: { "trigger": "auto"|"manual", "interval"?, "exclude"?, "alwaysActive"? } (default: auto where the kind can watch or lists for free, else manual)')
    .option('--sync-mode <mode>', 'auto (sync by itself, watching where the kind can) or manual (only when asked)')
    .option('--interval <duration>', 'with auto: how often to sync, ISO 8601 (default PT15M)')
    .option('--permissions <json|@file>', 'the permission tree: { "default": { "read", "write", "exec" }, "paths"?: { … } }')
    .option('--writable', 'let callers write and delete (default: read only; agents still need a grant)')
    .option('--scratch-prefix <prefix>', 'with --writable, for a sandboxed connector that declares writes: the host folder its install-phase trial writes on first')
    .option('--credential <field=value>', 'a credential field (value, @file or - for stdin); repeat for each field', collect, [])
    .option('--label <label>', 'a human label (default: the slug)')
    .option('--description <text>', 'what the host is, for people and agents')
    .option('--ownership <scope>', 'project (the whole network), user or agent')
    .option('--owner <id>', 'the user or agent id, with --ownership user or agent')
    .option('--allow-private-origin <origin>', 'approve a declared origin that resolves to a private address; repeatable', collect, [])
    .option('--from <package>', "add the package's declared source of this slug (see `inseam host discover`)")
    .option('--json', 'print the new host as JSON')
    .action(async (target: string, options: AddOptions, command: Command) => {
      const ref = parseHostArgument(target);
      const input = await addInput(options, io);
      await withPlatform(command, io, async (platform, connectors) => {
        let added: HostView;
        let writes: WritesOutcome | null = null;
        if (options.from !== undefined) {
          added = await platform.networks.addDeclared(ref.network, options.from, ref.host, input);
        } else {
          if (input.kind === undefined) throw new InvalidArgumentError('Name the kind with --kind (see `inseam host kinds`), or add a declared source with --from <package>.', { details: { argument: 'kind' } });
          // A sandboxed connector's kind is registered platform-wide; each network needs its own approval.
          await connectors.requireApprovedKind(ref.network, input.kind);
          if (!platform.kinds.has(input.kind)) throw unknownKind(input.kind, platform.kinds.list());
          const outcome = await connectors.addHost({ userId: localUser() }, { ...input, kind: input.kind, network: ref.network, slug: ref.host }, options.scratchPrefix);
          added = outcome.host;
          writes = outcome.writes;
        }
        if (options.json === true) return printJson(io, { ...added, writes });
        io.stdout.write(`Added host ${added.address} (${added.kind})${added.origin === null ? '' : `, declared by ${added.origin}`}.\n`);
        if (writes !== null) io.stdout.write(`${writes.message}\n`);
      });
    });

  host
    .command('ls')
    .description("List a network's hosts.")
    .argument('[network]', 'the network slug (default: INSEAM_NETWORK, else the only network)')
    .option('--json', 'print the hosts as JSON')
    .action(async (network: string | undefined, options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const hosts = await platform.networks.listHosts(await defaultNetwork(platform, network, io));
        if (options.json === true) return printJson(io, hosts);
        io.stdout.write(formatTable([['HOST', 'KIND', 'LABEL', 'ORIGIN', 'ADDRESS'], ...hosts.map((item) => [item.slug, item.kind, item.label, item.origin ?? '-', item.address])]));
      });
    });

  host
    .command('show')
    .description('Show one host (never its credentials): what was set, and the permissions and sync in force with its last sync.')
    .argument('<host>', 'network/slug or inseam://network/slug')
    .option('--json', 'print the host as JSON')
    .action(async (target: string, options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const ref = parseHostArgument(target);
        const shown = await platform.networks.showHost(ref);
        const record = await platform.networks.hostRecord(ref);
        const syncs = await platform.store.syncHistory.list(record.id, 5);
        const effective = await effectiveHost(platform, record, syncs);
        const catalog = await platform.store.catalog.catalogSize(record.id);
        if (options.json === true) return printJson(io, { ...shown, catalog, syncs, effective });
        io.stdout.write(describeHost(shown, effective, catalog));
        io.stdout.write(describeSyncs(syncs));
      });
    });

  host
    .command('set')
    .description('Change a host: only what is given changes, checked as `host add` checks it; a refused change changes nothing.')
    .argument('<host>', 'network/slug or inseam://network/slug')
    .option('--config <json|@file>', 'the whole new config (re-binds the host and syncs it in full)')
    .option('--label <label>', 'a new label')
    .option('--description <text>', 'a new description')
    .option('--scope <json|@file|default>', 'a new scope (syncs in full), or default for the kind\'s')
    .option('--sync <json|@file|default>', 'new sync settings, or default for the kind\'s')
    .option('--sync-mode <mode>', 'auto or manual')
    .option('--interval <duration>', 'with auto: how often to sync, ISO 8601')
    .option('--permissions <json|@file>', 'a new permission tree (a person\'s act)')
    .option('--writable', 'turn writes on')
    .option('--read-only', 'turn writes off everywhere')
    .option('--scratch-prefix <prefix>', 'for a sandboxed connector that declares writes: the host folder its install-phase trial writes on (default: the one used last for this host)')
    .option('--json', 'print the host as JSON')
    .action(async (target: string, options: SetOptions, command: Command) => {
      const ref = parseHostArgument(target);
      const change = await changeOf(options);
      if (Object.keys(change).length === 0) {
        throw new InvalidArgumentError('Say what to change: --config, --label, --description, --scope, --sync (or --sync-mode/--interval), --permissions, --writable or --read-only.', { details: { argument: 'change' } });
      }
      await withPlatform(command, io, async (platform, connectors) => {
        const { host: changed, writes } = await connectors.updateHost({ userId: localUser() }, ref, change, options.scratchPrefix);
        if (writes !== null && options.json !== true) io.stderr.write(`${writes.message}\n`);
        // A new config or scope started a full sync; this command ends with it rather than leave it paused.
        const syncing = platform.crawler.running(ref);
        if (syncing !== undefined && options.json !== true) io.stderr.write(`Syncing ${changed.address} in full with its new ${change.config !== undefined ? 'config' : 'scope'}…\n`);
        const run = await syncing?.result.catch(() => undefined);
        if (options.json === true) return printJson(io, { ...changed, writes });
        io.stdout.write(`Changed host ${changed.address}.\n`);
        if (run !== undefined) io.stdout.write(run.state === 'completed' ? `Synced: ${formatCountOf(run.counters.entries, 'entry', 'entries')}, ${formatCount(run.counters.deleted)} removed.\n` : `The sync ended ${run.state}${run.error === null ? '' : `: ${run.error.message} [${run.error.code}]`}; \`inseam crawl ${ref.network}/${ref.host}\` resumes it.\n`);
      });
    });

  host
    .command('permissions')
    .description('Change what a host lets callers do: turn writes on or off, or give a new permission tree.')
    .argument('<host>', 'network/slug or inseam://network/slug')
    .option('--writable', 'turn writes on (the tree\'s default write; paths that deny writes keep denying)')
    .option('--read-only', 'turn writes off everywhere')
    .option('--permissions <json|@file>', 'a new permission tree (with --writable or --read-only applied on top)')
    .option('--scratch-prefix <prefix>', 'for a sandboxed connector that declares writes: the host folder its install-phase trial writes on before writes are turned on (default: the one used last for this host)')
    .option('--json', 'print the host as JSON')
    .action(async (target: string, options: { readonly writable?: boolean; readonly readOnly?: boolean; readonly permissions?: string; readonly scratchPrefix?: string; readonly json?: boolean }, command: Command) => {
      if (options.writable === true && options.readOnly === true) {
        throw new InvalidArgumentError('Give --writable or --read-only, not both.', { details: { argument: 'writable' } });
      }
      const permissions = options.permissions === undefined ? undefined : ((await readJsonArgument(options.permissions, '--permissions')) as PermissionTree);
      const writable = options.writable === true ? true : options.readOnly === true ? false : undefined;
      await withPlatform(command, io, async (platform, connectors) => {
        const change = { ...(permissions === undefined ? {} : { permissions }), ...(writable === undefined ? {} : { writable }) };
        const { host: changed, writes } = await connectors.setPermissions({ userId: localUser() }, parseHostArgument(target), change, options.scratchPrefix);
        // Writes were what was asked: a trial that refused them is this command's failure.
        if (writes !== null && !writes.writable) throw new PreconditionFailedError(writes.message, { details: { reason: writes.trial === null ? 'writes_not_trialled' : 'writes_trial_failed', trial: writes.trial, check: writes.check } });
        if (writes !== null && options.json !== true) io.stderr.write(`${writes.message}\n`);
        if (options.json === true) return printJson(io, { ...changed, writes });
        io.stdout.write(`Host ${changed.address} now has permissions ${JSON.stringify(changed.permissions)}.\n`);
      });
    });

  host
    .command('trust-key')
    .description("Show the host key a machine host's machine presents, or approve it (--approve): machine hosts trust no key until a person approves one.")
    .argument('<host>', 'network/slug or inseam://network/slug')
    .option('--approve <fingerprint>', 'the SHA256:… fingerprint you compared with the machine\'s own key')
    .option('--json', 'print the result as JSON')
    .action(async (target: string, options: { readonly approve?: string; readonly json?: boolean }, command: Command) => {
      const ref = parseHostArgument(target);
      await withPlatform(command, io, async (platform) => {
        if (options.approve === undefined) {
          const presented = await platform.networks.presentedHostKey(ref);
          if (options.json === true) return printJson(io, { presented });
          io.stdout.write(`${presented}\n`);
          io.stderr.write(
            `The machine of ${ref.network}/${ref.host} presents this host key. Compare it with the machine's own (ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub, run there), then approve it: inseam host trust-key ${ref.network}/${ref.host} --approve ${presented}\n`,
          );
          return;
        }
        const changed = await platform.networks.trustHostKey(ref, options.approve);
        if (options.json === true) return printJson(io, changed);
        io.stdout.write(`Host ${changed.address} now trusts host key ${options.approve}; any other key is refused.\n`);
      });
    });

  host
    .command('rm')
    .description('Remove a host with everything catalogued for it and its credentials.')
    .argument('<host>', 'network/slug or inseam://network/slug')
    .action(async (target: string, _options: unknown, command: Command) => {
      const ref = parseHostArgument(target);
      await withPlatform(command, io, async (platform) => {
        await platform.networks.removeHost(ref);
        io.stdout.write(`Removed host inseam://${ref.network}/${ref.host}/.\n`);
      });
    });

  host
    .command('webhook-url')
    .description('Mint the URL a service delivers the host\'s webhooks to (printed once; minting again replaces it), or revoke it.')
    .argument('<host>', 'network/slug or inseam://network/slug')
    .option('--base <url>', 'where the server is reached from the service, e.g. https://inseam.example.com (default: print the path only)')
    .option('--revoke', 'revoke the host\'s URL instead')
    .option('--json', 'print the result as JSON')
    .action(async (target: string, options: { readonly base?: string; readonly revoke?: boolean; readonly json?: boolean }, command: Command) => {
      const ref = parseHostArgument(target);
      const base = options.base === undefined ? undefined : baseUrl(options.base);
      await withPlatform(command, io, async (platform) => {
        const record = await platform.networks.hostRecord(ref);
        // The webhook routes live with the server; only this subcommand loads them.
        const { WebhookKeys, hookPath, requireWebhooks } = await import('../../http/index.js');
        const keys = new WebhookKeys(platform.store.webhookKeys);
        if (options.revoke === true) {
          const revoked = await keys.revoke(ref);
          if (options.json === true) return printJson(io, { revoked });
          io.stdout.write(revoked ? `Revoked the webhook URL of ${ref.network}/${ref.host}; deliveries to it are refused from now on.\n` : `Host ${ref.network}/${ref.host} has no webhook URL.\n`);
          return;
        }
        await requireWebhooks(platform, record);
        const minted = await keys.mint(ref);
        const path = `${hookPath(ref)}/${minted.key}`;
        const url = base === undefined ? null : `${base}${path}`;
        if (options.json === true) return printJson(io, { url, path, createdAt: minted.createdAt, replaced: minted.replaced });
        io.stdout.write(`${url ?? path}\n`);
        io.stderr.write(
          `The webhook URL of ${ref.network}/${ref.host}${url === null ? ' (its path: put the server\'s public address in front, or give --base)' : ''}. It is shown this once; give it to the service that sends the webhooks.${minted.replaced ? ' The previous URL no longer works.' : ''}\n`,
        );
      });
    });

  host
    .command('kinds')
    .description('List the kinds hosts can be.')
    .option('--json', 'print the kinds as JSON')
    .action(async (options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const kinds = platform.kinds.list();
        if (options.json === true) return printJson(io, kinds);
        io.stdout.write(formatTable([['KIND', 'LABEL', 'CATEGORY', 'CAPABILITIES'], ...kinds.map((kind) => [kind.kind, kind.label, kind.category ?? '-', kind.capabilities.join(' ')])]));
      });
    });

  host
    .command('discover')
    .description('List the sources installed packages offer to add (never added by themselves).')
    .argument('<network>', 'the network slug')
    .option('--json', 'print the sources as JSON')
    .action(async (network: string, options: { readonly json?: boolean }, command: Command) => {
      await withPlatform(command, io, async (platform) => {
        const offered = await platform.networks.discoverable(network);
        if (options.json === true) return printJson(io, offered);
        io.stdout.write(
          formatTable([
            ['SOURCE', 'KIND', 'PACKAGE', 'STATE', 'DESCRIPTION'],
            ...offered.map((item) => [item.source, item.kind, item.packageId, item.added ? 'added' : item.kindRegistered ? 'available' : 'kind missing', item.description]),
          ]),
        );
      });
    });
}

/** `--base`: an http(s) origin (and optional path prefix) without a trailing slash. */
function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError(`--base must be a URL such as https://inseam.example.com, not ${JSON.stringify(text)}.`, { details: { argument: 'base' } });
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError('--base must be a plain http(s) URL, without credentials, query or fragment.', { details: { argument: 'base' } });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
