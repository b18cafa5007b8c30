/**
 * RFC 3339 UTC timestamps for listings. `Date#toISOString` is a measurable share of a large
 * listing, and files in one folder tend to share the same second, so the text up to the second
 * is cached and only the milliseconds are appended.
 */

let cachedSecond = Number.NaN;
let cachedPrefix = '';

/** `2024-05-01T12:34:56.789Z` for a millisecond timestamp (sub-millisecond digits are dropped). */
export function isoTime(milliseconds: number): string {
  const whole = Math.floor(milliseconds);
  const second = Math.floor(whole / 1000);
  if (second !== cachedSecond) {
    const full = new Date(second * 1000).toISOString();
    // Years outside 0000-9999 print with a sign and six digits; those are not worth caching.
    if (full.length !== 24) return new Date(whole).toISOString();
    cachedSecond = second;
    cachedPrefix = full.slice(0, 20);
  }
  const millis = whole - second * 1000;
  return `${cachedPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** Parses an RFC 3339 timestamp to milliseconds, or undefined when it is not one. */
export function parseTime(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value)) return undefined;
  const milliseconds = Date.parse(value);
  return Number.isNaN(milliseconds) ? undefined : milliseconds;
}
