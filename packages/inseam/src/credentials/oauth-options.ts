/**
 * The per-request options every oauth4webapi call gets: the policy's fetch (a failed connection
 * becomes `unavailable` naming only the origin), plain http only where the policy allows it
 * (loopback, when enabled), and the policy's deadline.
 */
import * as oauth from 'oauth4webapi';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { insecureAllowed, requestSignal } from './http.js';
import type { HttpPolicy } from './http.js';

export interface OAuthRequestOptions {
  readonly [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => Promise<Response>;
  readonly [oauth.allowInsecureRequests]: boolean;
  readonly signal: AbortSignal;
}

export function oauthRequestOptions(policy: HttpPolicy, url: URL, signal?: AbortSignal): OAuthRequestOptions {
  return {
    [oauth.customFetch]: async (input, init) => {
      try {
        return await policy.fetch(input, init as RequestInit);
      } catch {
        throw new UnavailableError(`${url.origin} could not be reached; retry later.`, { details: { origin: url.origin, reason: 'unreachable' } });
      }
    },
    [oauth.allowInsecureRequests]: insecureAllowed(url, policy),
    signal: requestSignal(policy, signal),
  };
}
