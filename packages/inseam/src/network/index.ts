export { NetworkService, PAD_SLUG, createPreparedHost } from './service.js';
export type { AddHostInput, HostChange, HostView, SkippedSeed, NetworkInit, DiscoverableSource, NetworkServiceOptions } from './service.js';
export { sourceOffers, packageBaselines, attributeHost, declaredConfig, resolveLocalRoot } from './declarations.js';
export type { SourceOffer, RootBases } from './declarations.js';
export { checkSyncSettings, checkOwnership, defaultSync, checkText, checkPrivateOrigins, MAX_LABEL_LENGTH, MAX_DESCRIPTION_LENGTH } from './host-input.js';
export { ownedSlug, canonicalSlug, ownerIdFor } from './owned-slug.js';
export type { HostAdder } from './owned-slug.js';
