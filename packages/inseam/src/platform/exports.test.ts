import { describe, expect, it } from 'vitest';
import * as network from '../network/index.js';
import * as search from '../search/index.js';
import * as platform from './index.js';

describe('the platform, network and search subpaths', () => {
  it('export exactly their named API', () => {
    expect(Object.keys(platform).sort()).toEqual(
      ['ACTIONS', 'ALL_FEATURES', 'FEATURES', 'GRANT_RIGHTS', 'allows', 'featuresRule', 'mayDo', 'refusal', 'ruleOf', 'BUILTIN_PACKAGES', 'DATABASE_URL_ENV', 'DATA_DIR_ENV', 'DEFAULT_EGRESS_LOG_SIZE', 'EgressLog', 'FALLBACK_PERMISSIONS', 'HostKinds', 'MAX_WEBHOOK_BYTES', 'Platform', 'PlatformPaths', 'builtinPackages', 'hostCredentialRef', 'installRoot', 'installedPackageFolder', 'openPlatform', 'resolveDataDir', 'resolveStoreUrl'].sort(),
    );
    expect(Object.keys(network).sort()).toEqual(
      ['MAX_DESCRIPTION_LENGTH', 'MAX_LABEL_LENGTH', 'NetworkService', 'PAD_SLUG', 'attributeHost', 'createPreparedHost', 'checkOwnership', 'canonicalSlug', 'ownedSlug', 'ownerIdFor', 'checkPrivateOrigins', 'checkSyncSettings', 'checkText', 'declaredConfig', 'defaultSync', 'packageBaselines', 'resolveLocalRoot', 'sourceOffers'].sort(),
    );
    expect(Object.keys(search).sort()).toEqual(['DEFAULT_SEARCH_LIMIT', 'DEFAULT_SEARCH_MODE', 'MAX_SEARCH_LIMIT', 'SearchService', 'WHERE_OPERATORS', 'describeWhere', 'parseWhere', 'typeWhere'].sort());
  });
});
