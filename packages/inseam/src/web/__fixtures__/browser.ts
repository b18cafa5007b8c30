/**
 * The web page's end-to-end tests: Debian's Chromium (from PATH, never downloaded) driven by
 * playwright-core, against a real server — a platform on a temp data directory with network
 * `home` (the seed package loaded, so one source is offered to add) and an fs host `files` on a
 * temp folder with text and an image.
 *
 * Every test page is watched: a request to any origin but the server's is recorded, and the
 * tests assert there was none. Screenshots go to `test-artifacts/web/<name>.png` at the repo root.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { openPlatform, type OpenPlatformOptions, type Platform } from '../../platform/index.js';
import { removeDir, SEED_PACKAGE, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { FsService } from '../../fs/index.js';
import { HostCredentials, type InseamOAuthClient } from '../../credentials/index.js';
import { ADMIN_FEATURES, SessionService, TokenService, createServer, signInPath, type HttpServerOptions } from '../../http/index.js';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
export const ARTIFACTS = new URL('../../../../../test-artifacts/web/', import.meta.url);

/** The chromium on PATH, or an error saying how to install it (the tests never skip silently). */
export function chromiumPath(): string {
  let found: string;
  try {
    found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    found = '';
  }
  if (found === '') throw new Error(`The web page tests need Debian's Chromium on PATH (expected ${CHROMIUM_PATH}): run \`apt-get install chromium\`.`);
  return found;
}

/** One browser for a test file, with a profile of its own (playwright makes a fresh one per launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** A 96×64 PNG of four coloured bands, made here so the fixture carries no binary file. */
export function bandsPng(): Buffer {
  const width = 96;
  const height = 64;
  const colours = [
    [91, 91, 214],
    [21, 128, 61],
    [217, 119, 6],
    [201, 42, 42],
  ];
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    raw[row] = 0;
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = colours[Math.floor((x / width) * colours.length)]!;
      raw[row + 1 + x * 3] = r!;
      raw[row + 2 + x * 3] = g!;
      raw[row + 3 + x * 3] = b!;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  let crc = 0xffffffff;
  for (const byte of body) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE((crc ^ 0xffffffff) >>> 0, 0);
  return Buffer.concat([length, body, sum]);
}

export const WEB_FILES: Readonly<Record<string, string>> = {
  'README.md': '# Team files\n\nMounted by inseam as host `files`.\n',
  'docs/plan.md': '# Plan\n\nShip the harbour crane on Tuesday.\nThen paint it blue.\n',
  'docs/notes.txt': 'alpha beta gamma\n',
  'data/cities.csv': 'city,country\nLisbon,Portugal\nOslo,Norway\n',
};

export interface WebServer {
  readonly url: string;
  readonly platform: Platform;
  readonly app: FastifyInstance;
  /** The temp folder host `files` mounts. */
  readonly folder: string;
  readonly dataDir: string;
  /** Every feature, every network: what `inseam up` prints. */
  readonly admin: string;
  readonly tokens: TokenService;
  /** The server's sign-in codes and sessions. */
  readonly sessions: SessionService;
  /** A fresh one-time sign-in link for ann with every feature, as `inseam signin` prints it. */
  signInLink(): Promise<string>;
  close(): Promise<void>;
}

export interface WebServerOptions {
  /**
   * OAuth clients for authorization servers on loopback: the server's OAuth routes then use a
   * credential store (the platform's records) that accepts their plain-http URLs.
   */
  readonly oauthClients?: readonly InseamOAuthClient[];
  /** Runs before the server is created (register kinds, add hosts). */
  readonly prepare?: (platform: Platform) => Promise<void>;
  /** Mount `/mcp` too (default: left out). */
  readonly mcp?: boolean;
  /** How long a host's probe answer is kept (the server's default: 30 s); short, so a machine going down shows soon. */
  readonly probeTtlMs?: number;
  /** The platform's crawler settings (a paced extractor, small batches: a crawl slow enough to watch). */
  readonly crawler?: OpenPlatformOptions['crawler'];
}

/** A real server on 127.0.0.1: network `home`, host `files` (text and `images/bands.png`), crawled once. */
export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const dataDir = await tempDir('web');
  const folder = await tempDir('web-files');
  await writeFiles(folder, WEB_FILES);
  await mkdir(`${folder}/images`);
  await writeFile(`${folder}/images/bands.png`, bandsPng());
  const platform = await openPlatform({ dataDir, env: {}, packages: [{ folder: SEED_PACKAGE, trust: 'trusted' }], ...(options.crawler === undefined ? {} : { crawler: options.crawler }) });
  await platform.networks.init('home', { label: 'Home' });
  await platform.networks.addHost({ network: 'home', slug: 'files', kind: 'fs', config: { root: folder }, label: 'Team files', permissions: { default: { read: true, write: true, exec: false } } });
  await (await platform.sync({ network: 'home', host: 'files' })).result;
  const tokens = new TokenService(platform.store.tokens);
  const admin = (await tokens.create({ name: 'admin', userId: 'ann', features: ADMIN_FEATURES })).token;
  await options.prepare?.(platform);
  const sessions = new SessionService(platform.store.sessions);
  const server: HttpServerOptions = { platform, tokens, sessions, ...(options.mcp === true ? {} : { mcp: false }), ...(options.probeTtlMs === undefined ? {} : { fs: new FsService(platform, { probeTtlMs: options.probeTtlMs }) }) };
  const oauth = options.oauthClients === undefined ? {} : { oauth: { credentials: new HostCredentials({ store: platform.credentialStore, oauth: { clients: options.oauthClients }, http: { allowInsecureLoopback: true } }) } };
  const app = await createServer({ ...server, ...oauth });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    platform,
    app,
    folder,
    dataDir,
    admin,
    tokens,
    sessions,
    signInLink: async () => `http://127.0.0.1:${port}${signInPath((await sessions.createCode({ userId: 'ann', features: ADMIN_FEATURES })).code)}`,
    close: async () => {
      await app.close();
      await platform.close();
      await removeDir(dataDir);
      await removeDir(folder);
    },
  };
}

export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Requests the page made to any origin but the server's. */
  readonly outside: string[];
  /** Uncaught errors and console errors of the page (not the 4xx answers it handles). */
  readonly errors: string[];
  /** Every request to the server, as `METHOD path?query` with its Range header when sent. */
  readonly requests: { readonly method: string; readonly url: string; readonly range: string | undefined }[];
}

/** A fresh context and page that record requests outside `origin` and the page's errors. */
export async function watchedPage(browser: Browser, origin: string, options: { readonly colorScheme?: 'light' | 'dark' } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: options.colorScheme ?? 'light', acceptDownloads: true });
  // A step that cannot happen fails in seconds with what it waited for, not at the test's timeout.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const outside: string[] = [];
  const errors: string[] = [];
  const requests: { method: string; url: string; range: string | undefined }[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('blob:') || url.startsWith('data:')) return;
    if (new URL(url).origin !== origin) outside.push(url);
    else requests.push({ method: request.method(), url: url.slice(origin.length), range: request.headers()['range'] });
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // An API refusal the page shows (a 401 at sign-in, a 409 on a form) is logged by Chromium too.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of 4')) errors.push(message.text());
  });
  return { page, context, outside, errors, requests };
}

/** Opens the page signed in through a fresh one-time sign-in link (`/#code=…`), as a person does. */
export async function signInByLink(page: Page, server: Pick<WebServer, 'signInLink'>, route = '#/hosts'): Promise<void> {
  await page.goto(await server.signInLink());
  await page.waitForURL((current) => !current.hash.includes('code='));
  await page.waitForSelector('[data-state="signed-in"]');
  if (route !== '#/hosts') await go(page, route);
}

// Code run in the page is passed as text: the tests type-check without the DOM's declarations.

/** Moves the signed-in page to a route of its own (`#/browse/…`). */
export async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

/** An attribute of the element that has the keyboard focus (`name`, `id`, `data-address`…). */
export function focused(page: Page, attribute: string): Promise<string | null> {
  return page.evaluate(`document.activeElement?.getAttribute(${JSON.stringify(attribute)}) ?? null`);
}

/** A value of the page's sessionStorage. */
export function stored(page: Page, key: string): Promise<string | null> {
  return page.evaluate(`sessionStorage.getItem(${JSON.stringify(key)})`);
}

/** Saves a full-page screenshot as test-artifacts/web/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true, animations: 'disabled' });
}

/**
 * A screenshot at the desktop width and one at a phone's (`<name>-desktop`, `<name>-420`), failing
 * when the page is wider than the phone; the viewport is back at the desktop width afterwards.
 */
export async function screenshotsAtTwoWidths(page: Page, name: string): Promise<void> {
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize({ width: 420, height: 860 });
  await page.waitForTimeout(200);
  await screenshot(page, `${name}-420`);
  const [scroll, inner] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, innerWidth]');
  expect(scroll, `${name} at 420 px is ${scroll} px wide`).toBeLessThanOrEqual(inner);
  await page.setViewportSize({ width: 1360, height: 860 });
}

/** Opens `route` signed in with an API token pasted earlier in this tab (the page keeps it in sessionStorage). */
export async function signInWithToken(watched: WatchedPage, origin: string, token: string, route: string): Promise<void> {
  await watched.context.addInitScript(`sessionStorage.setItem('inseam:token', ${JSON.stringify(token)}); sessionStorage.setItem('inseam:credential', 'token');`);
  await watched.page.goto(`${origin}/${route}`);
  await watched.page.waitForSelector('[data-state="signed-in"]');
}

/** expect.poll with room for the page's own polling (crawls are polled every second or two) on a busy machine. */
export function eventually<T>(read: () => Promise<T> | T): ReturnType<typeof expect.poll<T>> {
  return expect.poll(read, { timeout: 15_000, interval: 100 });
}

/** Per test: a browser test walks through several server round trips, and the whole suite may share the CPUs. */
export const BROWSER_TEST_MS = 60_000;
