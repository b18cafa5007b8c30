/**
 * Hard links. A regular file with more than one link is one inode under several names, and the
 * others may lie outside the root: a hard link made inside a folder host to `~/.ssh/id_ed25519`
 * serves the key. Containment checks names, so it cannot tell; the link count can. Unless the
 * source's `allowHardLinks` is set, such a file is left out of listings, walks and crawls, and
 * reading, stating or replacing it is `containment_violation` with `details.reason: "hard_link"`.
 * The count comes free with the stat already made on the contained descriptor (or the walker's
 * lstat). Folders always have several links and are not concerned.
 */
import type { Stats } from 'node:fs';
import { ContainmentViolationError } from '@neuralis/package-system/contracts';

export function isHardLinked(stats: Pick<Stats, 'nlink' | 'isFile'>): boolean {
  return stats.nlink > 1 && stats.isFile();
}

/** Throws `containment_violation` for a hard-linked file the source does not serve. */
export function refuseHardLink(stats: Pick<Stats, 'nlink' | 'isFile'>, allowHardLinks: boolean): void {
  if (!allowHardLinks && isHardLinked(stats)) {
    throw new ContainmentViolationError(
      "That file has more than one hard link, so its content may also be reachable outside the source root; this host does not serve such files (its config's allowHardLinks turns them on).",
      { details: { reason: 'hard_link' } },
    );
  }
}
