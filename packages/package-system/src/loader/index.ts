export { PackageLoader } from './package-loader.js';
export type {
  PackageLoaderOptions,
  LoadPackageOptions,
  LoadedPackage,
  PackageSwapResult,
  PackageUnloadResult,
  ProjectScanOptions,
  ProjectScanResult,
  ProjectDropFailure,
} from './package-loader.js';
export { getConnectorBindingProvenance } from './provenance.js';
export type { ConnectorBindingProvenance } from './provenance.js';
export type { ExecPathPolicy } from './exec-guard.js';
export type { PortAdapter, PortAdapterContext } from './port-version.js';
export { checkConnectorCapabilities, FrozenCapabilitySet } from './capability-check.js';
export type { CheckedConnector, DeclaredCapabilities } from './capability-check.js';
export { PROJECT_PACKAGES_FOLDER } from './project-drops.js';
export type { ProjectDrop } from './project-drops.js';
