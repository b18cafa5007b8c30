/**
 * `inseam/connector`: what a connector author imports — the host Connector types (their doc
 * comments carry the decisions of docs/connectors/authoring.md) and the JSON Schema of what
 * describe() returns. A sandboxed module imports nothing at run time; these are for an author's
 * editor, type checker and tests (a JSDoc `@type {import('inseam/connector').Connector}` on the
 * object createConnector returns, or `satisfies Connector` in TypeScript bundled to one module).
 */
export { DESCRIPTION_SCHEMA, DESCRIPTION_RULES_BEYOND_SCHEMA, HOST_CAPABILITIES, DIMENSION_TYPES, WRITE_ROUND_TRIPS } from '@inseam/connector';
export type {
  AuthAcquire,
  AuthField,
  AuthPresent,
  AuthSpec,
  ChangeEvent,
  Connector,
  Description,
  Dimension,
  DimensionSource,
  DimensionType,
  Entry,
  Envelope,
  ExchangeAcquire,
  HostCapability,
  HostListOptions,
  HostListPage,
  HostReadOptions,
  OAuth2Acquire,
  ReadEndpoint,
  Scope,
  ScopePredicate,
  ScopeRule,
  WriteSampleDeclaration,
  Writes,
} from '@inseam/connector';
