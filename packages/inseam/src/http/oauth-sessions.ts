/**
 * The OAuth flows one server started from the web page, and how each ended: the state behind
 * routes/oauth.ts (which documents the routes). Kept apart from the routes so the route context
 * (route.ts) can hold a server's sessions without importing the routes that use that context.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isConnectorError, NotFoundError } from '@neuralis/package-system/contracts';
import type { AuthSpec } from '@inseam/connector';
import type { HostCredentials } from '../credentials/index.js';
import { hostCredentialRef } from '../platform/index.js';
import type { HostRecord } from '../store/index.js';

/** The path of the callback route; the redirect URI is this path on the server's own origin unless configured. */
export const OAUTH_CALLBACK_PATH = '/v1/oauth/callback';
const MAX_FLOWS = 256;
/** Finished flows are kept this long for the page's last poll. */
const FINISHED_TTL_MS = 10 * 60 * 1000;

export type OAuthFlowState = 'pending' | 'authorized' | 'failed';

/** What `GET /v1/oauth/flows/{id}` answers. */
export interface OAuthFlowView {
  readonly id: string;
  readonly grant: 'authorization_code' | 'device_code';
  readonly network: string;
  readonly host: string;
  readonly state: OAuthFlowState;
  /** Epoch ms after which a pending flow can no longer complete. */
  readonly expiresAt: number;
  readonly error: { readonly code: string; readonly message: string } | null;
}

interface FlowRecord {
  view: OAuthFlowView;
  /** The token that started it: only that token may see it. */
  readonly tokenId: string;
  /** authorization_code: the credential store's flow id and the state the callback must carry. */
  readonly storeFlowId?: string;
  readonly state?: string;
  readonly abort?: AbortController;
}

/** How a callback ended, for the page the person sees. */
export interface CallbackOutcome {
  readonly connected: boolean;
  /** `network/host`. */
  readonly host?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface OAuthSessionsOptions {
  /** The credential store the grants go to. */
  readonly credentials: HostCredentials;
  /** The redirect URI registered with authorization servers; default: the callback on the origin the page was loaded from. */
  readonly redirectUri?: string;
  readonly now?: () => number;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function errorOf(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: 'The authorization failed unexpectedly; see the server log.' };
}

/** The OAuth flows one server started, and how each ended. */
export class OAuthSessions {
  readonly #credentials: HostCredentials;
  readonly #redirectUri: string | undefined;
  readonly #now: () => number;
  readonly #flows = new Map<string, FlowRecord>();

  constructor(options: OAuthSessionsOptions) {
    this.#credentials = options.credentials;
    this.#redirectUri = options.redirectUri;
    this.#now = options.now ?? Date.now;
  }

  /** Starts an authorization-code flow for `host`. Throws what HostCredentials.beginAuthorization throws. */
  async authorize(tokenId: string, host: HostRecord, auth: AuthSpec, origin: string): Promise<{ readonly flow: OAuthFlowView; readonly authorizationUrl: string }> {
    const redirectUri = this.#redirectUri ?? `${origin}${OAUTH_CALLBACK_PATH}`;
    const started = await this.#credentials.beginAuthorization(hostCredentialRef(host), auth, { redirectUri });
    const state = new URL(started.authorizationUrl).searchParams.get('state') ?? '';
    const record = this.#add(tokenId, host, 'authorization_code', started.expiresAt, { storeFlowId: started.flowId, state });
    return { flow: record.view, authorizationUrl: started.authorizationUrl };
  }

  /**
   * Completes the authorization-code flow the callback's `state` names: resolves with how it
   * ended (a refused code exchange is a failed flow, not a rejection). A callback that matches no
   * flow of this server goes to the credential store all the same, which refuses it
   * (`permission_denied`, `state_mismatch`) as it refuses any forged callback.
   */
  async complete(params: URLSearchParams): Promise<CallbackOutcome> {
    const state = params.get('state') ?? '';
    const record = [...this.#flows.values()].find((item) => item.state !== undefined && item.view.state === 'pending' && sameText(item.state, state));
    if (record === undefined) {
      const ref = await this.#credentials.completeAuthorization(params);
      return { connected: true, host: `${ref.scope.network ?? ''}/${ref.host}` };
    }
    try {
      await this.#credentials.completeAuthorization(params, { flowId: record.storeFlowId! });
      this.#finish(record, 'authorized', null);
      return { connected: true, host: `${record.view.network}/${record.view.host}` };
    } catch (error) {
      const failure = errorOf(error);
      this.#finish(record, 'failed', failure);
      return { connected: false, host: `${record.view.network}/${record.view.host}`, error: failure };
    }
  }

  /** Starts a device-code flow for `host` and polls for its grant in the background. */
  async device(tokenId: string, host: HostRecord, auth: AuthSpec): Promise<{ readonly flow: OAuthFlowView; readonly userCode: string; readonly verificationUri: string; readonly verificationUriComplete: string | null; readonly interval: number }> {
    const started = await this.#credentials.beginDeviceAuthorization(hostCredentialRef(host), auth);
    const abort = new AbortController();
    const record = this.#add(tokenId, host, 'device_code', started.expiresAt, { abort });
    started.complete({ signal: abort.signal }).then(
      () => this.#finish(record, 'authorized', null),
      (error: unknown) => this.#finish(record, 'failed', errorOf(error)),
    );
    return { flow: record.view, userCode: started.userCode, verificationUri: started.verificationUri, verificationUriComplete: started.verificationUriComplete ?? null, interval: started.interval };
  }

  /**
   * The flow, for the token that started it; a pending flow past its expiry is failed with
   * `timeout`. Throws `not_found` for another token's flow or one no longer kept.
   */
  flow(tokenId: string, id: string): OAuthFlowView {
    const record = this.#flows.get(id);
    if (record === undefined || record.tokenId !== tokenId) throw new NotFoundError(`There is no OAuth flow "${id}" started with this token (flows are kept ten minutes).`, { details: { flow: id } });
    if (record.view.state === 'pending' && record.view.expiresAt <= this.#now()) {
      record.abort?.abort();
      this.#finish(record, 'failed', { code: 'timeout', message: 'The authorization was not finished in time; start it again.' });
    }
    return record.view;
  }

  /** Stops polling every device flow (the server is closing). */
  close(): void {
    for (const record of this.#flows.values()) record.abort?.abort();
  }

  #add(tokenId: string, host: HostRecord, grant: OAuthFlowView['grant'], expiresAt: number, extra: Pick<FlowRecord, 'storeFlowId' | 'state' | 'abort'>): FlowRecord {
    this.#prune();
    const record: FlowRecord = {
      view: { id: `oauth-${randomBytes(12).toString('base64url')}`, grant, network: host.network, host: host.slug, state: 'pending', expiresAt, error: null },
      tokenId,
      ...extra,
    };
    this.#flows.set(record.view.id, record);
    return record;
  }

  #finish(record: FlowRecord, state: OAuthFlowState, error: OAuthFlowView['error']): void {
    if (record.view.state !== 'pending') return;
    record.view = { ...record.view, state, error, expiresAt: Math.max(record.view.expiresAt, this.#now() + FINISHED_TTL_MS) };
  }

  #prune(): void {
    const now = this.#now();
    for (const [id, record] of this.#flows) {
      if (record.view.expiresAt <= now) {
        record.abort?.abort();
        this.#flows.delete(id);
      }
    }
    while (this.#flows.size >= MAX_FLOWS) {
      const [id, record] = this.#flows.entries().next().value as [string, FlowRecord];
      record.abort?.abort();
      this.#flows.delete(id);
    }
  }
}
