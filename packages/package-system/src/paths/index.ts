/**
 * `@neuralis/package-system/paths` — the containment primitives a connector uses to map relative
 * paths onto a host directory without ever reaching outside it. See each function's doc for its
 * edge cases; every error they throw carries a code from CONTAINMENT_ERROR_CODES and a message
 * that names no path.
 */
export { CONTAINMENT_ERROR_CODES } from './errors.js';
export type { ContainmentErrorCode } from './errors.js';
export { resolveContained } from './resolve.js';
export type { ResolveContainedOptions } from './resolve.js';
export { containedRealPath, openContainedHandle, openContainedDescriptor } from './open.js';
export type { ExpectedEntryType, OpenContainedOptions } from './open.js';
export { listContained } from './list.js';
export type { ContainedDirEntry, ContainedEntryType } from './list.js';
