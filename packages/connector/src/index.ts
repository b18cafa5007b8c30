export { HOST_CAPABILITIES, DIMENSION_TYPES, WRITE_ROUND_TRIPS } from './types.js';
export type {
  HostCapability,
  DimensionType,
  DimensionSource,
  Dimension,
  Envelope,
  Entry,
  ChangeEvent,
  Writes,
  WriteSampleDeclaration,
  ReadEndpoint,
  AuthField,
  OAuth2Acquire,
  ExchangeAcquire,
  AuthAcquire,
  AuthPresent,
  AuthSpec,
  Scope,
  ScopeRule,
  ScopePredicate,
  Description,
  HostListOptions,
  HostListPage,
  HostReadOptions,
  Connector,
} from './types.js';
export { EgressError, isEgressError, EGRESS_FAILURES } from './egress.js';
export type { EgressMethod, EgressRequest, EgressResponse, EgressFailure, EgressPort } from './egress.js';
export { validateDescription, orderingDimension, templateNames, acquiredTokens } from './describe.js';
export { DESCRIPTION_SCHEMA, DESCRIPTION_RULES_BEYOND_SCHEMA } from './schema.js';
