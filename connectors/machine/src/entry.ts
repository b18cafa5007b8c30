/** ConnectorEntry values from SFTP attributes. */
import { formatSourceUri, mimeFromName } from '@neuralis/package-system/contracts';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import { isDirectory } from './remote.js';
import type { SftpAttributes } from './ssh.js';

/**
 * Size and mtime (SFTP v3 carries whole seconds). A write by this connector that would leave both
 * unchanged moves the mtime on by a second (write.ts), so its own writes always change the etag.
 */
export function etagOf(attrs: SftpAttributes): string {
  return `${attrs.size.toString(16)}-${attrs.mtime.toString(16)}`;
}

export function entryOf(source: string, names: readonly string[], attrs: SftpAttributes): ConnectorEntry {
  const name = names[names.length - 1] ?? '';
  const uri = formatSourceUri(source, names);
  const mtime = new Date(attrs.mtime * 1000).toISOString();
  if (isDirectory(attrs)) return { uri, name, type: 'directory', mtime };
  return { uri, name, type: 'file', size: attrs.size, mtime, etag: etagOf(attrs), mime: mimeFromName(name) };
}
