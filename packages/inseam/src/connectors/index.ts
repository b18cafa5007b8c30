export { ConnectorLifecycle, MAX_MODULE_BYTES } from './lifecycle.js';
export type {
  Actor,
  ConnectorState,
  TrialSummary,
  TrialPhases,
  PhaseResult,
  ApprovalSummary,
  ConnectorView,
  SubmitInput,
  TrialInput,
  TrialOutcome,
  InstallInput,
  InstallOutcome,
  HostWrites,
  HostRights,
  LifecyclePlatform,
  ConnectorLifecycleOptions,
} from './lifecycle.js';
export type { WritesOutcome } from './host-writes.js';
export { ModuleStore, moduleSha, SHA_PATTERN, MIN_SHA_PREFIX } from './module-store.js';
export type { Submission, Installation, ConnectorModuleStore } from './module-store.js';
export { confirmationPhrase, checkConfirmation, CONFIRM_SHA_DIGITS } from './confirm.js';
export { checkClosedSchema, inferConfigSchema } from './config-schema.js';
