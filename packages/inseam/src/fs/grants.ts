/**
 * Grants: where an agent's token may write, delete or run commands. An agent holds those rights
 * only inside the addresses its token's grants name — and only where the host's permission tree
 * allows them too (access.ts intersects the two). A grant names a host or a folder of one and
 * covers everything below it, by whole segments (`inseam://home/files/drafts` covers
 * `drafts/a.md`, never `drafts-old`). Reading is the tree's alone: no grant is needed or given.
 *
 * Spelled `<right>[,<right>…]:<address>` on the command line (`write,delete:inseam://home/files/drafts`);
 * stored and answered as `{ right, address }` with the address in its global form.
 */
import { InvalidArgumentError, isConnectorError } from '@neuralis/package-system/contracts';
import { formatAddress, parseAddress } from '../address/index.js';
import { GRANT_RIGHTS, type GrantRight } from '../platform/authorization.js';

export interface Grant {
  readonly right: GrantRight;
  /** A host root or a folder, global form: `inseam://home/files/drafts`. */
  readonly address: string;
}

/** A grant ready to match: its address parsed once. */
export interface CompiledGrant {
  readonly right: GrantRight;
  readonly network: string;
  readonly host: string;
  readonly segments: readonly string[];
}

/** A token carries at most this many grants. */
export const MAX_GRANTS = 64;

const FORM = '`<right>:<address>` with a right of write, delete or exec, e.g. write:inseam://home/files/drafts';

/**
 * Grants as given to a token (`{ right, address }` objects or `right:address` strings), checked,
 * deduplicated and in global form. `network` is the network a token is limited to: its grants
 * must name it, and a short address is read in it. Throws `invalid_argument` naming `grants`.
 */
export function checkGrants(values: unknown, network: string | null): Grant[] {
  if (!Array.isArray(values)) refuse(`grants must be a list of ${FORM}.`);
  const found = new Map<string, Grant>();
  for (const value of values as unknown[]) {
    for (const grant of typeof value === 'string' ? parseGrantText(value, network) : [checkGrantObject(value, network)]) {
      found.set(`${grant.right} ${grant.address}`, grant);
    }
  }
  if (found.size > MAX_GRANTS) refuse(`A token carries at most ${MAX_GRANTS} grants; grant a folder that holds the others instead.`);
  return [...found.keys()].sort().map((key) => found.get(key)!);
}

/** Compiles grants for matching, field by field; one that does not parse covers nothing. */
export function compileGrants(grants: readonly unknown[]): CompiledGrant[] {
  const compiled: CompiledGrant[] = [];
  for (const grant of grants) {
    const right = typeof grant === 'object' && grant !== null ? Reflect.get(grant, 'right') : undefined;
    const text = typeof grant === 'object' && grant !== null ? Reflect.get(grant, 'address') : undefined;
    if (typeof right !== 'string' || !(GRANT_RIGHTS as readonly string[]).includes(right) || typeof text !== 'string') continue;
    try {
      const address = parseAddress(text);
      if (address.network !== undefined) compiled.push(Object.freeze({ right: right as GrantRight, network: address.network, host: address.host, segments: address.segments }));
    } catch (error) {
      if (!isConnectorError(error)) throw error;
    }
  }
  return compiled;
}

/** Whether some grant of `right` covers the place (the host root is `segments: []`). */
export function grantCovers(grants: readonly CompiledGrant[], right: GrantRight, network: string, host: string, segments: readonly string[]): boolean {
  return grants.some(
    (grant) =>
      grant.right === right &&
      grant.network === network &&
      grant.host === host &&
      grant.segments.length <= segments.length &&
      grant.segments.every((segment, index) => segments[index] === segment),
  );
}

function parseGrantText(text: string, network: string | null): Grant[] {
  const colon = text.indexOf(':');
  const rights = colon < 0 ? [] : text.slice(0, colon).split(',').map((right) => right.trim());
  if (colon < 0 || rights.some((right) => right === '')) refuse(`The grant ${JSON.stringify(text)} is not ${FORM}.`);
  const address = text.slice(colon + 1).trim();
  return rights.map((right) => checkGrantObject({ right, address }, network));
}

function checkGrantObject(value: unknown, network: string | null): Grant {
  const right = typeof value === 'object' && value !== null ? Reflect.get(value, 'right') : undefined;
  const text = typeof value === 'object' && value !== null ? Reflect.get(value, 'address') : undefined;
  if (typeof right !== 'string' || !(GRANT_RIGHTS as readonly string[]).includes(right)) {
    refuse(`A grant's right is one of ${GRANT_RIGHTS.join(', ')}, not ${JSON.stringify(right)}; reading needs no grant.`);
  }
  if (typeof text !== 'string') refuse(`A grant names an address: ${FORM}.`);
  let address;
  try {
    address = parseAddress(text, network === null ? {} : { network });
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    refuse(`The grant's address ${JSON.stringify(text)} is not an address: ${error.message}`);
  }
  if (address.network === undefined) refuse(`The grant's address ${JSON.stringify(text)} names no network: write it as inseam://{network}/{host}/{path}, or limit the token to one network.`);
  if (network !== null && address.network !== network) refuse(`This token works in network "${network}" only, so its grants cannot name network "${address.network}".`);
  return Object.freeze({ right: right as GrantRight, address: formatAddress(address) });
}

function refuse(message: string): never {
  throw new InvalidArgumentError(message, { details: { argument: 'grants' } });
}
