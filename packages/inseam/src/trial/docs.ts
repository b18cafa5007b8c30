/**
 * Links from trial failures to the author's reference. Every failed check's detail ends with one
 * line, `see: docs/connectors/authoring.md#<section>`, naming the section that explains the rule
 * it broke: the section the failure itself names (`failAt`, `ensureAt`), else its check's own
 * (CHECK_SECTIONS). The sections are headings of that document; a test keeps every one here
 * present there.
 */
import type { ManifestIssue } from '@neuralis/package-system/contracts';
import { CheckFailure, type FailureDetail } from '@neuralis/package-system/testing';
import type { TrialCheckId } from './types.js';

export const AUTHORING_DOC = 'docs/connectors/authoring.md';

/** The reference's sections, by the anchor GitHub gives their headings. */
export const DOC_SECTIONS = Object.freeze({
  describe: 'describe',
  configuration: 'configuration',
  origins: 'origins',
  postReads: 'origins-post-reads',
  authFields: 'auth-fields',
  authAcquire: 'auth-acquire',
  authPresent: 'auth-present-templates',
  authInstructions: 'auth-instructions',
  dimensionOrdering: 'dimensions-ordering',
  dimensionValues: 'dimensions-value-formats',
  dimensionPresence: 'dimensions-presence',
  dimensionEnums: 'dimensions-enums',
  dimensionFrom: 'dimensions-from',
  defaultScope: 'default-scope',
  entryFields: 'entries-field-forms',
  entryExtra: 'entries-extra',
  listingPages: 'listing-pages',
  listingCursors: 'listing-cursors',
  listingSince: 'listing-since',
  listingOrder: 'listing-order',
  listingPrefix: 'listing-prefix',
  listingFolders: 'listing-folders',
  readingBytes: 'reading-bytes',
  readingRanges: 'reading-ranges',
  writingCreateReplace: 'writing-create-and-replace',
  writingDelete: 'writing-delete',
  writingDeleteOnly: 'writing-delete-only-hosts',
  writingLeftovers: 'writing-leftovers',
  writingResult: 'writing-result',
  writingEtags: 'writing-etags',
  writingSamples: 'writing-media-types-and-samples',
  writingNormalising: 'writing-normalising-hosts',
  errorCodes: 'errors-codes',
  gateRefusals: 'errors-gate-refusals',
  auditMode: 'audit-mode',
  identityPaths: 'identity-paths',
  identityNativeId: 'identity-nativeid',
  identityNativeHash: 'identity-nativehash',
  identitySubObjects: 'identity-sub-objects',
  envelopes: 'envelopes',
  envelopeMessages: 'envelopes-messages',
  envelopeSentMailboxes: 'envelopes-sent-and-drafts-mailboxes',
  changeEvents: 'change-events',
  sandboxModule: 'sandbox-module-shape',
  sandboxGlobals: 'sandbox-globals',
  sandboxState: 'sandbox-state-and-timers',
} as const);

export type DocSection = (typeof DOC_SECTIONS)[keyof typeof DOC_SECTIONS];

/** The section a failure of each check links when the failure names none of its own. */
export const CHECK_SECTIONS: Readonly<Record<TrialCheckId, DocSection>> = Object.freeze({
  1: DOC_SECTIONS.describe,
  2: DOC_SECTIONS.listingPages,
  3: DOC_SECTIONS.dimensionValues,
  4: DOC_SECTIONS.entryFields,
  5: DOC_SECTIONS.readingBytes,
  6: DOC_SECTIONS.identityPaths,
  7: DOC_SECTIONS.defaultScope,
  8: DOC_SECTIONS.changeEvents,
  9: DOC_SECTIONS.identityNativeId,
  10: DOC_SECTIONS.writingCreateReplace,
  11: DOC_SECTIONS.gateRefusals,
});

const SEE = '\nsee: ';

/** The line a failed check's detail ends with. */
export function seeLine(section: DocSection): string {
  return `${SEE.slice(1)}${AUTHORING_DOC}#${section}`;
}

/** A detail with its link: unchanged when it already links a section, else the check's own appended. */
export function withSection(detail: string, check: TrialCheckId): string {
  return detail.includes(SEE) ? detail : `${detail}\n${seeLine(CHECK_SECTIONS[check])}`;
}

/** A check failure that names the reference section explaining the rule. */
export class SectionFailure extends CheckFailure {
  readonly section: DocSection;

  constructor(failure: FailureDetail, section: DocSection) {
    super(failure);
    this.section = section;
    this.message = `${this.message}\n${seeLine(section)}`;
  }
}

/** Fails the running check, linking `section`. */
export function failAt(section: DocSection, expected: string, actual: string, fix?: string): never {
  throw new SectionFailure(fix === undefined ? { expected, actual } : { expected, actual, fix }, section);
}

/** Fails the running check unless `condition` holds, linking `section`. */
export function ensureAt(section: DocSection, condition: unknown, failure: FailureDetail | (() => FailureDetail)): asserts condition {
  if (!condition) throw new SectionFailure(typeof failure === 'function' ? failure() : failure, section);
}

/** Runs `action`; a CheckFailure it throws without a section gets `section`. */
export async function inSection<T>(section: DocSection, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof CheckFailure && !(error instanceof SectionFailure)) throw new SectionFailure(error.failure, section);
    throw error;
  }
}

/** Where a describe() problem is explained, by its JSON path. */
export function sectionOfIssue(issue: Pick<ManifestIssue, 'path'>): DocSection {
  const path = issue.path;
  const starts = (prefix: string): boolean => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  if (starts('auth.present')) return DOC_SECTIONS.authPresent;
  if (starts('auth.fields')) return DOC_SECTIONS.authFields;
  if (starts('auth.acquire')) return DOC_SECTIONS.authAcquire;
  if (starts('auth.instructions')) return DOC_SECTIONS.authInstructions;
  if (starts('auth.origins')) return DOC_SECTIONS.origins;
  if (starts('auth.readEndpoints')) return DOC_SECTIONS.postReads;
  if (path === 'dimensions' || /^dimensions.*\.ordering$/.test(path)) return DOC_SECTIONS.dimensionOrdering;
  if (starts('dimensions')) return path.endsWith('.from') ? DOC_SECTIONS.dimensionFrom : DOC_SECTIONS.dimensionValues;
  if (starts('defaultScope')) return DOC_SECTIONS.defaultScope;
  if (path === 'writes.roundTrip') return DOC_SECTIONS.writingNormalising;
  if (path === 'writes.mimes' || starts('writes.samples')) return DOC_SECTIONS.writingSamples;
  if (starts('writes')) return DOC_SECTIONS.writingCreateReplace;
  return DOC_SECTIONS.describe;
}
