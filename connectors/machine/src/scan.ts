/** scanContent: the text of each file a walk yields, read whole up to the cap. */
import { hasErrorCode, mimeReadClass } from '@neuralis/package-system/contracts';
import type { ConnectorEntry, ContentChunk } from '@neuralis/package-system/contracts';
import type { ConnectorPort } from '@neuralis/package-system/contracts';

export async function* scanFiles(port: Pick<ConnectorPort, 'read'>, entries: AsyncIterable<ConnectorEntry>, maxBytes: number): AsyncGenerator<ContentChunk> {
  for await (const entry of entries) {
    if (entry.type !== 'file') continue;
    if ((entry.size ?? 0) > maxBytes) {
      yield { entry, skipped: 'too_large' };
      continue;
    }
    if (entry.mime !== undefined && entry.mime !== 'application/octet-stream' && mimeReadClass(entry.mime) !== 'text') {
      yield { entry, skipped: 'binary' };
      continue;
    }
    try {
      const result = await port.read(entry.uri, { range: { offset: 0, length: maxBytes } });
      if (result.bytes !== undefined || result.omitted !== undefined || mimeReadClass(result.mime) !== 'text') yield { entry, skipped: 'binary' };
      else yield { entry, text: result.text };
    } catch (error) {
      if (hasErrorCode(error, 'unavailable')) throw error;
      yield { entry, skipped: 'unreadable' };
    }
  }
}
