/**
 * Which objects are documents whose text is extracted rather than their bytes indexed: by media
 * type first, and by the name's extension when the type is missing or generic (a bucket that
 * says `application/octet-stream` for everything, a zip type for an Office file).
 */

export type DocumentKind = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'html';

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['pdf', 'docx', 'xlsx', 'pptx', 'html'];

const BY_TYPE: ReadonlyMap<string, DocumentKind> = new Map([
  ['application/pdf', 'pdf'],
  ['application/x-pdf', 'pdf'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
]);

const BY_EXTENSION: ReadonlyMap<string, DocumentKind> = new Map([
  ['pdf', 'pdf'],
  ['docx', 'docx'],
  ['xlsx', 'xlsx'],
  ['pptx', 'pptx'],
  ['html', 'html'],
  ['htm', 'html'],
  ['xhtml', 'html'],
]);

// Types that say nothing about the format, so the extension decides.
const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'application/zip', 'application/x-zip-compressed', 'binary/octet-stream']);

/** The document kind of an object, or null when its text is not extracted. */
export function documentKind(mime: string | undefined | null, path: string): DocumentKind | null {
  const type = (mime ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const byType = BY_TYPE.get(type);
  if (byType !== undefined) return byType;
  if (!GENERIC_TYPES.has(type)) return null;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? null : (BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) ?? null);
}
