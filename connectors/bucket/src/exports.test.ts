import { describe, expect, it } from 'vitest';
import * as bucket from './index.js';

describe('the package surface', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(bucket).sort()).toEqual(
      [
        'BUCKET_CONNECTOR_ENTRY',
        'BUCKET_CREDENTIALS',
        'BUCKET_MANIFEST',
        'BUCKET_PACKAGE_ID',
        'BUCKET_PORT_CAPABILITIES',
        'BUCKET_PROVIDERS',
        'BucketHost',
        'BucketPort',
        'DEFAULT_READ_CAPS',
        'SigningEgress',
        'createBucketConnector',
        'createBucketHost',
        'createBucketPort',
        'init',
        'parseBucketConfig',
      ].sort(),
    );
  });
});
