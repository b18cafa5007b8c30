/**
 * How an imap binding is made.
 *
 * The loader imports this package's main module once and calls `init(ctx)` before any factory
 * call; the module keeps `ctx.credentials` (the CredentialResolver). `createImapConnector` — the
 * manifest's factory — then signs in with the credential declared as `password` (or `xoauth2`,
 * a username and an access token, when the config's auth is "xoauth2"), resolved on every
 * connect so a changed password takes effect at the next one.
 *
 * The platform passes its own credential source instead (the host's stored fields, or the OAuth
 * grant its flows keep and refresh), through `createImapHost(config, { credentials })` and
 * `createImapPort(context, { host })`; `init` is not needed then.
 */
import { UnavailableError } from '@neuralis/package-system/contracts';
import type { ConnectorFactoryContext, ConnectorInitContext, ConnectorPort } from '@neuralis/package-system/contracts';
import { parseImapConfig } from './config.js';
import { ImapHost } from './host.js';
import type { ImapHostOptions } from './host.js';
import { ImapPort } from './port.js';
import { ImapSession } from './session.js';
import type { ImapCredentialSource } from './session.js';

export interface ImapBindingOptions extends ImapHostOptions {
  /** Where the login comes from. Default: the resolver `init` received. */
  readonly credentials?: ImapCredentialSource;
}

let initContext: ConnectorInitContext | undefined;

/** Called once by the loader before any factory call; keeps the credential resolver. */
export function init(context: ConnectorInitContext): void {
  initContext = context;
}

/** The manifest's factory (`./dist/index.js#createImapConnector`). */
export async function createImapConnector(context: ConnectorFactoryContext): Promise<ConnectorPort> {
  return createImapPort(context);
}

/** The host Connector for one config. Throws `invalid_config` naming the field. Connects on first use. */
export function createImapHost(rawConfig: Readonly<Record<string, unknown>>, options: ImapBindingOptions = {}): ImapHost {
  const config = parseImapConfig(rawConfig);
  const credentials = options.credentials ?? credentialsFromInit(config.auth);
  return new ImapHost(new ImapSession(config, credentials), options);
}

/** A ConnectorPort for one source, over `options.host` when given (sharing its connection). */
export async function createImapPort(context: ConnectorFactoryContext, options: ImapBindingOptions & { readonly host?: ImapHost } = {}): Promise<ImapPort> {
  return new ImapPort(context.source, options.host ?? createImapHost(context.config, options));
}

function credentialsFromInit(auth: 'password' | 'xoauth2'): ImapCredentialSource {
  return {
    login: async () => {
      const context = initContext;
      if (context === undefined) throw new UnavailableError('The imap package was not initialised (init was not called), so it has no credential resolver.');
      const fields = await context.credentials.resolveCredential(auth, context.projectId === undefined ? {} : { projectId: context.projectId });
      const user = fields?.['username'];
      if (user === undefined) return null;
      if (auth === 'xoauth2') return fields?.['accessToken'] === undefined ? null : { user, accessToken: fields['accessToken'] };
      return fields?.['password'] === undefined ? null : { user, pass: fields['password'] };
    },
  };
}
