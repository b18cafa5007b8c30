export { SandboxHost, DEFAULT_SANDBOX_LIMITS } from './host.js';
export type { SandboxLimits, SandboxLogRecord, SandboxLogSink, SandboxHostOptions, SandboxModuleSpec } from './host.js';
export { SandboxedConnector, MAX_WEBHOOK_BYTES } from './sandboxed-connector.js';
export type { SandboxLimitKind, LogLevel } from './protocol.js';
export { sandboxedSourceKind, createSandboxedPort, SANDBOX_PACKAGE_ID } from './adapter.js';
export type { SandboxedKindOptions, SandboxedKind, SandboxedSourcePort } from './adapter.js';
export { DEFAULT_READ_CAPS } from './read-result.js';
export type { ReadCaps } from './read-result.js';
