/**
 * The runtime-stack block of an agent's system prompt: the hosts it can reach, with their
 * descriptions, origin attribution, owner (a user's or agent's own source) and offline marks, and the `<packages>` overview rendered from
 * the loaded manifests — source kinds, and MCP connectors including in-process ones (inbound:
 * their tools are hosted by the package, so they are announced here and never connected).
 *
 * Text that comes from manifests or host records is put on one line, cut to a bounded length and
 * has `<`, `>` and `&` escaped, so a description cannot close the block or forge another.
 */
import type { McpTransport, PackageTrust } from '@neuralis/package-system/contracts';
import type { FsHost } from './types.js';

export interface PackageOverview {
  readonly packageId: string;
  readonly version?: string;
  readonly trust: PackageTrust | 'sandboxed';
  readonly sourceKinds: readonly { readonly kind: string; readonly name: string; readonly category?: string; readonly runtimeGated: boolean }[];
  readonly mcp: readonly { readonly id: string; readonly name: string; readonly transport: McpTransport; readonly description?: string }[];
  /** Whether the package is on the network's MCP-hosting enable list now (its in-process tools are served). */
  readonly hosted: boolean;
  /** Slugs of the `sources[]` the package declares. */
  readonly sources: readonly string[];
}

const MAX_TEXT = 400;

export function renderRuntimeStack(network: string, hosts: readonly FsHost[], packages: readonly PackageOverview[]): string {
  const lines = [`<runtime-stack network="${clean(network)}">`, '<sources>'];
  lines.push(`Hosts of network ${clean(network)}. Address objects as inseam://${clean(network)}/{host}/{path}. A host marked (offline) cannot be reached now; its synced content can still be listed, read and searched.`);
  for (const host of hosts) lines.push(sourceLine(host));
  if (hosts.length === 0) lines.push('(no hosts)');
  lines.push('</sources>', '<packages>');
  for (const overview of packages) lines.push(packageLine(overview));
  if (packages.length === 0) lines.push('(no packages)');
  lines.push('</packages>', '</runtime-stack>');
  return `${lines.join('\n')}\n`;
}

function sourceLine(host: FsHost): string {
  const marks = [`(${clean(host.kind)}${categoryMark(host.category ?? undefined)})`];
  if (host.origin !== null) marks.push(`[from ${clean(host.origin)}]`);
  // A user's or agent's own source: the model is told whose it is, so it does not treat it as the network's.
  if (host.ownership !== 'project') marks.push(`[owned by ${host.ownership} ${clean(host.ownerId ?? '')}]`);
  if (host.status.state === 'offline') marks.push('(offline)');
  const rights = (['read', 'write', 'exec'] as const).filter((right) => host.rights[right]);
  const access = rights.length === 0 ? 'no rights at the root' : `rights at the root: ${rights.join(', ')}`;
  const label = host.label === host.slug ? '' : ` "${clean(host.label)}"`;
  return `- ${clean(host.slug)}${label} ${host.address} ${marks.join(' ')}: ${clean(host.description) || 'No description.'} (${access})`;
}

function packageLine(overview: PackageOverview): string {
  const parts: string[] = [];
  for (const kind of overview.sourceKinds) parts.push(`source kind ${clean(kind.kind)} (${clean(kind.name)}${categoryMark(kind.category)}${kind.runtimeGated ? ', runtime-gated' : ''})`);
  for (const mcp of overview.mcp) {
    const how =
      mcp.transport === 'in-process'
        ? `in-process: its tools are hosted by this package, available only while the package is on this network's hosting enable list (${overview.hosted ? 'it is' : 'it is not'})`
        : `${mcp.transport} MCP server`;
    parts.push(`MCP connector ${clean(mcp.id)} (${clean(mcp.name)}, ${how}${mcp.description === undefined ? '' : `; ${clean(mcp.description)}`})`);
  }
  if (overview.sources.length > 0) parts.push(`declares sources ${overview.sources.map(clean).join(', ')}`);
  const version = overview.version === undefined ? '' : ` ${clean(overview.version)}`;
  return `- ${clean(overview.packageId)}${version} (${overview.trust}): ${parts.length === 0 ? 'no connectors' : parts.join('; ')}.`;
}

/** The category as the kind declared it; a kind without one has no mark. */
function categoryMark(category: string | undefined): string {
  return category === undefined || category === '' ? '' : `, category ${clean(category)}`;
}

/** One line, bounded, with markup characters escaped. */
export function clean(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
  return cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
