/**
 * Addresses. One object has two spellings that parse to one `Address`:
 *
 * - global: `inseam://{network}/{host}/{path}` — names the object anywhere;
 * - short:  `{host}://{path}` — inside one network (the network comes from context, if at all).
 *   This is exactly the ConnectorPort source URI of the host.
 *
 * The host root is `inseam://{network}/{host}/` (or `inseam://{network}/{host}`) and `{host}://`.
 * One trailing `/` after a path is forgiven and dropped. Slugs follow slug.ts; paths follow
 * path.ts, and `path` is always the canonical spelling, so two spellings of one object give equal
 * `Address` values and equal formatted strings. Every refusal is an `InvalidUriError`
 * (`invalid_uri`) whose message names the part (scheme, network, host, path and segment number)
 * and whose `details.part` says the same for programs.
 */
import { InvalidUriError } from '@neuralis/package-system/contracts';
import { ADDRESS_PATH, parsePath, pathOfSegments } from './path.js';
import { GLOBAL_SCHEME, checkHostSlug, checkNetworkSlug } from './slug.js';

export interface Address {
  /** Absent when a short form was parsed without a network from context. */
  readonly network?: string;
  readonly host: string;
  /** Canonical: segments percent-encoded and joined by `/`; '' for the host root. */
  readonly path: string;
  /** Decoded segments; [] for the host root. */
  readonly segments: readonly string[];
}

export type AddressForm = 'global' | 'short';

export interface AddressParts {
  readonly network?: string | undefined;
  readonly host: string;
  /** Decoded names. */
  readonly segments: readonly string[];
}

export interface ParseAddressOptions {
  /** The network a short form is read in; ignored for a global form, which names its own. */
  readonly network?: string;
}

export interface FormatAddressOptions {
  /** Default: `global` when the address has a network, else `short`. */
  readonly form?: AddressForm;
}

const FORMS = 'inseam://{network}/{host}/{path} (global) or {host}://{path} (short)';

/**
 * Parses either form. Throws `invalid_uri` when the text is not a string, has no `://`, has a
 * scheme in the wrong case, misses the network or host of a global form, carries a bad slug, or
 * has a bad path (see path.ts), and when `options.network` is not a network slug.
 */
export function parseAddress(text: string, options: ParseAddressOptions = {}): Address {
  if (typeof text !== 'string') fail('An address must be a string.', 'scheme');
  const network = options.network === undefined ? undefined : checkNetworkSlug(options.network);
  const schemeEnd = text.indexOf('://');
  if (schemeEnd < 0) fail(`An address has the form ${FORMS}; the "://" is missing.`, 'scheme');
  if (schemeEnd === 0) fail(`An address has the form ${FORMS}; the part before "://" is empty.`, 'scheme');
  const scheme = text.slice(0, schemeEnd);
  const rest = text.slice(schemeEnd + 3);
  if (scheme.toLowerCase() === GLOBAL_SCHEME) {
    if (scheme !== GLOBAL_SCHEME) fail(`The scheme "${scheme}" must be written in lowercase: "${GLOBAL_SCHEME}://".`, 'scheme');
    return parseGlobal(rest);
  }
  const host = checkHostSlug(scheme);
  const { segments, path } = parsePath(rest, ADDRESS_PATH);
  return freeze(network, host, path, segments);
}

function parseGlobal(rest: string): Address {
  const networkEnd = rest.indexOf('/');
  const networkText = networkEnd < 0 ? rest : rest.slice(0, networkEnd);
  if (networkText === '') fail(`The network is missing: the global form is ${GLOBAL_SCHEME}://{network}/{host}/{path}.`, 'network');
  const network = checkNetworkSlug(networkText);
  const afterNetwork = networkEnd < 0 ? '' : rest.slice(networkEnd + 1);
  const hostEnd = afterNetwork.indexOf('/');
  const hostText = hostEnd < 0 ? afterNetwork : afterNetwork.slice(0, hostEnd);
  if (hostText === '') fail(`The host is missing: the global form is ${GLOBAL_SCHEME}://${network}/{host}/{path}.`, 'host');
  const host = checkHostSlug(hostText);
  const { segments, path } = parsePath(hostEnd < 0 ? '' : afterNetwork.slice(hostEnd + 1), ADDRESS_PATH);
  return freeze(network, host, path, segments);
}

/** Builds an address from decoded segments. Throws `invalid_uri` for a bad slug or segment. */
export function createAddress(parts: AddressParts): Address {
  const network = parts.network === undefined ? undefined : checkNetworkSlug(parts.network);
  const host = checkHostSlug(parts.host);
  const { segments, path } = pathOfSegments(parts.segments);
  return freeze(network, host, path, segments);
}

/**
 * Formats an address in either form. The text is rebuilt from `segments`; throws `invalid_uri`
 * when a slug or segment is bad, when `path` is not the canonical spelling of `segments` (a
 * hand-built value that disagrees with itself), or when the global form is asked for without a
 * network.
 */
export function formatAddress(address: Address, options: FormatAddressOptions = {}): string {
  const checked = createAddress(address);
  if (address.path !== checked.path) {
    fail(`The address's path ${JSON.stringify(address.path)} is not the canonical spelling of its segments (${JSON.stringify(checked.path)}).`, 'path');
  }
  const form = options.form ?? (checked.network === undefined ? 'short' : 'global');
  if (form === 'short') return `${checked.host}://${checked.path}`;
  if (form !== 'global') fail(`The form ${JSON.stringify(form)} is unknown; use "global" or "short".`, 'scheme');
  if (checked.network === undefined) fail('The address has no network, so it has no global form; give it a network or format the short form.', 'network');
  return `${GLOBAL_SCHEME}://${checked.network}/${checked.host}/${checked.path}`;
}

function freeze(network: string | undefined, host: string, path: string, segments: readonly string[]): Address {
  const address: Address = network === undefined ? { host, path, segments: Object.freeze([...segments]) } : { network, host, path, segments: Object.freeze([...segments]) };
  return Object.freeze(address);
}

function fail(message: string, part: 'scheme' | 'network' | 'host' | 'path'): never {
  throw new InvalidUriError(message, { details: { part } });
}
