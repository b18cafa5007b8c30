/**
 * The sandbox wired to the real egress gate and a real credential store (SQLite in a temp
 * folder), for the end-to-end tests: a host whose AuthSpec presents a credential every way the
 * gate knows (a header, basic auth, a query parameter, a cookie), an echo route that reflects the
 * request into its body and headers, and a deferred egress port — the platform knows the host's
 * AuthSpec only after the module's describe() has been validated, so the port is bound after load.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthSpec, EgressPort, EgressRequest, EgressResponse } from '@inseam/connector';
import { HostCredentials, openSqliteCredentialStore, projectScope } from '../../credentials/index.js';
import type { HostRef, StoredHostCredentialSource } from '../../credentials/index.js';
import { systemResolver } from '../../gate/index.js';
import type { Resolver } from '../../gate/index.js';
import { connectorModule } from './modules.js';

/** The host's secret values, each long and distinctive so a leak in any form is found. */
export const SECRETS = {
  token: 'tok_9c1f4e7a2b8d3605',
  user: 'svc-reader',
  password: 'pw_53a8e1c9d7f2b460',
  apiKey: 'key_e7d2a9c4b1f08356',
  session: 'sess_0b6f3d8a5c2e1947',
} as const;

/** Every spelling of a secret the module could be shown: as is, percent-encoded, the base64 basic pair. */
export function secretForms(): string[] {
  const values = [SECRETS.token, SECRETS.password, SECRETS.apiKey, SECRETS.session];
  return [...values, ...values.map(encodeURIComponent), Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64')];
}

/** The AuthSpec the module declares: every `present` form at once, for its declared origins. */
export function gatedAuth(origins: readonly string[]): AuthSpec {
  return {
    acquire: { type: 'static' },
    fields: [
      { name: 'token', label: 'API token', secret: true },
      { name: 'user', label: 'User', secret: false },
      { name: 'password', label: 'Password', secret: true },
      { name: 'apiKey', label: 'API key', secret: true },
      { name: 'session', label: 'Session', secret: true },
    ],
    present: [
      { in: 'header', name: 'X-Api-Token', value: '{{token}}' },
      { in: 'basic', username: '{{user}}', password: '{{password}}' },
      { in: 'query', name: 'api_key', value: '{{apiKey}}' },
      { in: 'cookie', name: 'sid', value: '{{session}}' },
    ],
    origins,
  };
}

/**
 * A module whose list({ prefix }) runs `prefix` as the body of an async function (with `config`
 * in scope) and returns its JSON result as `entries[0].extra.value`; an exception comes back as
 * `extra.error`. It declares `auth`.
 */
export function gatedRunner(auth: AuthSpec): string {
  return connectorModule(
    `
    async list(opts) {
      const AsyncFunction = (async function () {}).constructor;
      try {
        const value = await new AsyncFunction('config', opts.prefix)(config);
        return { entries: [{ path: 'r', extra: { value: value === undefined ? null : value } }] };
      } catch (error) {
        if (opts.since === 'rethrow') throw error;
        return { entries: [{ path: 'r', extra: { error: String(error && error.name) + ': ' + String(error && error.message) } }] };
      }
    },
    async read(path) { return new ReadableStream({ start(c) { c.close(); } }); },
    async stat(path) { return null; },`,
    {
      kind: 'gated',
      capabilities: ['list', 'read', 'stat'],
      auth,
      dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
      listing: 'metered',
    },
  );
}

/**
 * Reflects the request back: method, URL, headers and body in a JSON body, and the credential
 * carriers as response headers (`x-echo-*`, a `set-cookie` and a `location` repeating them).
 */
export function reflect(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-echo-url', req.url ?? '');
  res.setHeader('x-echo-authorization', req.headers['authorization'] ?? '');
  res.setHeader('x-echo-token', String(req.headers['x-api-token'] ?? ''));
  res.setHeader('x-echo-cookie', req.headers['cookie'] ?? '');
  res.setHeader('set-cookie', `echo=${encodeURIComponent(req.headers['cookie'] ?? '')}; Path=/`);
  res.setHeader('content-location', req.url ?? '');
  res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') }));
}

/** Answers 302 to the `to` query parameter. */
export function redirectTo(req: IncomingMessage, res: ServerResponse): void {
  const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
  res.statusCode = 302;
  res.setHeader('location', to);
  res.end('moved');
}

/** `localhost` is 127.0.0.1 here whatever the machine's hosts file says first; the rest resolves normally. */
export const loopbackResolver: Resolver = async (hostname) => (hostname === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(hostname));

export interface StoreUnderTest {
  readonly credentials: HostCredentials;
  /** Stores SECRETS for `ref` under `auth` and returns the gate's source for it. */
  sourceFor(ref: HostRef, auth: AuthSpec): Promise<StoredHostCredentialSource>;
  close(): Promise<void>;
}

/** A credential store on a fresh SQLite file with a random master key. */
export async function openStoreUnderTest(): Promise<StoreUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'inseam-gated-'));
  const { store, records } = await openSqliteCredentialStore({ database: join(dir, 'inseam.db'), masterKey: randomBytes(32) });
  const credentials = new HostCredentials({ store });
  return {
    credentials,
    async sourceFor(ref, auth) {
      await credentials.setFields(ref, auth, SECRETS);
      return credentials.source(ref, auth);
    },
    async close() {
      records.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const HOME = projectScope('home');

/** An EgressPort that forwards to one bound later, once the host's description is known. */
export interface DeferredEgress extends EgressPort {
  bind(port: EgressPort): void;
}

export function deferredEgress(): DeferredEgress {
  let bound: EgressPort | undefined;
  return {
    bind(port) {
      bound = port;
    },
    fetch(request: EgressRequest): Promise<EgressResponse> {
      if (bound === undefined) return Promise.reject(new Error('The egress port is not bound yet.'));
      return bound.fetch(request);
    },
  };
}
