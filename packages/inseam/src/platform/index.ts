export { openPlatform, Platform } from './platform.js';
export type { OpenPlatformOptions } from './platform.js';
export { resolveDataDir, resolveStoreUrl, PlatformPaths, DATA_DIR_ENV, DATABASE_URL_ENV } from './data-dir.js';
export type { PlatformEnv } from './data-dir.js';
export { HostKinds, hostCredentialRef, FALLBACK_PERMISSIONS } from './host-kinds.js';
export type { HostKindMetadata, HostDraft, OpenableHost, SandboxedKindSpec, HostKindsOptions } from './host-kinds.js';
export { BUILTIN_PACKAGES, builtinPackages, installedPackageFolder, installRoot } from './packages.js';
export type { PackageSpec } from './packages.js';
export { EgressLog, DEFAULT_EGRESS_LOG_SIZE } from './egress-log.js';
