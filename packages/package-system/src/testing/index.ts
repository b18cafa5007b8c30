export { runCompliance, formatComplianceReport, COMPLIANCE_CHECKS } from './compliance/run-compliance.js';
export type {
  ComplianceSubject,
  ComplianceOptions,
  ComplianceReport,
  ComplianceCheckRecord,
} from './compliance/types.js';
export {
  runCheck,
  skippedCheck,
  summarizeChecks,
  failedChecks,
  formatCheckReport,
  formatFailureDetail,
  describeValue,
  describeError,
  expectErrorCode,
  ensure,
  fieldMismatches,
  listProblems,
  sameBytes,
  describeBytesDifference,
  fail,
  skip,
  CheckFailure,
  CheckSkipped,
} from './checks.js';
export type {
  CheckStatus,
  CheckId,
  CheckDefinition,
  CheckRecord,
  CheckReport,
  CheckBody,
  FailureDetail,
  ExpectedError,
  RunCheckOptions,
} from './checks.js';
export { assertCapability, guardedCall, PORT_OPERATIONS, OPERATION_CAPABILITY } from '../dispatch/guard.js';
export type { PortOperation, PortOperationSignatures, CapabilitySet } from '../dispatch/guard.js';
export { isInlineBinaryMime } from '../contracts/index.js';
export { SAMPLE_BODIES, PNG_1X1, sampleBodyFor } from './samples.js';
export type { SampleBody } from './samples.js';
export {
  createMemoryConnector,
  memoryConnectorManifest,
  memoryConnectorManifestFor,
  memoryConnectorFactory,
  memoryUri,
  MEMORY_CONNECTOR_KIND,
  MEMORY_CONNECTOR_CAPABILITIES,
  MEMORY_DEFAULT_INLINE_CAPS,
  MEMORY_EXEC_FEATURE,
} from './memory/memory-connector.js';
export type { MemoryConnectorOptions } from './memory/memory-connector.js';
export { BROKEN_CONNECTORS } from './broken/broken-connectors.js';
export type { BrokenConnector, BrokenConnectorName } from './broken/broken-connectors.js';
