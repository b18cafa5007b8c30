/**
 * `inseam signin [--url <server>]`: a new sign-in link for the web page of a running server, from
 * any terminal that reaches its store. The one-time code is written into the store the server
 * reads (the same SQLite file, or the shared PostgreSQL database), so the server accepts it
 * without being told; it works once, for ten minutes, and becomes a session of the local user
 * with every feature — whoever can run this command can read the store, and make any token.
 *
 * The link needs the server's address: `--url`, else the one the running `inseam up` recorded in
 * `<data>/server.json` (its public URL when it has one), else only the path is printed.
 *
 * `inseam signin ls` lists a user's web sessions; `inseam signin revoke <ses_id>` ends one.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
// The HTTP-side modules (and node:crypto) load in the actions: `inseam --help` does not need them.
import type { SessionService, SessionView } from '../../http/sessions.js';
import type { CliIo } from '../io.js';
import { formatTable, printJson, withPlatform } from './support.js';
import { localUser } from './token.js';

/** Where a running `inseam up` says where it can be reached. */
export const SERVER_FILE = 'server.json';

interface ServerRecord {
  /** The URL the server prints its sign-in links with: its public URL, else where it listens. */
  readonly url: string;
  readonly pid: number;
}

/** Records a listening server's address in the data directory (replacing the file whole). */
export async function recordServer(dataDir: string, url: string): Promise<void> {
  const file = join(dataDir, SERVER_FILE);
  const { randomBytes } = await import('node:crypto');
  const temporary = `${file}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, `${JSON.stringify({ url, pid: process.pid } satisfies ServerRecord)}\n`, { mode: 0o644 });
  await rename(temporary, file);
}

/** Removes the record when it is this process's (another server may have started on the same directory since). */
export async function forgetServer(dataDir: string): Promise<void> {
  const found = await recordedServer(dataDir);
  if (found?.pid === process.pid) await rm(join(dataDir, SERVER_FILE), { force: true });
}

/** The recorded server, if the file is there and well-formed. */
async function recordedServer(dataDir: string): Promise<ServerRecord | null> {
  try {
    const value = JSON.parse(await readFile(join(dataDir, SERVER_FILE), 'utf8')) as Partial<ServerRecord>;
    return typeof value.url === 'string' && Number.isSafeInteger(value.pid) ? { url: value.url, pid: value.pid! } : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** Makes a sign-in code for the local user with every feature; answers the link (`base` + path), or the path alone without a base. */
export async function signInLink(sessions: SessionService, base: string | null): Promise<string> {
  const [{ signInPath }, { ADMIN_FEATURES }] = await Promise.all([import('../../http/sessions.js'), import('../../http/tokens.js')]);
  const { code } = await sessions.createCode({ userId: localUser(), features: ADMIN_FEATURES });
  return `${base ?? ''}${signInPath(code)}`;
}

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function stateOf(session: SessionView, now: number): string {
  if (session.revokedAt !== null) return 'signed out';
  return session.expiresAt <= now ? 'ended' : 'active';
}

export function registerSigninCommand(program: Command, io: CliIo): void {
  const signin = program
    .command('signin')
    .description('Print a new one-time sign-in link for the web page of a running server; `ls` and `revoke` manage web sessions.')
    .option('--url <server>', 'the address the web page is opened at (default: the one the running `inseam up` recorded)')
    .action(async (options: { readonly url?: string }, command: Command) => {
      // Loaded here: http/origins brings node:http and node:net, which `--help` does not need.
      const given = options.url === undefined ? undefined : (await import('../../http/origins.js')).publicOrigin(options.url, 'url');
      const { SIGNIN_CODE_TTL_MS, SessionService } = await import('../../http/sessions.js');
      await withPlatform(command, io, async (platform) => {
        const recorded = given === undefined ? await recordedServer(platform.dataDir) : null;
        const base = given ?? (recorded !== null && alive(recorded.pid) ? recorded.url : null);
        const link = await signInLink(new SessionService(platform.store.sessions), base);
        io.stdout.write(`${link}\n`);
        const minutes = SIGNIN_CODE_TTL_MS / 60_000;
        io.stderr.write(
          base === null
            ? `No running server is recorded in ${platform.dataDir}: open this path on your server's address (or pass --url). It works once, for ${minutes} minutes.\n`
            : `Open it in a browser to sign in to the web page; it works once, for ${minutes} minutes.\n`,
        );
      });
    });

  signin
    .command('ls')
    .description('List a user\'s web sessions (never their secrets).')
    .option('--user <id>', 'whose sessions (default: your login name)')
    .option('--json', 'print them as JSON')
    .action(async (options: { readonly user?: string; readonly json?: boolean }, command: Command) => {
      const { SessionService } = await import('../../http/sessions.js');
      await withPlatform(command, io, async (platform) => {
        const sessions = await new SessionService(platform.store.sessions).list(options.user ?? localUser());
        if (options.json === true) return printJson(io, sessions);
        if (sessions.length === 0) return void io.stderr.write('No web sessions; `inseam signin` prints a sign-in link.\n');
        const now = Date.now();
        io.stdout.write(
          formatTable([
            ['ID', 'USER', 'CREATED', 'LAST USED', 'ENDS', 'STATE'],
            ...sessions.map((item) => [item.id, item.userId, when(item.createdAt), when(item.lastUsedAt), when(item.revokedAt ?? item.expiresAt), stateOf(item, now)]),
          ]),
        );
      });
    });

  signin
    .command('revoke')
    .description('End a web session by its id (see `inseam signin ls`).')
    .argument('<id>', 'the session id, ses_…')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { SessionService } = await import('../../http/sessions.js');
      await withPlatform(command, io, async (platform) => {
        await new SessionService(platform.store.sessions).revoke(id);
        io.stderr.write(`Ended ${id}; the page signed in with it goes back to the sign-in form.\n`);
      });
    });
}
