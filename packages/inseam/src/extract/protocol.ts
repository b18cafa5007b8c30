/** The messages between the pool and an extraction worker. */
import type { DocumentKind } from './kinds.js';
import type { ExtractedText, ExtractLimits } from './limits.js';

export interface ExtractRequest {
  readonly id: number;
  readonly kind: DocumentKind;
  readonly bytes: Uint8Array;
  readonly limits: ExtractLimits;
}

export type ExtractReply =
  | { readonly id: number; readonly result: ExtractedText }
  | { readonly id: number; readonly failure: { readonly code: 'document_unreadable' | 'too_large'; readonly message: string; readonly details: Readonly<Record<string, string | number>> } };
