export { SourceKindRegistry } from './source-kind-registry.js';
export type { SourceKindRegistration, SourceKindMetadata } from './source-kind-registry.js';
export { ConnectorRegistry } from './connector-registry.js';
export type {
  SourceBindingRequest,
  BindingCallContext,
  ValidatedBindingRequest,
  ConnectorKindRuntime,
  RegisteredConnectorKind,
  SourceBindingState,
  SourceBindingInfo,
  RebindOutcome,
} from './connector-registry.js';
