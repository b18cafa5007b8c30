/**
 * Etags from metadata, so listing a million files never reads one of them:
 * `<ino>-<size>-<mtime µs>-<ctime µs>` in decimal (four times faster to format than base 36,
 * which shows in a 100,000-file listing).
 *
 * Why it changes whenever content changes:
 * - Our own writes go to a new temp file renamed over the old one, so the inode differs from the
 *   version it replaces; and write() makes the new file's mtime strictly later than the replaced
 *   version's (bumping it by microseconds when the clock tick has not moved — see
 *   `ensureLaterMtime`), so a same-size write within one timestamp tick, even onto a recycled
 *   inode number, still gets a new etag.
 * - Writers outside inseam change mtime and ctime (the kernel sets ctime; no program can set it
 *   back). The one case no metadata etag can see is an in-place rewrite of the same size within
 *   one filesystem timestamp tick (nanoseconds on current kernels, at most a few milliseconds on
 *   old ones) by another program; README.md states this limit.
 * Equal etags therefore mean equal content; a chmod changes the etag without changing content,
 * which only costs a re-read.
 */
import type { Stats } from 'node:fs';

/** Microseconds since the epoch: double `*Ms` values carry well under 1 µs of error today. */
export function microseconds(milliseconds: number): number {
  return Math.round(milliseconds * 1000);
}

export function etagOf(stats: Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>): string {
  return `${stats.ino}-${stats.size}-${microseconds(stats.mtimeMs)}-${microseconds(stats.ctimeMs)}`;
}
