/**
 * How a machine binding is made. The loader imports this package's main module once and calls
 * `init(ctx)` before any factory call; the module keeps `ctx.credentials` (the CredentialResolver).
 * `createMachineConnector` — the manifest's factory — builds the port with a secret source over
 * that resolver: each connection attempt resolves `ssh-key` (or `ssh-password` for auth
 * "password"), so a key stored or rotated later is used on the next attempt, and the value is
 * held only for the handshake. The connection starts at once, in the background.
 */
import { InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';
import type { ConnectorFactoryContext, ConnectorInitContext } from '@neuralis/package-system/contracts';
import { parseMachineConfig } from './config.js';
import { MachineConnection } from './connection.js';
import type { SecretSource } from './connection.js';
import { MachinePort } from './port.js';

export interface MachineBindingOptions {
  /** Where the key or password comes from. Default: the resolver `init` received. */
  readonly secret?: SecretSource;
}

const SOURCE_SLUG = /^[a-z][a-z0-9+.-]*$/;

let initContext: ConnectorInitContext | undefined;

/** Called once by the loader before any factory call; keeps the credential resolver. */
export function init(context: ConnectorInitContext): void {
  initContext = context;
}

/** The manifest's factory (`./dist/index.js#createMachineConnector`). */
export function createMachineConnector(context: ConnectorFactoryContext): MachinePort {
  return createMachinePort(context);
}

/** Throws `invalid_config` for a bad config or source slug. Never connects before returning. */
export function createMachinePort(context: ConnectorFactoryContext, options: MachineBindingOptions = {}): MachinePort {
  if (typeof context.source !== 'string' || !SOURCE_SLUG.test(context.source)) {
    throw new InvalidConfigError('The source slug must be usable as a URI scheme (a lowercase letter, then a-z, 0-9, "+", "." or "-").');
  }
  const config = parseMachineConfig(context.config);
  const connection = new MachineConnection(config, options.secret ?? secretFromInit(config.auth));
  connection.start();
  return new MachinePort(context.source, config, connection);
}

function secretFromInit(auth: 'key' | 'password'): SecretSource {
  return async () => {
    const context = initContext;
    if (context === undefined) throw new UnavailableError('The machine package was not initialised (init was not called), so it has no credential resolver.');
    const projectId = context.projectId;
    const fields = await context.credentials.resolveCredential(auth === 'key' ? 'ssh-key' : 'ssh-password', projectId === undefined ? {} : { projectId });
    if (fields === null) return null;
    if (auth === 'password') return fields['password'] === undefined ? null : { password: fields['password'] };
    return fields['privateKey'] === undefined ? null : { privateKey: fields['privateKey'] };
  };
}
