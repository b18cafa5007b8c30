/**
 * Turning what oauth4webapi throws into typed, secret-free errors. Its errors carry the server's
 * response body or the callback parameters (codes, tokens) in `cause`; none of that is kept —
 * only the origin and the OAuth error code (`invalid_grant`), which is a short token, not a secret.
 */
import {
  ConnectorError,
  InvalidConfigError,
  PermissionDeniedError,
  UnavailableError,
  isConnectorError,
} from '@neuralis/package-system/contracts';
import { AuthorizationResponseError, ResponseBodyError, UnsupportedOperationError } from 'oauth4webapi';

/** The server's OAuth error code when it is a plain token, else `unknown` (it is echoed in messages). */
export function oauthErrorCode(value: unknown): string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,64}$/.test(value) ? value : 'unknown';
}

/** The OAuth error code of a token endpoint error response, or null when `error` is something else. */
export function responseErrorCode(error: unknown): string | null {
  return error instanceof ResponseBodyError ? oauthErrorCode(error.error) : null;
}

/** A grant that can no longer be used: the person must authorize the host again. */
export function reauthorizationRequired(origin: string, oauthError: string): PermissionDeniedError {
  return new PermissionDeniedError(
    `The authorization server ${origin} no longer accepts this host's grant (${oauthError}); authorize the host again.`,
    { details: { origin, reason: 'reauthorization_required', oauthError } },
  );
}

/**
 * The typed error for a failure while `action` (e.g. "exchanging the authorization code") at
 * `origin`: `invalid_grant` → `permission_denied` (authorize again); `invalid_client`,
 * `unauthorized_client`, `invalid_scope`, `unsupported_grant_type` and an unsupported token type →
 * `invalid_config`; a denied authorization → `permission_denied`; anything else, including 5xx
 * answers and malformed responses → `unavailable`. ConnectorErrors pass through.
 */
export function oauthFailure(error: unknown, origin: string, action: string): ConnectorError {
  if (isConnectorError(error)) return error;
  if (error instanceof ResponseBodyError) {
    const code = oauthErrorCode(error.error);
    if (code === 'invalid_grant') return reauthorizationRequired(origin, code);
    if (['invalid_client', 'unauthorized_client', 'invalid_scope', 'unsupported_grant_type'].includes(code)) {
      return new InvalidConfigError(`The authorization server ${origin} refused ${action} (${code}); check the OAuth client and scopes for this host.`, {
        details: { origin, reason: 'oauth_refused', oauthError: code },
      });
    }
    return new UnavailableError(`The authorization server ${origin} failed ${action} (HTTP ${error.status}, ${code}); retry later.`, {
      details: { origin, reason: 'oauth_error', oauthError: code, status: error.status },
    });
  }
  if (error instanceof AuthorizationResponseError) {
    const code = oauthErrorCode(error.error);
    return new PermissionDeniedError(`The authorization at ${origin} was not granted (${code}).`, { details: { origin, reason: 'authorization_denied', oauthError: code } });
  }
  if (error instanceof UnsupportedOperationError) {
    return new InvalidConfigError(`The authorization server ${origin} answered ${action} with something inseam does not support (for example a non-Bearer token type).`, {
      details: { origin, reason: 'oauth_unsupported' },
    });
  }
  return new UnavailableError(`The authorization server ${origin} gave an answer to ${action} that is not valid OAuth 2; retry later.`, {
    details: { origin, reason: 'oauth_bad_response' },
  });
}
