/**
 * Telling a PostgreSQL store URL from a SQLite file, without loading `pg`: commands that only
 * need to know which store they were given (and the embedded store's commands) must not pay for it.
 */

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url);
}
