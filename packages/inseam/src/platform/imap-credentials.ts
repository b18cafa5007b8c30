/**
 * How an imap host signs in from its stored credential: the username field with the password
 * field, or — for `auth: "xoauth2"` — with the access token of the OAuth grant the flows keep.
 * A token the server refuses is renewed through the store (single-flight per host) and the login
 * tried once more; the store decides whether a renewal may help.
 */
import type { ImapConfig, ImapCredentialSource } from '@inseam/connector-imap';
import type { StoredHostCredentialSource } from '../credentials/index.js';

export function imapCredentials(source: StoredHostCredentialSource, config: Pick<ImapConfig, 'auth'>): ImapCredentialSource {
  return {
    login: async () => {
      const fields = await source.fields();
      const user = fields['username'];
      if (user === undefined) return null;
      if (config.auth === 'xoauth2') {
        const token = (await source.tokens())['access_token'];
        return token === undefined ? null : { user, accessToken: token };
      }
      const pass = fields['password'];
      return pass === undefined ? null : { user, pass };
    },
    ...(config.auth === 'xoauth2' ? { rejected: () => source.onStatus(401) } : {}),
  };
}
