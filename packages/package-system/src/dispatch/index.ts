/**
 * The capability-guarded dispatcher the platform calls before every port operation. It lives
 * apart from `./testing` so that a command dispatching a read does not load the compliance
 * harness and its corpus of broken connectors.
 */
export { assertCapability, guardedCall, PORT_OPERATIONS, OPERATION_CAPABILITY } from './guard.js';
export type { PortOperation, PortOperationSignatures, CapabilitySet } from './guard.js';
