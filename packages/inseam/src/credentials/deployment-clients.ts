/**
 * The `inseam` OAuth client source: client registrations built into one deployment, read from a
 * file in the data directory (`<data>/oauth-clients.json`) when the platform opens:
 *
 *   [{ "tokenUrl": "https://oauth2.example.com/token", "clientId": "…", "clientSecret"?: "…",
 *      "tokenEndpointAuthMethod"?: "client_secret_basic" | "client_secret_post" | "none" }]
 *
 * The file holds client secrets, so it is read as the master key file is (private-file.ts): a
 * regular file, not a symlink, owned by this user, mode 0600 or stricter; anything else is refused
 * rather than used. A missing file means no
 * deployment clients. Network admins' own clients live encrypted in the credential store instead
 * (`inseam oauth-client set`).
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { readPrivateFile } from './private-file.js';
import { checkRegistration, type InseamOAuthClient, type OAuthClientRegistration } from './oauth-clients.js';
import type { TokenEndpointAuthMethod } from './host-record.js';

const MAX_FILE_BYTES = 1024 * 1024;
const KEYS = new Set(['tokenUrl', 'clientId', 'clientSecret', 'tokenEndpointAuthMethod']);

/**
 * The deployment's clients from `path`; [] when the file does not exist. Throws `invalid_config`
 * (naming the entry and field, never a value) for a file others may read, malformed JSON, or a
 * malformed entry.
 */
export async function readDeploymentClients(path: string): Promise<InseamOAuthClient[]> {
  const bytes = await readPrivateFile(path, { label: 'OAuth client file', reason: 'oauth_clients_file', maxBytes: MAX_FILE_BYTES });
  if (bytes === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new InvalidConfigError(`The OAuth client file ${path} is not JSON; it holds an array of { "tokenUrl", "clientId", "clientSecret"?, "tokenEndpointAuthMethod"? }.`);
  }
  return parseDeploymentClients(value, path);
}

/** Checks the file's JSON form. Throws `invalid_config` naming the entry and field. */
export function parseDeploymentClients(value: unknown, where: string): InseamOAuthClient[] {
  if (!Array.isArray(value)) throw new InvalidConfigError(`${where} must hold an array of OAuth clients.`);
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `${where}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new InvalidConfigError(`${at} must be an object { "tokenUrl", "clientId", … }.`);
    const fields = entry as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!KEYS.has(key)) throw new InvalidConfigError(`${at} has an unknown field "${key}"; the fields are ${[...KEYS].join(', ')}.`);
    }
    const { tokenUrl, clientId, clientSecret, tokenEndpointAuthMethod } = fields;
    if (typeof tokenUrl !== 'string' || !/^https?:\/\//.test(tokenUrl)) throw new InvalidConfigError(`${at}.tokenUrl must be the token endpoint's http(s) URL.`);
    if (seen.has(tokenUrl)) throw new InvalidConfigError(`${at}.tokenUrl repeats an earlier entry's; one client per token URL.`);
    seen.add(tokenUrl);
    if (typeof clientId !== 'string' || clientId === '') throw new InvalidConfigError(`${at}.clientId must be a non-empty string.`);
    if (clientSecret !== undefined && typeof clientSecret !== 'string') throw new InvalidConfigError(`${at}.clientSecret, when given, must be a string.`);
    if (tokenEndpointAuthMethod !== undefined && typeof tokenEndpointAuthMethod !== 'string') throw new InvalidConfigError(`${at}.tokenEndpointAuthMethod must be a string.`);
    let registration: OAuthClientRegistration;
    try {
      registration = checkRegistration({
        clientId,
        ...(clientSecret === undefined ? {} : { clientSecret }),
        ...(tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod: tokenEndpointAuthMethod as TokenEndpointAuthMethod }),
      });
    } catch (error) {
      throw new InvalidConfigError(`${at}: ${error instanceof Error ? error.message : 'a malformed client'}`);
    }
    return { tokenUrl, ...registration };
  });
}
