import { describe, expect, it } from 'vitest';
import * as manifest from './index.js';

describe('@neuralis/package-system/manifest exports', () => {
  it('exports exactly the documented names (explicit named exports, no export *)', () => {
    expect(Object.keys(manifest).sort()).toEqual(
      [
        'CREDENTIAL_KEYS',
        'DRAFT_07_KEYWORDS',
        'MANIFEST_KEYS',
        'MCP_CONNECTOR_KEYS',
        'SOURCE_CONNECTOR_KEYS',
        'SOURCE_DECLARATION_KEYS',
        'TRUSTED_LEVELS',
        'checkRuntimeRegistrationTrust',
        'compileConfigValidator',
        'describeSchema',
        'isPositiveIsoDuration',
        'isTrustedOrFirstParty',
        'parseConnectorFactory',
        'parseSourceRoot',
        'validateConfigSchema',
        'validateConnectorEntry',
        'validateCredentialDeclarations',
        'validateManifest',
        'validateSourceDeclarations',
      ].sort(),
    );
  });
});
