/**
 * What `host show` says a host does, as opposed to what was set on it: the permission tree in
 * force (its own, else its kind's default, else read only), how it syncs (auto with its interval
 * and whether it watches, or only when asked), and how its last sync went.
 */
import type { Description } from '@inseam/connector';
import type { PermissionRights, PermissionTree, SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { Platform } from '../../platform/index.js';
import type { HostRecord, SyncRecord } from '../../store/index.js';
import { formatCount } from './support.js';

/** The scheduler's interval for an auto host that names none (crawl/scheduler.ts). */
const DEFAULT_SYNC_INTERVAL = 'PT15M';

export interface EffectiveHost {
  readonly permissions: { readonly tree: PermissionTree; readonly from: 'host' | 'kind' | 'fallback' };
  readonly sync: { readonly mode: 'auto' | 'manual'; readonly interval: string | null; readonly watches: boolean; readonly exclude: readonly string[]; readonly alwaysActive: boolean };
  readonly lastSync: SyncRecord | null;
}

export async function effectiveHost(platform: Platform, record: HostRecord, syncs: readonly SyncRecord[]): Promise<EffectiveHost> {
  const fromKind = platform.kinds.has(record.kind) ? platform.kinds.get(record.kind).defaultPermissions : null;
  const from = record.permissions !== null ? 'host' : fromKind !== null ? 'kind' : 'fallback';
  const settings: SourceSyncSettings = record.sync ?? { trigger: 'manual' };
  const auto = settings.trigger === 'auto';
  const description = await describedOrNull(platform, record);
  return {
    permissions: { tree: platform.kinds.treeOf(record), from },
    sync: {
      mode: settings.trigger,
      interval: auto ? (settings.interval ?? DEFAULT_SYNC_INTERVAL) : null,
      watches: auto && description !== null && description.capabilities.includes('watch'),
      exclude: settings.exclude ?? [],
      alwaysActive: settings.alwaysActive === true,
    },
    lastSync: syncs[0] ?? null,
  };
}

/** Described from the config alone (nothing is reached); an orphan or a broken config just does not watch. */
async function describedOrNull(platform: Platform, record: HostRecord): Promise<Description | null> {
  try {
    return await platform.kinds.describe(record);
  } catch {
    return null;
  }
}

function rights(given: Partial<PermissionRights>): string {
  return (['read', 'write', 'exec'] as const)
    .filter((right) => given[right] !== undefined)
    .map((right) => (given[right] === true ? right : `no ${right}`))
    .join(', ');
}

const SOURCES = { host: 'its own', kind: "its kind's default", fallback: 'read only, as no tree is set' } as const;

/** `read, no write, no exec (its kind's default); private/: no read`. */
export function describePermissions(effective: EffectiveHost['permissions']): string {
  const paths = Object.entries(effective.tree.paths ?? {}).map(([path, given]) => `${path}/: ${rights(given)}`);
  return [`${rights(effective.tree.default)} (${SOURCES[effective.from]})`, ...paths].join('; ');
}

/** `auto: every PT15M, and on each change it watches` or `manual: only when asked (inseam crawl)`. */
export function describeSync(sync: EffectiveHost['sync']): string {
  if (sync.mode === 'manual') return 'manual: only when asked (`inseam crawl`)';
  const parts = [`auto: every ${sync.interval ?? DEFAULT_SYNC_INTERVAL}${sync.watches ? ', and at each change (it watches)' : ''}`];
  if (sync.exclude.length > 0) parts.push(`excluding ${sync.exclude.join(' ')}`);
  if (sync.alwaysActive) parts.push('even while the network is inactive');
  return parts.join(', ');
}

/** `2026-12-02T15:00:00.000Z, full, completed: +5 ~0 -0 (12 entries)`, or `never`. */
export function describeLastSync(sync: SyncRecord | null): string {
  if (sync === null) return 'never';
  const outcome = sync.error === null ? sync.state : `${sync.state}: ${sync.error.message} [${sync.error.code}]`;
  const changes = `+${formatCount(sync.added)} ~${formatCount(sync.changed)} -${formatCount(sync.removed)}${sync.moved > 0 ? ` >${formatCount(sync.moved)}` : ''}`;
  return `${new Date(sync.endedAt).toISOString()}, ${sync.mode}, ${outcome}: ${changes} (${formatCount(sync.entries)} entries${sync.errors > 0 ? `, ${formatCount(sync.errors)} failed` : ''})`;
}
