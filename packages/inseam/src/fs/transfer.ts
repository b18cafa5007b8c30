/**
 * What copies, moves and mkdir need of a port beyond one call: the entries below a folder (walked
 * where the kind can, else listed folder by folder), a stream gathered into bytes where a write
 * cannot take a stream, and whether a host keeps folders of its own.
 */
import { randomBytes } from 'node:crypto';
import { InvalidArgumentError, hasErrorCode, type ConnectorCapability, type ConnectorEntry, type ConnectorPort } from '@neuralis/package-system/contracts';
import { guardedCall } from '@neuralis/package-system/dispatch';

/** Every entry below `uri` (not `uri` itself), folders included; memory grows with the folders still to list, not with the tree. */
export async function* entriesBelow(port: ConnectorPort, capabilities: ReadonlySet<ConnectorCapability>, uri: string): AsyncGenerator<ConnectorEntry> {
  if (capabilities.has('walk')) {
    yield* guardedCall(port, capabilities, 'walk', uri);
    return;
  }
  const pending = [uri];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    let cursor: string | undefined;
    do {
      const page = await guardedCall(port, capabilities, 'list', folder, cursor === undefined ? {} : { cursor });
      for (const entry of page.entries) {
        yield entry;
        if (entry.type === 'directory') pending.push(entry.uri);
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
}

/** The content as one value, for a write that cannot take a stream (a port, a create-only write). */
export async function gather(content: string | Uint8Array | ReadableStream<Uint8Array>): Promise<string | Uint8Array> {
  if (!(content instanceof ReadableStream)) return content;
  const reader = content.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (!(next.value instanceof Uint8Array)) throw new InvalidArgumentError('The content stream must carry Uint8Array chunks.', { details: { argument: 'content' } });
      chunks.push(next.value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks);
}

/**
 * Whether the host keeps a folder with nothing in it. A kind whose objects have real paths (a
 * folder, a machine) does; one without (a bucket, whose folders are only the shared beginnings of
 * its keys, or a package kind that names no paths) has folders only through what is in them.
 */
export async function keepsEmptyFolders(port: ConnectorPort, rootUri: string): Promise<boolean> {
  if (port.resolveOsUri === undefined) return false;
  try {
    await port.resolveOsUri(rootUri);
    return true;
  } catch (error) {
    // Any other failure (the root missing, say) is for the write to report.
    return !hasErrorCode(error, 'os_uri_unresolvable');
  }
}

/** The name of the file mkdir writes and removes at once, so the port makes the folders on the way. */
export function placeholderName(): string {
  return `.inseam-mkdir-${randomBytes(6).toString('hex')}`;
}
