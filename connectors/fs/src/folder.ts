/**
 * What one bound folder source is made of, shared by its ConnectorPort (port.ts) and its host
 * Connector (host.ts): the root, the settings, and the listing state kept between pages.
 */
import type { FolderSettings } from './config.js';
import { ListingSessions } from './listing.js';
import { NameListings } from './names.js';
import { NewestListings } from './newest.js';
import type { FolderRoot } from './root.js';

export type FolderKind = 'fs' | 'local';

export interface FolderSource {
  readonly kind: FolderKind;
  /** The bound source slug (the URI scheme). */
  readonly source: string;
  readonly root: FolderRoot;
  readonly settings: FolderSettings;
  /** Absolute folder for detached-run state. */
  readonly stateDir: string;
  readonly listings: ListingSessions;
  /** Names-only listings (`detail: 'names'`). */
  readonly names: NameListings;
  readonly newest: NewestListings;
}

export function folderSource(fields: Omit<FolderSource, 'listings' | 'names' | 'newest'>): FolderSource {
  return { ...fields, listings: new ListingSessions(), names: new NameListings(), newest: new NewestListings() };
}
