/**
 * Address classes and the resolve-once-and-pin rule.
 *
 * Every hop's hostname is resolved once (all addresses); every address is classified, and the
 * first one is pinned for the connect, so the name cannot rebind between the check and the
 * connection. A hostname with any forbidden address is refused as a whole.
 *
 * IPv6 forms that carry an IPv4 address — IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4
 * (`2002::/16`) and Teredo (`2001::/32`, server and obfuscated client) — take the class of the
 * IPv4 address they carry. The NAT64 local-use prefix `64:ff9b:1::/48` counts as private.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'reserved'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'metadata'
  | 'invalid';

/**
 * Cloud instance-metadata endpoints (AWS, ECS, EKS, Alibaba). These are refused even for an origin
 * approved as private: nothing a connector does needs the platform's own instance credentials.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', 'fd00:ec2::254', 'fd00:ec2::23']);

/** Classes an origin approved as private may reach. Metadata and non-unicast never. */
const APPROVABLE: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'link_local', 'cgnat', 'unique_local', 'reserved']);

function classifyV4(address: ipaddr.IPv4): AddressClass {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  switch (address.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'carrierGradeNat':
      return 'cgnat';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      return 'reserved';
  }
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The worse of two classes: anything not public wins over public. */
function worse(a: AddressClass, b: AddressClass): AddressClass {
  return a === 'public' ? b : a;
}

function classifyV6(address: ipaddr.IPv6): AddressClass {
  // toString() is the compressed RFC 5952 form the metadata set is written in.
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const words = address.parts;
  const w = (i: number): number => words[i] ?? 0;
  const range: string = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyV4(v4FromWords(w(6), w(7)));
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; 64:ff9b:1::/48 is local-use.
      return w(2) === 0 && w(3) === 0 && w(4) === 0 && w(5) === 0 ? classifyV4(v4FromWords(w(6), w(7))) : 'private';
    case '6to4':
      return classifyV4(v4FromWords(w(1), w(2)));
    case 'teredo':
      return worse(classifyV4(v4FromWords(w(2), w(3))), classifyV4(v4FromWords(~w(6) & 0xffff, ~w(7) & 0xffff)));
    case 'unicast':
      // ::a.b.c.d, the deprecated IPv4-compatible form (:: and ::1 have their own ranges).
      if (w(0) === 0 && w(1) === 0 && w(2) === 0 && w(3) === 0 && w(4) === 0 && w(5) === 0) return classifyV4(v4FromWords(w(6), w(7)));
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'unspecified':
      return 'unspecified';
    case 'linkLocal':
      return 'link_local';
    case 'multicast':
      return 'multicast';
    case 'uniqueLocal':
      return 'unique_local';
    case 'deprecatedSiteLocal':
      return 'private';
    default:
      return 'reserved';
  }
}

/** Classifies one IP address (no brackets). Anything that does not parse is `invalid`. */
export function classifyAddress(text: string): AddressClass {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return classifyV4(ipaddr.IPv4.parse(bare));
  if (!bare.includes(':') || !ipaddr.IPv6.isValid(bare)) return 'invalid';
  const parsed = ipaddr.IPv6.parse(bare);
  // A zone index (fe80::1%eth0) selects an interface: never a public destination.
  if (parsed.zoneId !== undefined) return 'link_local';
  return classifyV6(parsed);
}

/** Whether an address of this class may be reached, given whether its origin was approved as private. */
export function addressAllowed(addressClass: AddressClass, approvedPrivate: boolean): boolean {
  if (addressClass === 'public') return true;
  return approvedPrivate && APPROVABLE.has(addressClass);
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a hostname to every address it has. Rejects when the name does not resolve. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** A URL hostname that is an IP literal, unbracketed; null for a name that needs resolving. */
export function ipLiteral(hostname: string): ResolvedAddress | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return { address: hostname.slice(1, -1), family: 6 };
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return { address: hostname, family: 4 };
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * A `net.connect` lookup that ignores the name it is asked about and answers with the pinned
 * address: the connection goes exactly where the check said, whatever DNS says a moment later.
 * Handles both calling conventions (`all: true` under autoSelectFamily, and the single form).
 */
export function pinnedLookup(pinned: ResolvedAddress) {
  return (_hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    if (typeof options === 'object' && options !== null && options.all === true) {
      callback(null, [{ address: pinned.address, family: pinned.family }]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}
