/**
 * Trust gates. A manifest never states its own trust; the installer assigns it and these checks
 * gate on it, deny-by-default: anything not known to be safe at a trust level is refused there.
 */
import { InvalidArgumentError, TrustViolationError } from '../contracts/errors.js';
import { PACKAGE_TRUST_LEVELS, type ConnectorManifestEntry, type PackageTrust } from '../contracts/manifest.js';
import { named } from './issues.js';

/** The levels allowed to run code in the host: source connectors, in-process and stdio MCP, auto seeds. */
export const TRUSTED_LEVELS = ['first-party', 'trusted'] as const satisfies readonly PackageTrust[];

export function isPackageTrust(value: unknown): value is PackageTrust {
  return typeof value === 'string' && (PACKAGE_TRUST_LEVELS as readonly string[]).includes(value);
}

export function isTrustedOrFirstParty(trust: PackageTrust): boolean {
  return (TRUSTED_LEVELS as readonly string[]).includes(trust);
}

/** Throws `InvalidArgumentError` (`invalid_argument`) for a trust level that is not one of PACKAGE_TRUST_LEVELS. */
export function assertPackageTrust(trust: unknown): asserts trust is PackageTrust {
  if (!isPackageTrust(trust)) {
    throw new InvalidArgumentError(`options.trust must be one of ${PACKAGE_TRUST_LEVELS.join(', ')}; the installer assigns it, never the manifest.`);
  }
}

/**
 * Why a connector entry needs a trusted or first-party package, or undefined when any trust level
 * may contribute it (only `mcp` over `streamable-http`, which runs nothing in the host). An
 * unrecognised type or transport needs trust too: deny-by-default.
 */
export function connectorTrustRequirement(type: unknown, transport: unknown): string | undefined {
  if (type === 'source') return 'a source connector, which runs in the host';
  if (type === 'mcp') {
    if (transport === 'streamable-http') return undefined;
    if (transport === 'in-process') return 'an in-process MCP connector, which is in-host execution';
    if (transport === 'stdio') return 'a stdio MCP connector, which starts a process on the host';
  }
  return 'a connector of an unrecognised type or transport';
}

/**
 * The second gate, at runtime registration: refuses a connector entry the package's trust does not
 * allow, even if its manifest was validated earlier (or at another trust level). Untrusted and
 * sandboxed packages may not register source connectors, nor in-process or stdio MCP connectors.
 * An unrecognised trust value counts as untrusted.
 *
 * Throws `TrustViolationError` (`trust_violation`) with `details` `{ connectorId, type, transport,
 * trust }`; returns nothing when the registration is allowed.
 */
export function checkRuntimeRegistrationTrust(entry: ConnectorManifestEntry, trust: PackageTrust): void {
  const raw = entry as unknown as Record<string, unknown>;
  const requirement = connectorTrustRequirement(raw['type'], raw['transport']);
  if (requirement === undefined) return;
  if (isPackageTrust(trust) && isTrustedOrFirstParty(trust)) return;
  const trustName = isPackageTrust(trust) ? trust : 'of an unrecognised trust level';
  throw new TrustViolationError(
    `Connector${named(raw['id'])} is ${requirement}, so it needs a trusted or first-party package; this package is ${trustName}.`,
    {
      details: {
        connectorId: typeof raw['id'] === 'string' ? raw['id'] : null,
        type: typeof raw['type'] === 'string' ? raw['type'] : null,
        transport: typeof raw['transport'] === 'string' ? raw['transport'] : null,
        trust: isPackageTrust(trust) ? trust : null,
      },
    },
  );
}
