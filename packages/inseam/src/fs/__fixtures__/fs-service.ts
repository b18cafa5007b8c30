/**
 * A real platform on a temp data directory with the filesystem service on top, for the service
 * tests: network `home` (its pad and the seeded `data` host), a folder of files for fs hosts,
 * and the runtime-gated `desk` kind of desk-package.
 *
 * The platform's HostKinds opens ports for the built-in and sandboxed kinds only, so the desk
 * host's port is bound here through the loader's own runtime for the kind (capability cross-check
 * and provenance stamp included) in a registry of its own; every other call goes to the platform.
 */
import { fileURLToPath } from 'node:url';
import type { ConnectorPort, SessionContext } from '@neuralis/package-system/contracts';
import { ConnectorRegistry } from '@neuralis/package-system/registry';
import { SEED_PACKAGE, openTestPlatform, removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import type { Platform } from '../../platform/index.js';
import type { HostRecord } from '../../store/index.js';
import type { FsPlatform } from '../access.js';
import { FsService, type FsServiceOptions } from '../service.js';
import type { Caller, ModelCapabilities } from '../types.js';

export const DESK_PACKAGE = fileURLToPath(new URL('./desk-package', import.meta.url));

/** What desk-package's connector counted (see dist/desk.js). */
export interface DeskState {
  active: boolean;
  starts: number;
  probes: number;
  runtimeChecks: number;
  calls: number;
}

export function deskState(): DeskState {
  const global = globalThis as { __deskFixture?: DeskState };
  global.__deskFixture ??= { active: false, starts: 0, probes: 0, runtimeChecks: 0, calls: 0 };
  return global.__deskFixture;
}

export interface FsFixture {
  readonly platform: Platform;
  readonly fs: FsService;
  /** A folder for fs hosts' roots. */
  readonly files: string;
  close(): Promise<void>;
}

export async function openFsFixture(options: { readonly files?: Readonly<Record<string, string>>; readonly service?: FsServiceOptions } = {}): Promise<FsFixture> {
  const dataDir = await tempDir('fs-data');
  const files = await tempDir('fs-files');
  await writeFiles(files, options.files ?? {});
  const platform = await openTestPlatform(dataDir, {
    packages: [
      { folder: SEED_PACKAGE, trust: 'trusted' },
      { folder: DESK_PACKAGE, trust: 'trusted' },
    ],
  });
  await platform.networks.init('home');
  const fs = new FsService(withDeskPorts(platform), options.service);
  return {
    platform,
    fs,
    files,
    close: async () => {
      await platform.close();
      await removeDir(dataDir);
      await removeDir(files);
    },
  };
}

function withDeskPorts(platform: Platform): FsPlatform {
  const registry = new ConnectorRegistry(platform.loader.sourceKinds);
  registry.registerKind(platform.loader.connectors.runtimeOf('desk'));
  const bound = new Map<string, Promise<ConnectorPort>>();
  const openPort = (host: HostRecord): Promise<ConnectorPort> => {
    if (host.kind !== 'desk') return platform.kinds.openPort(host);
    let port = bound.get(host.slug);
    if (port === undefined) {
      port = registry.bindSource({ source: host.slug, kind: host.kind, config: host.config, scope: host.ownership, projectRoot: platform.paths.networkRoot(host.network) });
      bound.set(host.slug, port);
    }
    return port;
  };
  return {
    store: platform.store,
    catalog: platform.catalog,
    search: platform.search,
    loader: platform.loader,
    paths: platform.paths,
    kinds: {
      openPort,
      openHost: (host) => platform.kinds.openHost(host),
      permissionsOf: (host, baselines) => platform.kinds.permissionsOf(host, baselines),
    },
  };
}

/** A caller as a surface would build it from its authentication. */
export function callerOf(
  userId: string,
  options: { readonly agentId?: string; readonly features?: readonly string[]; readonly network?: string; readonly model?: ModelCapabilities } = {},
): Caller {
  const session: SessionContext = {
    userId,
    ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    projectId: options.network ?? 'home',
    features: new Set(options.features ?? []),
  };
  return options.model === undefined ? { session } : { session, model: options.model };
}
