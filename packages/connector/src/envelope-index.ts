export { MAIL_ROLES, mailIdentity, mailParties, partyAddresses, authenticationResults, parseAuthenticationResults, listId, mailDirection } from './envelope.js';
export type { MailRole, MailAddress, MailParties, AuthResults } from './envelope.js';
