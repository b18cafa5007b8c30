export { MAIL_ROLES, mailIdentity, statedEnvelope, authenticationResults, parseAuthenticationResults, listId } from './envelope.js';
export type { MailRole, AuthResults, EnvelopeOwner } from './envelope.js';
export { headerFields, headerValues, decodeEncodedWords } from './header-block.js';
export type { HeaderField } from './header-block.js';
