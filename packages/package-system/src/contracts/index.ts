export { CONNECTOR_PORT_VERSION, SUPPORTED_PORT_VERSIONS } from './version.js';
export type { ConnectorPortVersion } from './version.js';
export {
  CONNECTOR_CAPABILITIES,
  MANDATORY_CAPABILITIES,
  CAPABILITY_MEMBERS,
  isConnectorCapability,
} from './capabilities.js';
export type { ConnectorCapability } from './capabilities.js';
export { PROBE_REASONS } from './port.js';
export type {
  ConnectorPort,
  ConnectorEntry,
  EntryType,
  ListDetail,
  ListOptions,
  ConnectorListPage,
  ByteRange,
  ReadOptions,
  ReadOmission,
  ConnectorReadResult,
  WriteOptions,
  WalkOptions,
  ScanContentOptions,
  ContentChunk,
  DeleteOptions,
  ProbeReason,
  ProbeResult,
} from './port.js';
export type {
  ExecRequest,
  ExecContext,
  ExecConfinement,
  ExecPathRights,
  ExecResult,
  DetachedRunState,
  DetachedRunHandle,
  DetachedRunStatus,
  DetachedRunOutput,
  DetachedExecFacet,
} from './exec.js';
export { OWNERSHIP_SCOPES } from './session.js';
export type { SessionContext, OwnershipScope, PermissionRights, PermissionTree } from './session.js';
export type { CredentialResolver, PackageState, ConnectorInitContext } from './credentials.js';
export type { ConnectorFactoryContext, ConnectorFactory } from './factory.js';
export { PACKAGE_TRUST_LEVELS, MCP_REQUIRED_SCOPES, ROOT_TOKENS } from './manifest.js';
export type {
  PackageTrust,
  ConfigSchema,
  SourceConnectorEntry,
  McpTransport,
  McpRequiredScope,
  McpConnectorEntry,
  ConnectorManifestEntry,
  RootToken,
  SourceSyncSettings,
  SourceDeclaration,
  CredentialFieldDeclaration,
  CredentialDeclaration,
  PackageManifest,
} from './manifest.js';
export { parseSourceUri, formatSourceUri, encodeSegment } from './uri.js';
export type { SourceUri } from './uri.js';
export {
  UNKNOWN_MIME,
  mimeFromName,
  mimeEssence,
  mimeReadClass,
  isTextMime,
  isInlineBinaryMime,
  DEFAULT_INLINE_MIME_CAPS,
  inlineCapFor,
  formatByteSize,
} from './mime.js';
export type { MimeReadClass, InlineMimePattern } from './mime.js';
export {
  ERROR_CODES,
  ERROR_CLASSES,
  ConnectorError,
  isConnectorError,
  hasErrorCode,
  NotFoundError,
  AlreadyExistsError,
  PermissionDeniedError,
  NotADirectoryError,
  IsADirectoryError,
  PreconditionFailedError,
  UnsupportedOperationError,
  InvalidUriError,
  InvalidPathError,
  InvalidArgumentError,
  InvalidConfigError,
  ContainmentViolationError,
  UnsupportedFileTypeError,
  UnavailableError,
  RateLimitedError,
  TimeoutError,
  TooLargeError,
  ConnectorCapabilityMismatch,
  OsUriUnresolvableError,
  ManifestValidationError,
  TrustViolationError,
  UnsupportedPortVersionError,
  BindingConflictError,
  KindNotRegisteredError,
  OrphanSourceError,
  ConnectorFailedError,
  EgressRefusedError,
  SandboxLimitError,
  DescriptionValidationError,
  ScopeValidationError,
  StoreDamagedError,
  DocumentUnreadableError,
} from './errors.js';
export type { ErrorCode, ErrorDetails, ConnectorErrorOptions, ManifestIssue } from './errors.js';
export { collectCapped, concatBytes } from './streams.js';
export type { CollectLimits } from './streams.js';
