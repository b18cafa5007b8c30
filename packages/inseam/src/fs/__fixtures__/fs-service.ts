/**
 * A real platform on a temp data directory with the filesystem service on top, for the service
 * tests: network `home` (its pad and the seeded `data` host), a folder of files for fs hosts,
 * and the runtime-gated `desk` kind of desk-package (opened by the platform's HostKinds like any
 * kind from a package).
 */
import { fileURLToPath } from 'node:url';
import type { ConnectorEntry, SessionContext } from '@neuralis/package-system/contracts';
import { SEED_PACKAGE, openTestPlatform, removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import type { Platform } from '../../platform/index.js';
import { FsService, type FsServiceOptions } from '../service.js';
import type { Grant } from '../grants.js';
import type { Caller, ModelCapabilities } from '../types.js';

export const DESK_PACKAGE = fileURLToPath(new URL('./desk-package', import.meta.url));

/** What desk-package's connector counted (see dist/desk.js). */
export interface DeskState {
  active: boolean;
  starts: number;
  probes: number;
  runtimeChecks: number;
  calls: number;
  /** When set, the connector's list() answers these entries. */
  listing?: (uri: string, source: string) => readonly ConnectorEntry[];
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
  const fs = new FsService(platform, options.service);
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

/** A caller as a surface would build it from its authentication. */
export function callerOf(
  userId: string,
  options: { readonly agentId?: string; readonly features?: readonly string[]; readonly network?: string; readonly model?: ModelCapabilities; readonly grants?: readonly Grant[] } = {},
): Caller {
  const session: SessionContext = {
    userId,
    ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    projectId: options.network ?? 'home',
    features: new Set(options.features ?? []),
  };
  return { session, ...(options.model === undefined ? {} : { model: options.model }), ...(options.grants === undefined ? {} : { grants: options.grants }) };
}
