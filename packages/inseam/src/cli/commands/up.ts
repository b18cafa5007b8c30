/**
 * `inseam up [--data dir] [--store url] [--folder path] [--port n] [--host addr]`: the main job.
 * Serves the web page (`/`), the HTTP API (`/v1`) and the MCP endpoint (`/mcp`) on one port over
 * the embedded store in the data directory, or over a shared PostgreSQL store (`--store
 * postgres://…` or INSEAM_DATABASE_URL; see docs/store.md).
 *
 * First start (no network yet): creates network `home` (with its pad) and an `fs` host `files` on
 * `--folder`, or on a demo folder `<data>/demo` it fills with a README and a few samples — read
 * only, as every new host is (`inseam host permissions home/files --writable` turns writes on).
 * Every start: registers installed sandboxed connectors again, starts syncing (a first crawl of
 * `files`), listens, and only then — so a start that cannot listen leaves nothing half-made —
 * makes the admin token while `<data>/admin.token` does not exist (saved there, mode 0600, and
 * never printed: the output is often a log) and a one-time sign-in link for the web page, records
 * its address in `<data>/server.json` (for `inseam signin`), and prints the URLs.
 *
 * SIGINT/SIGTERM: finish the requests in flight (for at most SHUTDOWN_GRACE_MS, then close what
 * is left) while answering every new request 503, then stop listening, pause crawls at their next
 * checkpoint, close the store — exit 0 with nothing committed lost. A second signal skips the
 * wait.
 */
import { constants } from 'node:fs';
import { mkdir, open, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError, NotFoundError, PermissionDeniedError, UnavailableError } from '@neuralis/package-system/contracts';
// The server, the platform, the queue and PostgreSQL are imported when `up` runs, not when the
// command is registered: every other command (and --help) would pay for them otherwise.
import { DEFAULT_MAX_WRITE_BYTES } from '../../http/limits.js';
import type { TokenService } from '../../http/tokens.js';
import type { Platform } from '../../platform/index.js';
import type { ReconcileOutcome } from '../../platform/installed-packages.js';
import type { CliIo } from '../io.js';
import type { HostQueue } from '../../queue/index.js';
import type { PostgresStore } from '../../store/index.js';
import { isPostgresUrl } from '../../store/postgres/url.js';
import { collect, platformOptions, stopSignals } from './support.js';
import { storeUrlOf, workerHosts } from './worker.js';
import { forgetServer, recordServer, signInLink } from './signin.js';
import { localUser } from './token.js';

export const DEFAULT_PORT = 7341;
/** The host lease of the queue worker `up` runs on the shared store (as `inseam worker`'s default). */
const UP_WORKER_LEASE_MS = 30_000;

interface QueuedCrawls {
  stop(): Promise<void>;
}

/**
 * On the shared PostgreSQL store the server does not schedule crawls itself: it joins the queue as
 * one worker (concurrency 1), so scheduled and first syncs are leased host by host exactly as on
 * `inseam worker` processes, which add capacity beside it. Crawls the API asks for, added hosts'
 * first crawls and webhook deliveries go through the queue too (`platform.routeCrawls`), so
 * whichever worker holds a host runs them. Stopping pauses its crawls at a checkpoint and queues
 * them again for another worker.
 */
async function startQueueWorker(platform: Platform, store: PostgresStore, url: string): Promise<QueuedCrawls> {
  const { HostQueue, QueueDatabase, QueueWorker, QueuedCrawlRequests } = await import('../../queue/index.js');
  const database = new QueueDatabase({ url, max: 5 });
  let queue: HostQueue | undefined;
  try {
    queue = await HostQueue.start({ database });
    platform.routeCrawls(new QueuedCrawlRequests({ store, queue }));
    const worker = new QueueWorker({
      queue,
      store: platform.store,
      crawler: platform.crawler,
      hosts: workerHosts(platform),
      concurrency: 1,
      leaseMs: UP_WORKER_LEASE_MS,
    });
    await worker.start();
    // Due syncs (a new auto host's first crawl among them) are queued at once, not at the next minute's tick.
    await queue.tickNow();
    const started = queue;
    let stopping: Promise<void> | undefined;
    return {
      stop: () => (stopping ??= (async () => {
        await worker.stop();
        await started.stop();
        await database.close();
      })()),
    };
  } catch (error) {
    await queue?.stop().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_NETWORK = 'home';
export const FILES_HOST = 'files';
export const ADMIN_TOKEN_FILE = 'admin.token';
/** How long shutdown waits for requests in flight before closing their connections. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** How often the package-swap loop looks at the installed packages and their folders. */
const PACKAGE_SWAP_MS = 5_000;

function describeReconcile(outcome: ReconcileOutcome): string {
  const parts = [
    ['loaded', outcome.loaded],
    ['swapped in', outcome.swapped],
    ['removed', outcome.removed],
    ['failed to load (see `inseam package ls`)', outcome.failed],
  ] as const;
  return parts.filter(([, ids]) => ids.length > 0).map(([what, ids]) => `${what}: ${ids.join(', ')}`).join('; ');
}

interface UpOptions {
  readonly folder?: string;
  readonly port: string;
  readonly host: string;
  readonly maxWriteBytes?: string;
  readonly allowPrivateOrigin: readonly string[];
  readonly publicUrl?: string;
}

const DEMO_FILES: Readonly<Record<string, string>> = {
  'README.md':
    '# Welcome to inseam\n\nThis demo folder is mounted as the host `files` of network `home`: `inseam://home/files/README.md`.\n\nTry `inseam ls inseam://home/files/`, `inseam search welcome`, or the HTTP API at /v1 with the admin token.\nReplace it with your own folder: start over with `inseam up --folder <path>` on a new data directory, or add hosts with `inseam host add`.\n',
  'notes/ideas.md': '# Ideas\n\n- Mount the team drive next to this folder.\n- Let an agent search across both.\n',
  'notes/meeting-2024-05-02.txt': 'Meeting, 2 May 2024\nAgreed: ship the harbour crane on Tuesday.\n',
  'data/cities.csv': 'city,country,population\nLisbon,Portugal,545000\nOslo,Norway,709000\nKyoto,Japan,1464000\n',
  'data/settings.json': '{\n  "theme": "dark",\n  "language": "en"\n}\n',
};

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`--port must be a port number from 0 (any free port) to 65535, not ${JSON.stringify(text)}.`, { details: { argument: 'port' } });
  }
  return port;
}

function bytesOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_WRITE_BYTES;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError('--max-write-bytes must be a whole number of bytes.', { details: { argument: 'max-write-bytes' } });
  return value;
}

async function checkFolder(path: string): Promise<string> {
  const folder = isAbsolute(path) ? path : resolve(path);
  const found = await stat(folder).catch(() => null);
  if (found === null || !found.isDirectory()) throw new NotFoundError(`--folder ${JSON.stringify(path)} is not a folder; name an existing folder to mount.`, { details: { argument: 'folder' } });
  return folder;
}

/** Writes the demo folder's files that are not there yet. */
async function demoFolder(dataDir: string): Promise<string> {
  const root = join(dataDir, 'demo');
  for (const [path, text] of Object.entries(DEMO_FILES)) {
    const file = join(root, path);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, text, { flag: 'wx' }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    });
  }
  return root;
}

interface Setup {
  readonly created: boolean;
  readonly folder: string | null;
}

/**
 * On a data directory with no network: network `home` and host `files`. With `home` there but no
 * `files` host and a `--folder` given: adds it. Otherwise leaves everything as it is.
 */
async function firstStart(platform: Platform, folder: string | undefined): Promise<Setup> {
  const networks = await platform.networks.list();
  const home = networks.find((network) => network.slug === DEFAULT_NETWORK);
  if (networks.length > 0 && (home === undefined || folder === undefined)) return { created: false, folder: null };
  if (home !== undefined && (await platform.store.hosts.get({ network: DEFAULT_NETWORK, host: FILES_HOST })) !== null) return { created: false, folder: null };
  const root = folder ?? (await demoFolder(platform.dataDir));
  if (home === undefined) await platform.networks.init(DEFAULT_NETWORK, { label: 'Home' });
  await platform.networks.addHost({
    network: DEFAULT_NETWORK,
    slug: FILES_HOST,
    kind: 'fs',
    config: { root },
    label: 'Files',
    description: folder === undefined ? 'A demo folder with a README and a few sample files.' : 'The folder named when inseam was first started.',
    sync: { trigger: 'auto' },
  });
  return { created: true, folder: root };
}

/** Makes the admin token while `<data>/admin.token` does not exist and saves it there; false when it exists already. */
async function adminToken(platform: Platform, tokens: TokenService): Promise<boolean> {
  const file = join(platform.dataDir, ADMIN_TOKEN_FILE);
  let handle;
  try {
    handle = await open(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false;
    throw error;
  }
  let written = false;
  try {
    const { ADMIN_FEATURES } = await import('../../http/tokens.js');
    const created = await tokens.create({ name: 'admin (inseam up)', userId: localUser(), features: ADMIN_FEATURES });
    await handle.writeFile(`${created.token}\n`);
    written = true;
    return true;
  } finally {
    await handle.close();
    // A file without a token would stop every later start from making one.
    if (!written) await rm(file, { force: true });
  }
}

/** Why the server could not listen, as a typed error a person can act on. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') return new UnavailableError(`Port ${port} on ${host} is in use (another inseam?); choose another with --port, or 0 for any free one.`, { details: { reason: 'address_in_use' } });
  if (code === 'EACCES') return new PermissionDeniedError(`Listening on ${host}:${port} is not permitted; use a port above 1023.`, { details: { reason: 'listen_not_permitted' } });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new InvalidArgumentError(`--host ${JSON.stringify(host)} is not an address of this machine; the default is ${DEFAULT_HOST}.`, { details: { argument: 'host' } });
  }
  return error;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}


export function registerUpCommand(program: Command, io: CliIo): void {
  program
    .command('up')
    .description('Serve the web page, the HTTP API (/v1) and MCP (/mcp) on one port over the embedded store.')
    .option('--folder <path>', 'first start: the folder host "files" mounts (default: a demo folder in the data directory)')
    .option('--port <n>', 'the port; 0 picks a free one', String(DEFAULT_PORT))
    .option('--host <addr>', 'the address to listen on; anything but loopback exposes the API to the network', DEFAULT_HOST)
    .option('--max-write-bytes <n>', `the largest body PUT /v1/fs/write accepts (default ${DEFAULT_MAX_WRITE_BYTES})`)
    .option('--allow-private-origin <origin>', 'let connectors trialled and installed over MCP reach this origin on a private address (a NAS, a service on loopback); repeatable', collect, [])
    .option('--public-url <url>', 'the address people reach the server at when it is not the one it listens on (a reverse proxy, a DNS name): its name is accepted in Host, its origin in Origin, and sign-in links use it')
    .action(async (options: UpOptions, command: Command) => {
      const port = portOf(options.port);
      // Loaded here: http/origins brings node:http and node:net, which `--help` and the read commands do not need.
      const publicUrl = options.publicUrl === undefined ? undefined : (await import('../../http/origins.js')).publicOrigin(options.publicUrl);
      const maxWriteBytes = bytesOf(options.maxWriteBytes);
      const folder = options.folder === undefined ? undefined : await checkFolder(options.folder);
      const storeUrl = storeUrlOf(command, io);
      const shared = storeUrl !== undefined && isPostgresUrl(storeUrl);
      const [{ openPlatform }, { ConnectorLifecycle }, { createServer }, { TokenService }, { SessionService }] = await Promise.all([
        import('../../platform/index.js'),
        import('../../connectors/index.js'),
        import('../../http/server.js'),
        import('../../http/tokens.js'),
        import('../../http/sessions.js'),
      ]);
      // On the shared store the server crawls as one queue worker (below): the crawler's run lease is half the worker's, as in `inseam worker`.
      const platform = await openPlatform({ ...platformOptions(command, io), ...(shared ? { crawler: { leaseMs: UP_WORKER_LEASE_MS / 2 } } : {}) });
      let closed = false;
      const closePlatform = async (): Promise<void> => {
        if (!closed) await platform.close();
        closed = true;
      };
      try {
        const setup = await firstStart(platform, folder);
        const tokens = new TokenService(platform.store.tokens);
        const sessions = new SessionService(platform.store.sessions);
        const connectors = new ConnectorLifecycle(platform);
        const restored = await connectors.restore();
        for (const failure of restored.failed) io.stderr.write(`inseam: connector ${failure.sha.slice(0, 12)} could not be registered again: ${failure.message} [${failure.code}]\n`);
        for (const pkg of await platform.packages.list()) {
          if (pkg.error === undefined) continue;
          const what = pkg.network === undefined ? `package ${pkg.packageId}` : `network ${pkg.network}'s drop ${pkg.packageId}`;
          const serving = pkg.state === 'loaded' ? '; its earlier version is serving' : '';
          io.stderr.write(`inseam: ${what} could not be loaded: ${pkg.error.message} [${pkg.error.code}]${serving}; \`inseam package ls\` lists it.\n`);
        }
        const app = await createServer({
          platform,
          tokens,
          sessions,
          connectors,
          maxWriteBytes,
          ...(publicUrl === undefined ? {} : { publicUrl }),
          logger: { level: 'warn', stream: io.stderr },
          mcp: { allowPrivateOrigins: options.allowPrivateOrigin },
        });
        const signals = stopSignals(() => app.server.closeAllConnections());
        let queued: QueuedCrawls | undefined;
        try {
          // Requested crawls go through the queue from the first request on.
          if (shared && platform.store instanceof (await import('../../store/index.js')).PostgresStore) queued = await startQueueWorker(platform, platform.store, storeUrl);
          await app.listen({ host: options.host, port }).catch((error: unknown) => Promise.reject(listenError(error, options.host, port)));
          const address = app.server.address();
          const bound = typeof address === 'object' && address !== null ? address.port : port;
          const base = `http://${urlHost(options.host)}:${bound}`;
          platform.scheduler.on('failed', (ref, error) => io.stderr.write(`inseam: syncing ${ref.network}/${ref.host} failed: ${error instanceof Error ? error.message : String(error)}\n`));
          if (queued === undefined) await platform.startSync();
          platform.watchPackages(PACKAGE_SWAP_MS, (outcome) => io.stderr.write(`inseam: packages ${describeReconcile(outcome)}\n`));
          const madeToken = await adminToken(platform, tokens);
          await recordServer(platform.dataDir, publicUrl ?? base);
          const link = await signInLink(sessions, publicUrl ?? base);
          io.stdout.write(await banner(platform, { base, publicUrl, setup, madeToken, link }));
          if (!isLoopback(options.host)) io.stderr.write(`inseam: listening on ${options.host} exposes the API to the network, over plain HTTP; put it behind TLS.\n`);
          const signal = await signals.stopped;
          io.stderr.write(`${signal === 'SIGINT' ? '\n' : ''}Stopping: finishing requests in flight, pausing crawls at a checkpoint…\n`);
          const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
          try {
            await app.close();
          } finally {
            clearTimeout(grace);
          }
          await queued?.stop();
          await forgetServer(platform.dataDir);
          await closePlatform();
          io.stderr.write('Stopped; everything is saved.\n');
        } finally {
          signals.dispose();
          await forgetServer(platform.dataDir);
          await app.close();
          await queued?.stop();
        }
      } finally {
        await closePlatform();
      }
    });
}

async function banner(
  platform: Platform,
  facts: { readonly base: string; readonly publicUrl: string | undefined; readonly setup: Setup; readonly madeToken: boolean; readonly link: string },
): Promise<string> {
  const { SIGNIN_CODE_TTL_MS } = await import('../../http/sessions.js');
  const lines = [
    `inseam is up (data: ${platform.dataDir}).`,
    '',
    `  Web page   ${facts.base}/`,
    `  HTTP API   ${facts.base}/v1   (OpenAPI: ${facts.base}/v1/openapi.json)`,
    `  MCP        ${facts.base}/mcp`,
    ...(facts.publicUrl === undefined ? [] : [`  Public     ${facts.publicUrl}/`]),
    '',
  ];
  for (const network of await platform.networks.list()) {
    const hosts = await platform.store.hosts.list(network.slug);
    lines.push(`Network "${network.slug}": hosts ${hosts.map((host) => host.slug).join(', ') || 'none'}.`);
  }
  if (facts.setup.folder !== null) {
    lines.push(`Host "${FILES_HOST}" mounts ${facts.setup.folder} read only; its first crawl is running.`);
    lines.push(`Turn writes on with \`inseam host permissions ${DEFAULT_NETWORK}/${FILES_HOST} --writable\` (agents then still write only where their token's grants say).`);
  }
  const file = join(platform.dataDir, ADMIN_TOKEN_FILE);
  lines.push(
    '',
    // The token itself is never printed: this output often ends up in a log.
    facts.madeToken ? `Admin token: made now, and saved (mode 0600) in ${file}.` : `Admin token: in ${file}.`,
    `  Send it as \`Authorization: Bearer $(cat ${file})\`; make tokens with fewer features with \`inseam token create\`.`,
    '',
    `Sign in to the web page with this link (it works once, for ${SIGNIN_CODE_TTL_MS / 60_000} minutes; \`inseam signin\` prints another):`,
    `  ${facts.link}`,
    '',
    'Press Ctrl-C to stop.',
    '',
  );
  return lines.join('\n');
}
