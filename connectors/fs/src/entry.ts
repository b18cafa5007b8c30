/**
 * Entries as the two surfaces report them, built straight from lstat results: ConnectorEntry for
 * the port (files and directories) and the skill document's Entry for the host (files only —
 * directories are implied by paths there, as in an object store).
 */
import type { Stats } from 'node:fs';
import { mimeFromName } from '@neuralis/package-system/contracts';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import { etagOf } from './etag.js';
import { isoTime } from './time.js';
import type { WalkEntryType } from './walker.js';

type EntryStats = Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;

export function portEntry(source: string, path: string, name: string, type: WalkEntryType, stats: EntryStats): ConnectorEntry {
  const uri = `${source}://${path}`;
  if (type === 'directory') return { uri, name, type, mtime: isoTime(stats.mtimeMs) };
  return { uri, name, type, size: stats.size, mtime: isoTime(stats.mtimeMs), etag: etagOf(stats), mime: mimeFromName(name) };
}

export function hostEntry(path: string, name: string, stats: EntryStats): Entry {
  return { path, size: stats.size, mtime: isoTime(stats.mtimeMs), etag: etagOf(stats), mime: mimeFromName(name) };
}
