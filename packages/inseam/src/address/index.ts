export { parseAddress, formatAddress, createAddress } from './address.js';
export type { Address, AddressForm, AddressParts, ParseAddressOptions, FormatAddressOptions } from './address.js';
export { addressToSourceUri, addressFromSourceUri, addressToHostPath, addressFromHostPath } from './convert.js';
export type { AddressContext } from './convert.js';
export { checkNetworkSlug, checkHostSlug, isNetworkSlug, isHostSlug, NETWORK_SLUG_MAX, HOST_SLUG_MAX, GLOBAL_SCHEME } from './slug.js';
