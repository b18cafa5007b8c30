/**
 * The bounds on extracting one document's text. The worker enforces the size bounds itself, so a
 * document over them fails with a clear reason before it can exhaust the worker; the pool adds
 * the time and heap bounds, which hold whatever the parser does.
 */
import type { DocumentKind } from './kinds.js';

export interface ExtractLimits {
  /** The document's own bytes. Default 64 MiB. */
  readonly maxInputBytes: number;
  /** The decompressed parts of a DOCX, XLSX or PPTX that are read, together (a zip bomb stops here). Default 256 MiB. */
  readonly maxInflatedBytes: number;
  /** Text kept; what follows is dropped and `truncated` set. Default 8 Mi characters. */
  readonly maxTextChars: number;
  /** PDF pages read; later pages are dropped and `truncated` set. Default 5000. */
  readonly maxPages: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxInputBytes: 64 * 1024 * 1024,
  maxInflatedBytes: 256 * 1024 * 1024,
  maxTextChars: 8 * 1024 * 1024,
  maxPages: 5000,
};

export interface ExtractedText {
  readonly kind: DocumentKind;
  readonly text: string;
  /** True when a limit cut the text short (characters or pages). */
  readonly truncated: boolean;
}

const NAMES: Readonly<Record<DocumentKind, string>> = { pdf: 'PDF', docx: 'DOCX', xlsx: 'XLSX', pptx: 'PPTX', html: 'HTML' };

export function kindName(kind: DocumentKind): string {
  return NAMES[kind];
}

export type UnreadableReason = 'wrong_type' | 'malformed' | 'encrypted' | 'crashed';
export type TooLargeReason = 'document_too_large' | 'inflated_too_large' | 'extract_memory';

/**
 * Why a document has no text, as the worker reports it: plain data that crosses the thread
 * boundary, turned into the matching `ConnectorError` by the pool (`document_unreadable` or
 * `too_large`). Worker-side code imports no workspace package, so a worker starts from node_modules alone.
 */
export class ExtractFailure extends Error {
  constructor(
    readonly code: 'document_unreadable' | 'too_large',
    message: string,
    readonly details: Readonly<Record<string, string | number>>,
  ) {
    super(message);
    this.name = 'ExtractFailure';
  }
}

export function unreadable(kind: DocumentKind, reason: UnreadableReason, what: string): ExtractFailure {
  return new ExtractFailure('document_unreadable', `The ${kindName(kind)} document could not be read as text: ${what}.`, { reason, kind });
}

export function tooLarge(kind: DocumentKind, reason: TooLargeReason, what: string, limit?: number): ExtractFailure {
  return new ExtractFailure('too_large', `The ${kindName(kind)} document is too large to extract its text: ${what}.`, { reason, kind, ...(limit === undefined ? {} : { limit }) });
}
