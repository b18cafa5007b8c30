/** The public shapes of the compliance harness: what a connector hands in and what comes back. */
import type { ConnectorPort, SessionContext, SourceConnectorEntry } from '../../contracts/index.js';
import type { CheckRecord, CheckReport } from '../checks.js';

export interface ComplianceSubject {
  /** The connector instance under test, as its factory returned it. */
  readonly port: ConnectorPort;
  /** Its manifest entry: the declared capabilities, execRequires, runtimeGated, kind. */
  readonly manifest: SourceConnectorEntry;
  /**
   * A directory URI on `port.source` under which the harness may create, replace and delete
   * objects. The harness works in a fresh `inseam-compliance-<token>` directory below it and
   * deletes that directory at the end when `delete` is declared. Without it, write and delete
   * checks skip.
   */
  readonly scratch?: string;
  /**
   * A known existing file, for read-only connectors (or in addition to `scratch`): read, range,
   * stat, walk and scanContent are checked against it and its directory. Use a text file of at
   * least 4 bytes (or an image/video/PDF, which reads back as base64 bytes).
   */
  readonly fixture?: { readonly uri: string; readonly content: Uint8Array | string };
  /** The caller for exec and detached.start. Default: a session granting the manifest's execRequires. */
  readonly session?: SessionContext;
  /** The directory URI commands run in. Default: the source root. */
  readonly execCwd?: string;
  /**
   * A command that exits 0 (exec). Default `echo inseam-compliance`, whose output is then checked.
   */
  readonly execCommand?: string;
  /**
   * A command for the detached run that prints at once and keeps running for at least 10 s, so
   * the harness can read its output and kill it. Default `echo inseam-compliance; sleep 30`.
   */
  readonly detachedCommand?: string;
}

export interface ComplianceOptions {
  /** A check still waiting on the connector after this many ms fails as timed out. Default 20,000. */
  readonly checkTimeoutMs?: number;
}

export type ComplianceCheckRecord = CheckRecord<string>;

/** `passed` is true when no check failed; skips carry their reason in `detail`. */
export type ComplianceReport = CheckReport<string>;
