export { BUCKET_PACKAGE_ID, BUCKET_CONNECTOR_ENTRY, BUCKET_CREDENTIALS, BUCKET_MANIFEST } from './manifest.js';
export { BucketPort, BUCKET_PORT_CAPABILITIES } from './port.js';
export { BucketHost } from './host.js';
export { init, createBucketConnector, createBucketPort, createBucketHost } from './factory.js';
export type { BucketBindingOptions } from './factory.js';
export { SigningEgress } from './signing-egress.js';
export type { AwsCredentials, AwsCredentialSource, SigningEgressOptions } from './signing-egress.js';
export { parseBucketConfig, BUCKET_PROVIDERS, DEFAULT_READ_CAPS } from './config.js';
export type { BucketProvider, BucketConfig, PadConfig, RemoteBucketConfig, ReadCaps } from './config.js';
