export { runTrial, canonicalScratchPrefix } from './run.js';
export { formatTrialReport, trialReportJson } from './report.js';
export { parseTrialConfig, parseTrialSamples, readTrialConfigFile } from './config-file.js';
export type { TrialConfigFile } from './config-file.js';
export { TRIAL_CHECKS, TRIAL_PHASES } from './types.js';
export { TrialSandbox } from './sandbox.js';
export type { TrialSandboxOptions } from './sandbox.js';
export type {
  TrialCheckId,
  TrialCheckRecord,
  TrialEnvelopeOwner,
  TrialOptions,
  TrialPhase,
  TrialRefusal,
  TrialReport,
  TrialReportJson,
  TrialSubject,
  TrialWebhookSample,
  TrialWriteSample,
} from './types.js';
export { AUTHORING_DOC, DOC_SECTIONS, CHECK_SECTIONS } from './docs.js';
export type { DocSection } from './docs.js';
