/** The server's defaults that `inseam up --help` shows, kept apart so the help does not load the server. */

/** The largest body `PUT /v1/fs/write` accepts by default: 64 MiB. */
export const DEFAULT_MAX_WRITE_BYTES = 64 * 1024 * 1024;
