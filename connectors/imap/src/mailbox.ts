/** A mailbox as the session lists it: its name, hierarchy delimiter and special use (RFC 6154). */
export const SPECIAL_USES = ['inbox', 'sent', 'drafts', 'trash', 'junk', 'archive', 'all', 'flagged', 'none'] as const;
export type SpecialUse = (typeof SPECIAL_USES)[number];

export interface MailboxInfo {
  /** The server's full name (UTF-8). */
  readonly name: string;
  readonly delimiter: string;
  readonly specialUse: SpecialUse;
}
