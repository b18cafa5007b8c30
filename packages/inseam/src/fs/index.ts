export { FsService, DEFAULT_READ_BYTES, MAX_READ_BYTES, DEFAULT_PROBE_TTL_MS, DEFAULT_PROBE_WAIT_MS, DEFAULT_PROBE_TIMEOUT_MS } from './service.js';
export { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, DEFAULT_NAMES_LIST_LIMIT, MAX_NAMES_LIST_LIMIT } from './input.js';
export type { FsServiceOptions } from './service.js';
export type { FsPlatform } from './access.js';
export { readDocumentText, addressName } from './document-text.js';
export type { DocumentTextPage, DocumentTextRequest } from './document-text.js';
export { renderRuntimeStack } from './runtime-stack.js';
export type { PackageOverview } from './runtime-stack.js';
export { checkPermissionTree, compilePermissions, rightsAt, unionBaselines, withWrites, allowsChanges, PERMISSION_RIGHTS, NO_RIGHTS } from './permissions.js';
export { checkGrants, compileGrants, grantCovers, MAX_GRANTS } from './grants.js';
export type { Grant, CompiledGrant } from './grants.js';
export type { PermissionRight, CompiledPermissions } from './permissions.js';
export type {
  Caller,
  ModelCapabilities,
  ContentSource,
  FsEntry,
  FsStat,
  FsListOptions,
  FsListPage,
  FsByteRange,
  FsLineRange,
  FsReadOptions,
  ReadEncoding,
  ReadOmissionReason,
  FsReadOmission,
  FsReadResult,
  FsReadStreamOptions,
  FsReadStream,
  FsWriteOptions,
  FsDeleteOptions,
  FsCopyOptions,
  FsMoveOptions,
  FsTransfer,
  FsFolder,
  FsSearchFilters,
  FsExecRequest,
  FsExecOptions,
  FsRun,
  FsRunStatus,
  HostStatus,
  FsHost,
} from './types.js';
