/** `@inseam/connector-machine`: the built-in machine kind, a remote machine over SSH. */
export { MACHINE_PACKAGE_ID, MACHINE_CONNECTOR_ENTRY, MACHINE_CAPABILITIES, MACHINE_CREDENTIALS, MACHINE_MANIFEST } from './manifest.js';
export { parseMachineConfig } from './config.js';
export type { MachineConfig, MachineAuth, MachineExecSettings } from './config.js';
export { MachinePort } from './port.js';
export { init, createMachineConnector, createMachinePort } from './factory.js';
export type { MachineBindingOptions } from './factory.js';
export type { MachineSecret, SecretSource, ConnectionState } from './connection.js';
export { fingerprintOf, scanHostKey } from './host-key.js';
