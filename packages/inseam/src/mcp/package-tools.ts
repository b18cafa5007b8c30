/**
 * In-process MCP connectors: a trusted package's own hosted tools, served through the same
 * hosted-tools path as inseam's tools (hosted-tools.ts). Such a connector is inbound: it is
 * never stored as an outbound server and never connected to (outbound/).
 *
 * A package's tools are served when all of these hold — the gates the package system names:
 * - the package is on the MCP-hosting enable list (`McpHostOptions.hostedPackages`);
 * - it is loaded first-party or trusted (in-process MCP is in-host execution) and declares a
 *   `type: "mcp", transport: "in-process"` connector;
 * - its `main` module exports `hostedTools`, an array of HostedTool (each with an honest
 *   `readOnlyHint`/`destructiveHint` and, optionally, `requires.features`, checked per caller).
 * Each tool is named `<connector id>.<tool name>`; a package loaded for one network (a
 * `_packages/` drop) serves its tools to that network's callers only. Every host access of a
 * tool goes through the filesystem service it is handed, so the source URI policy applies.
 *
 * `main` is imported exactly as the loader imports it (contained in the package root, the URL
 * keyed by the digest of its bytes), so the tools share the module instance whose `init(ctx)`
 * the loader ran.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, NotFoundError, TrustViolationError } from '@neuralis/package-system/contracts';
import type { LoadedPackage, PackageLoader } from '@neuralis/package-system/loader';
import { resolveContained } from '@neuralis/package-system/paths';
import type { HostedTool } from './hosted-tools.js';

/** The export of a package's `main` module that lists its hosted tools. */
export const HOSTED_TOOLS_EXPORT = 'hostedTools';

export interface PackageToolSet {
  readonly packageId: string;
  /** The in-process connector the tools are served under. */
  readonly connectorId: string;
  /** The network the package was loaded for, when it was loaded for one. */
  readonly network?: string;
  readonly tools: readonly HostedTool[];
}

/**
 * The tool sets of the enabled packages. Throws `not_found` for an enabled package that is not
 * loaded, `trust_violation` for one that is not first-party or trusted, `invalid_argument` for
 * one without an in-process MCP connector, without `main`, or whose `hostedTools` is not an array.
 */
export async function packageToolSets(loader: Pick<PackageLoader, 'listPackages'>, enabled: readonly string[]): Promise<PackageToolSet[]> {
  if (enabled.length === 0) return [];
  const loaded = new Map(loader.listPackages().map((entry) => [entry.packageId, entry]));
  const sets: PackageToolSet[] = [];
  for (const packageId of new Set(enabled)) {
    const entry = loaded.get(packageId);
    if (entry === undefined) throw new NotFoundError(`Package "${packageId}" is on the MCP-hosting enable list but is not loaded.`, { details: { packageId } });
    sets.push(await toolSetOf(entry));
  }
  return sets;
}

async function toolSetOf(entry: LoadedPackage): Promise<PackageToolSet> {
  const { packageId, manifest } = entry;
  if (entry.trust !== 'first-party' && entry.trust !== 'trusted') {
    throw new TrustViolationError(`Package "${packageId}" is ${entry.trust}; in-process MCP tools run in the host and need a trusted or first-party package.`, { details: { packageId } });
  }
  const connector = (manifest.connectors ?? []).find((candidate) => candidate.type === 'mcp' && candidate.transport === 'in-process');
  if (connector === undefined) throw new InvalidArgumentError(`Package "${packageId}" declares no in-process MCP connector, so it hosts no tools.`, { details: { packageId } });
  if (manifest.main === undefined) throw new InvalidArgumentError(`Package "${packageId}" has no main module to export its hosted tools from.`, { details: { packageId } });
  const namespace = await importMain(entry.root, manifest.main);
  const exported = namespace[HOSTED_TOOLS_EXPORT];
  if (!Array.isArray(exported)) {
    throw new InvalidArgumentError(`The main module of package "${packageId}" must export ${HOSTED_TOOLS_EXPORT} as an array of tools.`, { details: { packageId } });
  }
  const tools = (exported as HostedTool[]).map((tool): HostedTool => {
    const named: HostedTool = { ...tool, name: `${connector.id}.${String(tool?.name)}`, call: (args, context) => tool.call(args, context) };
    return named;
  });
  return { packageId, connectorId: connector.id, ...(entry.projectId === undefined ? {} : { network: entry.projectId }), tools };
}

async function importMain(root: string, main: string): Promise<Record<string, unknown>> {
  const file = await resolveContained(root, main);
  const digest = createHash('sha256').update(await readFile(file)).digest('hex').slice(0, 16);
  return (await import(`${pathToFileURL(file).href}?rev=${digest}`)) as Record<string, unknown>;
}
