/**
 * The binary-read rule of the port contract, shared by the harness (which checks it) and the
 * memory connector (which follows it): image/*, video/* and application/pdf are the MIME types
 * whose bytes a read returns inline (base64 in `bytes`) when they fit the per-MIME inline cap.
 */

/** True for the MIME types whose reads carry base64 `bytes` (parameters such as `;charset` are ignored). */
export function isInlineBinaryMime(mime: string): boolean {
  const essence = mime.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return essence.startsWith('image/') || essence.startsWith('video/') || essence === 'application/pdf';
}
