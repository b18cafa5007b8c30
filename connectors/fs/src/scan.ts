/**
 * scanContent: the text of every file a walk yields, for indexing. Each file is read through
 * openContainedDescriptor (never by path), text is sniffed the same way read() does it, and a file
 * that is binary, over the size limit or unreadable is yielded with `skipped` instead of text.
 */
import { closeSync, fstatSync } from 'node:fs';
import { UNKNOWN_MIME, isTextMime } from '@neuralis/package-system/contracts';
import type { ConnectorEntry, ContentChunk } from '@neuralis/package-system/contracts';
import { openContainedDescriptor } from '@neuralis/package-system/paths';
import { addressOfUri } from './address.js';
import { refuseHardLink } from './links.js';
import { SNIFF_BYTES, looksLikeText } from './mime.js';
import { readAt } from './read.js';

export async function* scanFiles(
  rootPath: string,
  source: string,
  entries: AsyncIterable<ConnectorEntry>,
  maxBytes: number,
  allowHardLinks: boolean,
): AsyncGenerator<ContentChunk> {
  for await (const entry of entries) {
    if (entry.type !== 'file') continue;
    if ((entry.size ?? 0) > maxBytes) {
      yield { entry, skipped: 'too_large' };
      continue;
    }
    const known = entry.mime !== undefined && entry.mime !== UNKNOWN_MIME;
    if (known && !isTextMime(entry.mime)) {
      yield { entry, skipped: 'binary' };
      continue;
    }
    let bytes: Buffer;
    try {
      const fd = await openContainedDescriptor(rootPath, addressOfUri(entry.uri, source).relative, { expect: 'file' });
      try {
        const stats = fstatSync(fd);
        // Linked after the walk listed it.
        refuseHardLink(stats, allowHardLinks);
        bytes = await readAt(fd, 0, Math.min(stats.size, maxBytes));
      } finally {
        closeSync(fd);
      }
    } catch {
      yield { entry, skipped: 'unreadable' };
      continue;
    }
    if (!known && !looksLikeText(bytes.subarray(0, SNIFF_BYTES), bytes.length <= SNIFF_BYTES)) {
      yield { entry, skipped: 'binary' };
      continue;
    }
    yield { entry, text: bytes.toString('utf8') };
  }
}
