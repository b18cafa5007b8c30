/**
 * An address and the two other spellings of its object:
 *
 * - the ConnectorPort source URI `{source}://{path}`: the host slug is the source slug, so this is
 *   the short form, built by the contracts' `formatSourceUri`;
 * - the host Connector's `path`: the host-local part, which is the address's canonical `path`
 *   ('' for the root). A host path has no leading or trailing `/`; raw `?` and `#` in it are name
 *   characters (it is not a URI), other raw characters are encoded as in any address.
 */
import { InvalidUriError, formatSourceUri, parseSourceUri } from '@neuralis/package-system/contracts';
import { createAddress, type Address } from './address.js';
import { HOST_PATH, parsePath } from './path.js';
import { checkHostSlug, checkNetworkSlug } from './slug.js';

export interface AddressContext {
  readonly host: string;
  readonly network?: string;
}

/** The ConnectorPort source URI of `address` (its short form). Throws `invalid_uri` for a bad address. */
export function addressToSourceUri(address: Address): string {
  const checked = createAddress(address);
  return formatSourceUri(checked.host, checked.segments);
}

/**
 * Reads a ConnectorPort source URI as an address, in `network` when given. Throws `invalid_uri`
 * for whatever `parseSourceUri` refuses and for a source slug that is not a host slug
 * (`inseam`, or longer than 64 characters).
 */
export function addressFromSourceUri(uri: string, options: { readonly network?: string } = {}): Address {
  const { source, segments } = parseSourceUri(uri);
  return createAddress({ network: options.network, host: source, segments });
}

/** The host Connector's path of `address` ('' for the root). */
export function addressToHostPath(address: Address): string {
  return createAddress(address).path;
}

/**
 * The address of a host Connector's `path` on `context.host`. Throws `invalid_uri` for a bad slug,
 * a leading or trailing `/`, or a bad segment (see path.ts).
 */
export function addressFromHostPath(hostPath: string, context: AddressContext): Address {
  const host = checkHostSlug(context.host);
  const network = context.network === undefined ? undefined : checkNetworkSlug(context.network);
  if (typeof hostPath !== 'string') throw new InvalidUriError('A host path must be a string.', { details: { part: 'path' } });
  return createAddress({ network, host, segments: parsePath(hostPath, HOST_PATH).segments });
}
